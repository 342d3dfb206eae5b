// STATUS (RFC 3501 §6.3.10) of any mailbox, from storage (INBOX from the inbox's counters).
import { listOf } from "../parser/tokens";
import { folderReply, mailboxName, wireName } from "../folders";
import { AUTHED, type CommandDef } from "./types";

export default {
  names: ["STATUS"],
  states: AUTHED,
  async run(s, c) {
    if (c.args.length !== 2) return "BAD STATUS takes a mailbox and an item list";
    const name = mailboxName(c.args[0]);
    const items = listOf(c.args[1], "status item list").map((t) => (t.t === "atom" ? t.v.toUpperCase() : ""));
    let line = "";
    const reply = await folderReply("OK STATUS completed", async () => {
      const mb = await s.services.folders.get(s.inbox!, name);
      const counts = await s.ctx.storage.imapFolders.counts(s.inbox!.id, mb.id);
      const values: Record<string, number> = {
        MESSAGES: counts.messages,
        RECENT: items.includes("RECENT") ? (await s.ctx.storage.imapFolders.recentMark(s.inbox!.id, mb.id)).above : 0,
        UIDNEXT: Math.max(mb.uidNext, (counts.maxUid ?? 0) + 1),
        UIDVALIDITY: mb.uidValidity,
        UNSEEN: counts.unseen,
        HIGHESTMODSEQ: counts.highestModseq,
      };
      const out: string[] = [];
      for (const it of items) {
        if (!(it in values)) {
          line = `BAD Unknown STATUS item ${it.slice(0, 20)}`;
          return;
        }
        out.push(`${it} ${values[it]}`);
      }
      await s.write(`* STATUS ${wireName(mb.name)} (${out.join(" ")})\r\n`);
    });
    return line || reply;
  },
} satisfies CommandDef;
