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
//   A large blob whose last message is deleted within that time of its last put (a disposable inbox
//   of a test, sent to and deleted in seconds) is kept by that release; sweepPgOrphanBlobs frees it
//   once the grace has passed, as it frees one left by a crash between its put and its message.
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

/**
 * Frees large blobs nothing references whose last touch is older than the grace period: those a
 * release had to keep (deleted within the grace of their put) and those a crash left between a put
 * and its message. At most `limit` per call; returns how many went. Each goes through
 * releasePgBlob, so a put touching one meanwhile keeps it. The candidates' scan reads the head rows
 * of every blob (no index on `touched_at`): it runs every few minutes, not per message.
 */
export async function sweepPgOrphanBlobs(pool: PgPool, limit = 500, graceSeconds = BLOB_GRACE_SECONDS): Promise<number> {
  const candidates = await pool.rows<{ key: string }>(
    `SELECT b.key FROM blobs_inline b
      WHERE b.codec = $1 AND b.touched_at < now() - make_interval(secs => $2)
        AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.blob_key = b.key)
        AND NOT EXISTS (SELECT 1 FROM attachments a WHERE a.blob_key = b.key)
      LIMIT $3`,
    CODEC_CHUNKED,
    graceSeconds,
    limit,
  );
  let freed = 0;
  for (const { key } of candidates) if (await releasePgBlob(pool, key, graceSeconds)) freed++;
  return freed;
}
