// The /healthz prober of bench/scale.ts, on a thread of its own: the bench's clients parse
// megabytes (a POP3 LIST of a million lines), and a prober sharing their thread measured their
// stalls as the server's. Shared memory: [0] longest answer since the last reset (ms), [1] when
// the pending request started (performance.timeOrigin + now, ms; 0 = none).
const worker = globalThis as unknown as Worker;

worker.onmessage = async (e: MessageEvent<{ url: string; everyMs: number; shared: SharedArrayBuffer }>) => {
  const { url, everyMs, shared } = e.data;
  const cells = new Float64Array(shared);
  const now = () => performance.timeOrigin + performance.now();
  for (;;) {
    const start = now();
    cells[1] = start;
    try {
      await fetch(`${url}/healthz`).then((r) => r.arrayBuffer());
    } catch {
      // The server restarts between sizes: a refused probe is not an answer.
    }
    cells[0] = Math.max(cells[0]!, now() - start);
    cells[1] = 0;
    await Bun.sleep(everyMs);
  }
};
