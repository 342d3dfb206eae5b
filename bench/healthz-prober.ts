// /healthz every 50 ms from a thread of its own (healthz-prober.worker.ts), for the benchmarks that
// report how long the server stood still while an operation ran (bench/scale.ts,
// bench/first-select.ts).

/** `worst()` is the longest answer (or wait for one still pending) since the last `reset()`. */
export function prober(url: string) {
  const shared = new SharedArrayBuffer(16);
  const cells = new Float64Array(shared);
  const worker = new Worker(new URL("./healthz-prober.worker.ts", import.meta.url).href);
  worker.postMessage({ url, everyMs: 50, shared });
  const now = () => performance.timeOrigin + performance.now();
  return {
    reset: () => (cells[0] = 0),
    worst: () => {
      // One read of the pending start: the worker may clear it between two (a reading of
      // `now - 0`, 1.8e12 ms, was printed once).
      const pending = cells[1]!;
      return Math.max(cells[0]!, pending ? now() - pending : 0);
    },
    stop: () => worker.terminate(),
  };
}
