// SELECT (RFC 3501 §6.3.1) of any mailbox, and EXAMINE through openMailbox(readOnly).
import { Mailbox } from "../mailbox";
import type { Session } from "../session";
import type { Command } from "../parser/tokens";
import { folderReply, mailboxName } from "../folders";
import { flagsLines } from "../extra-flags";
import { AUTHED, type CommandDef } from "./types";

export async function openMailbox(s: Session, c: Command, readOnly: boolean): Promise<string> {
  if (c.args.length !== 1) return `BAD ${c.name} takes one mailbox name`;
  const name = mailboxName(c.args[0]);
  // Selecting again closes the current mailbox first (without expunging).
  s.mailbox = null;
  s.opening = null;
  s.state = "authenticated";
  let ok = "";
  const reply = await folderReply("", async () => {
    const ref = await s.services.folders.get(s.inbox!, name);
    const mb = await Mailbox.open(s.ctx, s.inbox!.id, readOnly, (m) => (s.opening = m), ref.id);
    // UIDNEXT: the mailbox's own (INBOX: the inbox's counter), never at or below a UID it holds.
    const uidNext = Math.max(ref.uidNext, mb.highestUidAtOpen + 1);
    const firstUnseen = mb.firstUnseen;
    const keywords = await s.ctx.storage.imapFolders.keywords(s.inbox!.id);
    await s.write(
      [
        ...flagsLines(mb, keywords, readOnly),
        `* ${mb.exists} EXISTS`,
        `* ${mb.recentAtOpen} RECENT`,
        ...(firstUnseen > 0 ? [`* OK [UNSEEN ${firstUnseen}] First unseen`] : []),
        `* OK [UIDVALIDITY ${ref.uidValidity}] UIDs valid`,
        `* OK [UIDNEXT ${uidNext}] Predicted next UID`,
        "",
      ].join("\r\n"),
    );
    s.mailbox = mb;
    s.opening = null;
    s.state = "selected";
    ok = readOnly ? "OK [READ-ONLY] EXAMINE completed" : "OK [READ-WRITE] SELECT completed";
  });
  return ok || reply;
}

export default {
  names: ["SELECT"],
  states: AUTHED,
  run: (s, c) => openMailbox(s, c, false),
} satisfies CommandDef;
