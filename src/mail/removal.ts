// The one path by which messages and inboxes disappear, whichever channel asks (REST delete,
// IMAP EXPUNGE, POP3 DELE at QUIT, expiry, retention): rows go, then unreferenced blobs, then
// a wake-up on the bus so IDLE sessions and SSE clients hear of it.
import type { AppContext } from "../runtime/context";
import { releaseBlobs } from "./blob-refs";
import type { SearchQuery } from "../storage/mail";

/** Messages deleted per transaction by a bulk delete (each batch is announced like single deletes). */
const BULK_BATCH = 500;

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

  /**
   * Deletes every message of the inbox (of the project: the caller has checked), or with a query
   * the matching ones (DELETE /v1/inboxes/{id}/messages), in batches through deleteMessages, so
   * counters, quotas, blobs and IMAP EXPUNGE announcements follow as for single deletes.
   * Returns how many were deleted.
   */
  async deleteMatching(projectId: string, inboxId: string, query: SearchQuery | null): Promise<number> {
    let total = 0;
    let after: string | null = null;
    for (;;) {
      const ids = await this.ctx.storage.messages.idsInInbox(inboxId, query, after, BULK_BATCH);
      if (ids.length === 0) return total;
      total += await this.deleteMessages(projectId, ids);
      after = ids.at(-1)!;
    }
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
