// Revocation latency (issue 18, item 5): how long after `POST /v1/api-keys/{id}/revoke` answers do
// the SSE streams opened with that key end? Opens --streams streams per key for --keys keys (each
// key revoked in turn), measures revoke-answered → stream-ended per stream.
//   bun bench/revocation.ts [--keys 20] [--streams 5]
// Prints figures; asserts nothing. Goal (issue 18): every stream ends within a second.
import { json, startInboxd } from "../test/support/harness";
import { arg, machineLine, pct } from "./support";

const KEYS = arg("keys", 20);
const STREAMS = arg("streams", 5);

const inst = await startInboxd({ INBOXD_LOG_LEVEL: "warn" });
const samples: number[] = [];
try {
  for (let k = 0; k < KEYS; k++) {
    const key = (await json(inst.api("/v1/api-keys", { method: "POST", json: { name: `bench-${k}` } }))).body.data;
    const ended: Promise<number>[] = [];
    for (let i = 0; i < STREAMS; i++) {
      const res = await inst.api("/v1/events", { token: key.secret });
      const reader = res.body!.getReader();
      await reader.read(); // the "connected" comment: the stream is open
      ended.push(
        (async () => {
          for (;;) {
            const r = await reader.read().catch(() => ({ done: true }));
            if (r.done) return performance.now();
          }
        })(),
      );
    }
    await json(inst.api(`/v1/api-keys/${key.id}/revoke`, { method: "POST" }));
    const answered = performance.now();
    for (const t of await Promise.all(ended)) samples.push(t - answered);
  }
} finally {
  await inst.stop();
  inst.cleanup();
}
console.log(machineLine());
const before = samples.filter((x) => x <= 0).length;
const after = samples.filter((x) => x > 0);
console.log(
  `revoke answered → SSE stream ended, ${samples.length} streams (${KEYS} keys × ${STREAMS}): ` +
    `${before} had ended before the revoke's answer reached the client; the rest ` +
    (after.length
      ? `p50 ${pct(after, 50).toFixed(1)} ms, p99 ${pct(after, 99).toFixed(1)} ms, max ${Math.max(...after).toFixed(1)} ms after it`
      : "none"),
);
