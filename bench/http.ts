// HTTP throughput and latency with an API key: GET /v1/inboxes/{id} and POST /v1/inboxes.
// Starts a fresh inboxd (rate limit lifted), drives it with autocannon running under Node in a
// separate process, and prints requests/s and p99. Goal on a 2-core machine: >= 10,000 req/s
// reads with p99 < 10 ms.  Usage: bun bench/http.ts [--duration 10] [--connections 32]
import { startInboxd } from "../test/support/harness";
import { arg, benchModule } from "./support";

const duration = arg("duration", 10);
const connections = arg("connections", 32);

const inst = await startInboxd({ INBOXD_PLAN: "business", INBOXD_RATE_LIMIT_RPS: "1000000", INBOXD_RATE_LIMIT_BURST: "1000000" });
try {
  const inbox = (await (await inst.api("/v1/inboxes", { method: "POST", json: { name: "bench" } })).json()) as any;
  const auth = { authorization: `Bearer ${inst.key}`, "content-type": "application/json" };

  async function cannon(title: string, opts: Record<string, unknown>) {
    const script = `
      const autocannon = require(${JSON.stringify(benchModule("autocannon"))});
      autocannon(${JSON.stringify({ duration, connections, pipelining: 1, ...opts })}, (err, r) => {
        if (err) { console.error(err); process.exit(1); }
        console.log(JSON.stringify({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, total: r.requests.total }));
      });`;
    const p = Bun.spawn(["node", "-e", script], { stdout: "pipe", stderr: "inherit" });
    const out = await new Response(p.stdout).text();
    await p.exited;
    const r = JSON.parse(out.trim().split("\n").pop()!);
    console.log(
      `${title.padEnd(28)} ${String(Math.round(r.rps)).padStart(7)} req/s   p50 ${r.p50} ms   p99 ${r.p99} ms   non-2xx ${r.non2xx}   errors ${r.errors}`,
    );
    return r;
  }

  console.log(`inboxd HTTP bench: ${connections} connections, ${duration} s per case, API key auth`);
  await cannon("GET /v1/inboxes/{id}", { url: `${inst.url}/v1/inboxes/${inbox.data.id}`, headers: auth });
  await cannon("POST /v1/inboxes", { url: `${inst.url}/v1/inboxes`, method: "POST", headers: auth, body: "{}" });
} finally {
  await inst.stop();
  inst.cleanup();
}
