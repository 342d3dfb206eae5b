// Frees blobs no message or attachment references any more. Content addressing means a new
// message may reuse a blob between its put() and its row commit: such keys are pinned while in
// flight and never freed by this process. Other nodes' deliveries are not pinned here: on
// PostgreSQL, Storage.releaseBlob locks the blob's row before it looks for references
// (storage/postgres/blob-release.ts, migration 0033).
import type { Storage } from "../storage";

const pins = new Map<string, number>();

export function pinBlob(key: string): () => void {
  pins.set(key, (pins.get(key) ?? 0) + 1);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    const n = (pins.get(key) ?? 1) - 1;
    if (n <= 0) pins.delete(key);
    else pins.set(key, n);
  };
}

/** Deletes those of the blobs that nothing references any more (and no delivery in flight pins). Returns how many. */
export async function releaseBlobs(storage: Storage, keys: Iterable<string>): Promise<number> {
  let freed = 0;
  for (const key of new Set(keys)) {
    if (pins.has(key)) continue;
    if (await storage.releaseBlob(key)) freed++;
  }
  return freed;
}
