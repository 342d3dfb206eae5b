// Frees blobs no message or attachment references any more. Content addressing means a new
// message may reuse a blob between its put() and its row commit: such keys are pinned while in
// flight and never freed. (A multi-node store would use a grace period instead of pins.)
import type { AppContext } from "../context";

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

export async function releaseBlobs(ctx: AppContext, keys: Iterable<string>): Promise<number> {
  const q = ctx.db.sqlite.query(
    "SELECT EXISTS(SELECT 1 FROM messages WHERE blob_key = ?1) OR EXISTS(SELECT 1 FROM attachments WHERE blob_key = ?1) AS used",
  );
  let freed = 0;
  for (const key of new Set(keys)) {
    if (pins.has(key)) continue;
    const r = q.get(key) as { used: number };
    if (!r.used) {
      await ctx.blobs.delete(key);
      freed++;
    }
  }
  return freed;
}
