// STATUS (RFC 3501 §6.3.10) of INBOX, straight from the database.
import { astring, listOf } from "../parser/tokens";
import { AUTHED, type CommandDef } from "./types";

export default {
  names: ["STATUS"],
  states: AUTHED,
  async run(s, c) {
    if (c.args.length !== 2) return "BAD STATUS takes a mailbox and an item list";
    const name = astring(c.args[0], "mailbox");
    const items = listOf(c.args[1], "status item list").map((t) => (t.t === "atom" ? t.v.toUpperCase() : ""));
    if (name.toUpperCase() !== "INBOX") return "NO [NONEXISTENT] Only INBOX exists";
    const row = s.ctx.db.sqlite
      .query(
        `SELECT i.uid_validity, i.uid_next, (SELECT COUNT(*) FROM messages m WHERE m.inbox_id = i.id) AS n,
                (SELECT COUNT(*) FROM messages m WHERE m.inbox_id = i.id AND m.read = 0) AS unseen,
                (SELECT MAX(uid) FROM messages m WHERE m.inbox_id = i.id) AS max_uid
         FROM inboxes i WHERE i.id = ?`,
      )
      .get(s.inbox!.id) as { uid_validity: number; uid_next: number; n: number; unseen: number; max_uid: number | null } | null;
    if (!row) return "NO [NONEXISTENT] The inbox no longer exists";
    const values: Record<string, number> = {
      MESSAGES: row.n,
      RECENT: 0,
      UIDNEXT: Math.max(row.uid_next, (row.max_uid ?? 0) + 1),
      UIDVALIDITY: row.uid_validity,
      UNSEEN: row.unseen,
    };
    const out: string[] = [];
    for (const it of items) {
      if (!(it in values)) return `BAD Unknown STATUS item ${it.slice(0, 20)}`;
      out.push(`${it} ${values[it]}`);
    }
    await s.write(`* STATUS INBOX (${out.join(" ")})\r\n`);
    return "OK STATUS completed";
  },
} satisfies CommandDef;
