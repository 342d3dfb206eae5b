// The one path by which messages and inboxes disappear, whichever channel asks (REST delete,
// IMAP EXPUNGE, POP3 DELE at QUIT, expiry, retention): rows go, then unreferenced blobs, then
// a wake-up on the bus so IDLE sessions and SSE clients hear of it.
import type { AppContext } from "../context";
import { releaseBlobs } from "./blob-refs";

export class MailRemoval {
  constructor(private readonly ctx: AppContext) {}

  /** Deletes messages by id (all must belong to projectId). Returns how many were deleted. */
  async deleteMessages(projectId: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const { sqlite } = this.ctx.db;
    const removed: { id: string; inbox_id: string; uid: number }[] = [];
    const keys: string[] = [];
    this.ctx.db.tx(() => {
      const sel = sqlite.query("SELECT id, inbox_id, uid, blob_key FROM messages WHERE id = ? AND project_id = ?");
      const att = sqlite.query("SELECT blob_key FROM attachments WHERE message_id = ?");
      const del = sqlite.query("DELETE FROM messages WHERE id = ?");
      for (const id of ids) {
        const m = sel.get(id, projectId) as { id: string; inbox_id: string; uid: number; blob_key: string } | null;
        if (!m) continue;
        keys.push(m.blob_key, ...(att.all(id) as { blob_key: string }[]).map((a) => a.blob_key));
        del.run(id);
        removed.push(m);
      }
    });
    for (const m of removed) {
      this.ctx.bus.publish({ type: "message.deleted", projectId, inboxId: m.inbox_id, messageId: m.id, uid: m.uid });
    }
    await releaseBlobs(this.ctx, keys);
    return removed.length;
  }

  async deleteInbox(projectId: string, inboxId: string): Promise<boolean> {
    const { sqlite } = this.ctx.db;
    let keys: string[] = [];
    const deleted = this.ctx.db.tx(() => {
      keys = [
        ...(sqlite.query("SELECT blob_key FROM messages WHERE inbox_id = ?").all(inboxId) as { blob_key: string }[]),
        ...(sqlite
          .query("SELECT a.blob_key FROM attachments a JOIN messages m ON m.id = a.message_id WHERE m.inbox_id = ?")
          .all(inboxId) as { blob_key: string }[]),
      ].map((r) => r.blob_key);
      return sqlite.query("DELETE FROM inboxes WHERE id = ? AND project_id = ?").run(inboxId, projectId).changes > 0;
    });
    if (!deleted) return false;
    this.ctx.bus.publish({ type: "inbox.deleted", projectId, inboxId });
    await releaseBlobs(this.ctx, keys);
    return true;
  }
}
