// SELECT (RFC 3501 §6.3.1) of any mailbox, and EXAMINE through openMailbox(readOnly).
import { Mailbox } from "../mailbox";
import type { Session } from "../session";
import type { Command } from "../parser/tokens";
import { folderReply, mailboxName } from "../folders";
import { flagsLines } from "../extra-flags";
import { AUTHED, type CommandDef } from "./types";
import { parseSelectParams, resync } from "../qresync";

export async function openMailbox(s: Session, c: Command, readOnly: boolean): Promise<string> {
  if (c.args.length !== 1 && c.args.length !== 2) return `BAD ${c.name} takes a mailbox name and optional parameters`;
  const name = mailboxName(c.args[0]);
  const params = parseSelectParams(s, c.args[1]);
  if (params.condstore) s.condstore = true;
  // Selecting again closes the current mailbox first (without expunging); under QRESYNC the
  // client is told where the old mailbox's responses end (RFC 7162 §3.2.11).
  if (s.mailbox && s.qresync) await s.write("* OK [CLOSED] Previous mailbox closed\r\n");
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
        `* OK [HIGHESTMODSEQ ${mb.highestModseqAtOpen}] Highest`,
        "",
      ].join("\r\n"),
    );
    mb.vanished = s.qresync;
    s.mailbox = mb;
    if (params.qresync && params.qresync.uidValidity === ref.uidValidity) await resync(s, mb, params.qresync, uidNext);
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
