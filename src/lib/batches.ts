// Long deletions (expiry, retention, pruning, an inbox's messages) run as bounded batches with
// a turn of the event loop between them: bun:sqlite is synchronous, so one big statement stops
// every request, session and timer until it ends (issue 19 measured seconds).

/** Lets timers, sockets and other requests run before the next batch. */
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Runs `step(limit)` (one bounded batch; returns how many rows it handled) until a batch comes
 * back short, yielding between batches. Returns the total.
 */
export async function inBatches(limit: number, step: (limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await step(limit);
    total += n;
    if (n < limit) return total;
    await yieldToLoop();
  }
}
