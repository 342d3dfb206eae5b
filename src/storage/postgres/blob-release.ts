// Freeing a blob nothing references, safely with several nodes (migration 0034, docs/scaling.md
// "Blobs"). Blobs are content addressed, so node B may store a message whose bytes are already
// there (its put writes nothing) while node A, which just deleted the last message that used them,
// sees no reference yet: B's message row is not committed. SQLite's answer, pins of the blobs of
// deliveries in flight (mail/blob-refs.ts), only sees the pins of its own process.
//
// Here A locks the blob's head row (FOR UPDATE), then looks for references in a statement of its
// own, then deletes:
// - a small blob's put is an INSERT … ON CONFLICT DO UPDATE in B's ingest transaction, which holds
//   the row's lock until B's message commits. If B touched first, A's lock waits for B's COMMIT,
//   and A's reference check, a new statement under READ COMMITTED with a new snapshot, sees B's
//   message: kept. If A locked first, B's INSERT waits; A's DELETE commits; B's INSERT finds no
//   conflict any more and writes the bytes itself.
// - a large blob is written (or found and touched) in a transaction of its own that commits before
//   B's message does, so no lock spans the gap: a head touched within BLOB_GRACE_SECONDS is kept.
//   The cost: a large blob whose last message is deleted within that time of its last put stays
//   until something frees it again (docs/scaling.md, "Blobs").
import type { PgPool } from "./blobs";
import { CODEC_CHUNKED } from "./blobs";

/** How long a large blob's put may precede the commit of the message that points at it. */
export const BLOB_GRACE_SECONDS = 600;

/** Deletes the blob (head and chunks) if nothing references it; false when it was kept or absent. */
export function releasePgBlob(pool: PgPool, key: string, graceSeconds = BLOB_GRACE_SECONDS): Promise<boolean> {
  return pool.transaction(async (tx) => {
    const head = await tx.row<{ codec: number; recent: boolean }>(
      "SELECT codec, touched_at > now() - make_interval(secs => $2) AS recent FROM blobs_inline WHERE key = $1 FOR UPDATE",
      key,
      graceSeconds,
    );
    if (!head) return false;
    if (head.codec === CODEC_CHUNKED && head.recent) return false;
    const r = await tx.row<{ used: boolean }>(
      "SELECT EXISTS (SELECT 1 FROM messages WHERE blob_key = $1) OR EXISTS (SELECT 1 FROM attachments WHERE blob_key = $1) AS used",
      key,
    );
    if (r!.used) return false;
    await tx.run("WITH head AS (DELETE FROM blobs_inline WHERE key = $1) DELETE FROM blob_chunks WHERE key = $1", key);
    return true;
  });
}
