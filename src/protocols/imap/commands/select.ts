// SELECT (RFC 3501 §6.3.1), and EXAMINE through openMailbox(readOnly).
import { astring, type Command } from "../parser/tokens";
import { Mailbox } from "../mailbox";
import type { Session } from "../session";
import { AUTHED, type CommandDef } from "./types";

export async function openMailbox(s: Session, c: Command, readOnly: boolean): Promise<string> {
  if (c.args.length !== 1) return `BAD ${c.name} takes one mailbox name`;
  // Selecting again closes the current mailbox first (without expunging).
  s.mailbox = null;
  s.opening = null;
  s.state = "authenticated";
  if (astring(c.args[0], "mailbox").toUpperCase() !== "INBOX") return "NO [NONEXISTENT] Only INBOX exists";
  const inbox = await s.ctx.storage.inboxes.byId(s.inbox!.id);
  if (!inbox) return "NO [NONEXISTENT] The inbox no longer exists";
  const mb = await Mailbox.open(s.ctx, s.inbox!.id, readOnly, (m) => (s.opening = m));
  const uidNext = mb.uidNext;
  const firstUnseen = mb.firstUnseen;
  await s.write(
    [
      "* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft)",
      readOnly ? "* OK [PERMANENTFLAGS ()] Read-only" : "* OK [PERMANENTFLAGS (\\Seen \\Flagged \\Deleted)] Limited",
      `* ${mb.exists} EXISTS`,
      "* 0 RECENT",
      ...(firstUnseen > 0 ? [`* OK [UNSEEN ${firstUnseen}] First unseen`] : []),
      `* OK [UIDVALIDITY ${inbox.uidValidity}] UIDs valid`,
      `* OK [UIDNEXT ${uidNext}] Predicted next UID`,
      "",
    ].join("\r\n"),
  );
  s.mailbox = mb;
  s.opening = null;
  s.state = "selected";
  return readOnly ? "OK [READ-ONLY] EXAMINE completed" : "OK [READ-WRITE] SELECT completed";
}

export default {
  names: ["SELECT"],
  states: AUTHED,
  run: (s, c) => openMailbox(s, c, false),
} satisfies CommandDef;
