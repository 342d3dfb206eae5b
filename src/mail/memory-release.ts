// Giving memory back after large mail. JavaScriptCore frees a large message's buffers only when
// a collection runs, and its heuristics may not run a full one for a long while on an idle
// server, so RSS stayed at ~2.4 GB after a burst of 24 MB messages (issue 18). When the last
// piece of large work in flight (a delivery, its SPF/DKIM check) is done, one full collection runs (debounced: a burst costs one, not
// one per message), and the heap returns near its baseline (docs/security.md, measured by
// bench/large-messages.ts). Small mail never triggers it.

/** A delivery at least this large counts as large. */
export const LARGE_MESSAGE_BYTES = 4 * 1024 * 1024;
const SETTLE_MS = 200;

let inFlight = 0;
let timer: ReturnType<typeof setTimeout> | null = null;

/** Marks a large delivery as started; call the returned function when it is done. */
export function largeMessageStarted(size: number): () => void {
  if (size < LARGE_MESSAGE_BYTES) return () => {};
  inFlight++;
  if (timer) clearTimeout(timer);
  timer = null;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    if (--inFlight > 0) return;
    timer = setTimeout(() => {
      timer = null;
      if (inFlight === 0) Bun.gc(true);
    }, SETTLE_MS);
    timer.unref?.();
  };
}

/** Bytes spooled since the last young-generation collection. */
let spooledSince = 0;
const COLLECT_EVERY = 32 * 1024 * 1024;

/**
 * Counts bytes that passed through the event loop on their way to a spool file. Each socket
 * chunk is a fresh buffer that is garbage once written; at 1 GB/s of arriving mail the collector
 * fell behind by hundreds of MB, so a quick young-generation collection runs every 32 MiB.
 */
export function spooled(bytes: number): void {
  spooledSince += bytes;
  if (spooledSince < COLLECT_EVERY) return;
  spooledSince = 0;
  Bun.gc(false);
}
