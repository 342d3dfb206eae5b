// The one path by which messages and inboxes disappear, whichever channel asks (REST delete,
// IMAP EXPUNGE, POP3 DELE at QUIT, expiry, retention): rows go, then unreferenced blobs, then
// a wake-up on the bus so IDLE sessions and SSE clients hear of it.
import type { AppContext } from "../runtime/context";
import { releaseBlobs } from "./blob-refs";

export class MailRemoval {
  constructor(private readonly ctx: AppContext) {}

  /** Deletes messages by id (all must belong to projectId). Returns how many were deleted. */
  async deleteMessages(projectId: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const { removed, blobKeys } = await this.ctx.storage.transaction((tx) => tx.messages.deleteInProject(projectId, ids));
    for (const m of removed) {
      this.ctx.bus.publish({ type: "message.deleted", projectId, inboxId: m.inbox_id, messageId: m.id, uid: m.uid });
    }
    await releaseBlobs(this.ctx.storage, blobKeys);
    return removed.length;
  }

  /** Deletes an inbox of the project with its messages; false when there was no such inbox. */
  async deleteInbox(projectId: string, inboxId: string): Promise<boolean> {
    const keys = await this.ctx.storage.transaction((tx) => tx.inboxes.deleteInProject(projectId, inboxId));
    if (keys === null) return false;
    this.ctx.bus.publish({ type: "inbox.deleted", projectId, inboxId });
    await releaseBlobs(this.ctx.storage, keys);
    return true;
  }
}
