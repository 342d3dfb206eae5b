// STATUS (RFC 3501 §6.3.10) of INBOX, straight from storage.
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
    const row = await s.ctx.storage.inboxes.mailboxStatus(s.inbox!.id);
    if (!row) return "NO [NONEXISTENT] The inbox no longer exists";
    const values: Record<string, number> = {
      MESSAGES: row.messages,
      RECENT: 0,
      UIDNEXT: Math.max(row.uidNext, (row.maxUid ?? 0) + 1),
      UIDVALIDITY: row.uidValidity,
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
