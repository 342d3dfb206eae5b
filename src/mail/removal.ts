// The one path by which messages and inboxes disappear, whichever channel asks (REST delete,
// IMAP EXPUNGE, POP3 DELE at QUIT, expiry, retention): rows go, then unreferenced blobs, then
// a wake-up on the bus so IDLE sessions and SSE clients hear of it.
import type { AppContext } from "../runtime/context";
import { releaseBlobs } from "./blob-refs";
import { yieldToLoop } from "../lib/batches";
import type { SearchQuery } from "../storage/mail";
import type { Transaction } from "../storage";

/** Message ids a bulk delete reads at a time (each is then deleted in time-bounded transactions). */
const BULK_BATCH = 500;
/**
 * How long one delete transaction may hold SQLite's write lock. The transactions run on the
 * storage's background connection (Storage.deleteMessages: a worker thread), so the event loop
 * goes on meanwhile, but a write of the main connection (a delivery) waits for the lock. A row
 * costs ~0.5 ms to delete on 2 busy cores (overflow pages, five indexes, counters, the search
 * queue), tenfold more from a cold page cache; the batch size follows the measured time.
 */
const TARGET_MS = 40;
/**
 * The ceiling whatever the measure says: a row's cost varies tenfold with the page cache (a batch
 * of 500 after fast ones took 294 ms at 100k messages), so the batch never bets on the best case.
 */
export const MAX_BATCH = 100;
/**
 * Blobs freed between two turns of the event loop. Each inline blob's DELETE is an autocommit on
 * the main connection (synchronous=FULL: a WAL fsync on the event loop), so a group of 8 held it
 * 80–240 ms on a loaded machine once the rows themselves went to the deletion thread. Freeing
 * them in the deleter's transaction would remove this; the blob store's rules would have to move.
 */
const RELEASE_BATCH = 2;

export class MailRemoval {
  /** Rows per delete transaction, adapted to TARGET_MS. */
  private batch = 16;

  constructor(private readonly ctx: AppContext) {}

  /**
   * Deletes messages by id (all must belong to projectId), in transactions of about TARGET_MS
   * with other work between them. Returns how many were deleted.
   */
  async deleteMessages(projectId: string, ids: string[]): Promise<number> {
    let total = 0;
    for (let i = 0; i < ids.length; ) {
      // Before every batch, the first too: callers that loop (a bulk delete's slices, expiry's
      // rounds) then never run two delete transactions without a turn of the loop between them.
      await yieldToLoop();
      const part = ids.slice(i, i + this.batch);
      i += part.length;
      const { n, ms } = await this.deleteBatch(projectId, part);
      total += n;
      this.batch = Math.max(8, Math.min(MAX_BATCH, Math.round(part.length * Math.min(1.5, TARGET_MS / Math.max(ms, 1)))));
    }
    return total;
  }

  /**
   * One transaction; `ms` is how long it took, commit and fsync included: what a delivery waiting
   * for the write lock meanwhile feels.
   */
  private async deleteBatch(projectId: string, ids: string[]): Promise<{ n: number; ms: number }> {
    const t = performance.now();
    const { removed, blobKeys } = await this.ctx.storage.deleteMessages(projectId, ids);
    const ms = performance.now() - t;
    for (const m of removed) {
      this.ctx.bus.publish({
        type: "message.deleted",
        projectId,
        inboxId: m.inbox_id,
        messageId: m.id,
        mailboxId: m.mailbox_id,
        uid: m.uid,
      });
    }
    // Each freed blob is a statement of its own (~5 ms on a busy disk) whose awaits resolve
    // without a turn of the loop: a few at a time, then the others' turn.
    const keys = [...new Set(blobKeys)];
    for (let i = 0; i < keys.length; i += RELEASE_BATCH) {
      if (i > 0) await yieldToLoop();
      await releaseBlobs(this.ctx.storage, keys.slice(i, i + RELEASE_BATCH));
    }
    return { n: removed.length, ms };
  }

  /**
   * Deletes every message of the inbox (of the project: the caller has checked), or with a query
   * the matching ones (DELETE /v1/inboxes/{id}/messages), in batches through deleteMessages, so
   * counters, quotas, blobs and IMAP EXPUNGE announcements follow as for single deletes.
   * Returns how many were deleted.
   */
  async deleteMatching(projectId: string, inboxId: string, query: SearchQuery | null): Promise<number> {
    // The same read-your-writes as a search (mail/search.ts): the index is written after the commit,
    // and a delete by q sent right after the 250 must match the message that 250 acknowledged.
    if (query) await this.ctx.storage.searchable();
    let total = 0;
    let after: string | null = null;
    for (;;) {
      const ids = await this.ctx.storage.messages.idsInInbox(inboxId, query, after, BULK_BATCH);
      if (ids.length === 0) return total;
      total += await this.deleteMessages(projectId, ids);
      after = ids.at(-1)!;
    }
  }

  /**
   * Deletes an inbox of the project with its messages; false when there was no such inbox. The
   * messages go first, in bounded batches (a cascade of thousands of rows in one statement froze
   * the server for seconds); the inbox row, with whatever arrived meanwhile, last.
   */
  async deleteInbox(projectId: string, inboxId: string, inTx?: (tx: Transaction) => Promise<void>): Promise<boolean> {
    const inbox = await this.ctx.storage.inboxes.byId(inboxId);
    if (!inbox || inbox.projectId !== projectId) return false;
    await this.deleteMatching(projectId, inboxId, null);
    // `inTx` (the expiry's inbox.expired outbox rows) commits with the row's deletion, or neither does.
    const keys = await this.ctx.storage.transaction(async (tx) => {
      const deleted = await tx.inboxes.deleteInProject(projectId, inboxId);
      if (deleted !== null && inTx) await inTx(tx);
      return deleted;
    });
    if (keys === null) return false;
    this.ctx.bus.publish({ type: "inbox.deleted", projectId, inboxId });
    await releaseBlobs(this.ctx.storage, keys);
    return true;
  }
}
