// Flag writes from IMAP. \Seen is the REST `read` field (one fact), \Flagged and \Deleted have
// their own columns. Every change is announced on the bus so other sessions, SSE clients and
// the REST view hear of it.
import type { Session } from "./session";
import type { Msg } from "./mailbox";

export function persistFlags(s: Session, msgs: Msg[]): void {
  if (msgs.length === 0) return;
  const inbox = s.inbox!;
  const upd = s.ctx.db.sqlite.query("UPDATE messages SET read = ?, flagged = ?, deleted_flag = ? WHERE id = ? AND inbox_id = ?");
  s.ctx.db.tx(() => {
    for (const m of msgs) upd.run(m.seen ? 1 : 0, m.flagged ? 1 : 0, m.deleted ? 1 : 0, m.id, inbox.id);
  });
  s.publishOwn(msgs.map((m) => ({ type: "message.flags", projectId: inbox.projectId, inboxId: inbox.id, messageId: m.id })));
}
