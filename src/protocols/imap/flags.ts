// Flag writes from IMAP. \Seen is the REST `read` field (one fact), \Flagged and \Deleted have
// their own columns. They go through the message service's setFlags, the one place flags change,
// which announces every change on the bus so other sessions, SSE clients and the REST view hear of
// it (this session, whose view already shows them, does not hear its own).
import type { Session } from "./session";
import type { Msg } from "./mailbox";

export async function persistFlags(s: Session, msgs: Msg[]): Promise<void> {
  if (msgs.length === 0) return;
  const inbox = s.inbox!;
  const mb = s.mailbox!;
  await mb.withDetails(msgs);
  // Messages deleted meanwhile have no id to write to.
  const live = msgs.filter((m) => mb.detailsOf(m.uid));
  await s.services.messages.setFlags(
    inbox.projectId,
    inbox.id,
    live.map((m) => ({ id: m.id, read: m.seen, flagged: m.flagged, deleted: m.deleted })),
    (events) => s.publishOwn(events),
  );
}
