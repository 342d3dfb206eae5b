// What the egress guard (src/lib/egress.ts) costs a webhook-sized POST against fetch(), which
// webhooks and scenario steps used before issue 18. A receiver on loopback (Bun.serve) answers at
// once, or after 44 ms; N sequential POSTs, then N with 8 in flight. The guard opens a connection
// per request (agent: false, so no pooled socket outlives its check); fetch keeps them alive.
//   bun bench/egress.ts [--n 300]
import { guardedRequest } from "../src/lib/egress";
import { egressPolicy } from "../src/lib/egress-policy";

const n = Number(process.argv[process.argv.indexOf("--n") + 1]) || 300;
const body = JSON.stringify({ type: "message.received", data: { text: "x".repeat(2000) } });
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    await req.text();
    if (new URL(req.url).pathname === "/slow") await Bun.sleep(44);
    return new Response("ok");
  },
});
const policy = egressPolicy({ allowPrivate: true, allow: [] });
const headers = { "content-type": "application/json", "user-agent": "bench" };

const viaFetch = async (url: string) => {
  const r = await fetch(url, { method: "POST", headers, body, redirect: "manual" });
  await r.text();
};
const viaGuard = async (url: string) => {
  await guardedRequest({ method: "POST", url: new URL(url), policy, timeoutMs: 10_000, headers, body, readBodyBytes: 1024 });
};

function pct(xs: number[], p: number): string {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!.toFixed(2);
}

async function run(name: string, fn: (url: string) => Promise<void>, path: string, concurrency: number): Promise<void> {
  const url = `http://127.0.0.1:${server.port}${path}`;
  for (let i = 0; i < 20; i++) await fn(url); // warm-up
  const times: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < n) {
        const t = performance.now();
        await fn(url);
        times.push(performance.now() - t);
      }
    }),
  );
  const total = (performance.now() - start) / 1000;
  console.log(
    `${name.padEnd(6)} ${path.padEnd(6)} x${concurrency}: p50 ${pct(times, 50)} ms  p99 ${pct(times, 99)} ms  ${(n / total).toFixed(0)} req/s`,
  );
}

for (const path of ["/fast", "/slow"]) {
  for (const c of [1, 8]) {
    await run("fetch", viaFetch, path, c);
    await run("guard", viaGuard, path, c);
  }
}
server.stop(true);
