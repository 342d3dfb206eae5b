// Recently fetched raw messages, shared by all sessions and bounded by bytes. IMAP clients read
// the same message several times in a row (BODYSTRUCTURE, then parts; headers, then the body;
// big parts in partial chunks) and every read from the blob store costs a full copy of the blob
// out of SQLite or the file system. Keys are content hashes, so an entry never goes stale.
import type { BlobStore } from "../../storage/blobs";

const MAX_BYTES = 48 * 1024 * 1024;
/** Larger messages are not kept: one of them would push out hundreds of ordinary ones. */
const MAX_ENTRY = 8 * 1024 * 1024;

const entries = new Map<string, Buffer>();
let total = 0;

export async function rawMessage(blobs: BlobStore, key: string): Promise<Buffer | null> {
  const hit = entries.get(key);
  if (hit) {
    entries.delete(key);
    entries.set(key, hit);
    return hit;
  }
  const bytes = await blobs.get(key);
  if (!bytes) return null;
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length <= MAX_ENTRY) {
    entries.set(key, buf);
    total += buf.length;
    for (const [k, v] of entries) {
      if (total <= MAX_BYTES) break;
      entries.delete(k);
      total -= v.length;
    }
  }
  return buf;
}

/** Drops a blob that was deleted (its key may come back with the same bytes; it would be equal). */
export function forgetRaw(key: string): void {
  const v = entries.get(key);
  if (v) {
    entries.delete(key);
    total -= v.length;
  }
}
