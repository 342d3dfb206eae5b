// Memory under concurrent large mail: N senders (default 40) each deliver one ~24 MB message
// (a short text part and one base64 attachment) to a fresh inboxd at once, while the inboxd
// process's RSS (/proc/PID/status VmRSS) and GET /healthz are sampled every 50 ms. Prints the
// baseline, peak and after RSS, /healthz p50/p99/max, the SMTP replies, how many messages were
// stored, and the server's CPU time and minor page faults for the burst. Every message is distinct (its own Message-ID and first attachment line).
//   bun bench/large-messages.ts [--senders 40] [--mb 24] [--inflight-mb N (INBOXD_INFLIGHT_BYTES)]
import { readFileSync } from "node:fs";
import { startInboxd, json } from "../test/support/harness";
import { arg, loadAverage, machineLine, pct } from "./support";
import { sendLarge, largeMessage, rssOf } from "../test/support/large-mail";

const SENDERS = arg("senders", 40);
const MB = arg("mb", 24);
const INFLIGHT_MB = arg("inflight-mb", 0);

console.log(machineLine());
// BENCH_ENV='{"INBOXD_AUTH_CHECK":"off"}' adds settings (to see what a part of the path costs).
const env: Record<string, string> = { INBOXD_PLAN: "business", INBOXD_LOG_LEVEL: "warn", ...JSON.parse(process.env.BENCH_ENV ?? "{}") };
if (INFLIGHT_MB > 0) env.INBOXD_INFLIGHT_BYTES = String(INFLIGHT_MB * 1024 * 1024);
const inst = await startInboxd(env);
try {
  const pid = inst.proc.pid;
  const inbox = (await json(inst.api("/v1/inboxes", { method: "POST", json: { name: "large" } }))).body.data;
  await Bun.sleep(500);
  const baseline = rssOf(pid);
  const shared = largeMessage(MB * 1024 * 1024);
  let peak = baseline;
  const health: number[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, rssOf(pid));
      const t0 = performance.now();
      await fetch(`${inst.url}/healthz`).then((r) => r.arrayBuffer());
      health.push(performance.now() - t0);
      peak = Math.max(peak, rssOf(pid));
      await Bun.sleep(50);
    }
  })();
  const cpu0 = processStat(pid);
  const t0 = performance.now();
  const replies = (await Promise.all(Array.from({ length: SENDERS }, (_, i) => sendLarge(inst.ports.smtp!, inbox.address, shared, i)))).map(
    (r) => r.reply,
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu1 = processStat(pid);
  await Bun.sleep(2000); // let the server settle (workers idle, buffers released)
  sampling = false;
  await sampler;
  const after = rssOf(pid);
  const stored = (await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data.message_count;
  const codes = new Map<string, number>();
  for (const r of replies) codes.set(r.slice(0, 3), (codes.get(r.slice(0, 3)) ?? 0) + 1);
  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;
  console.log(`${SENDERS} x ${MB} MB over SMTP in ${seconds.toFixed(1)} s; replies ${[...codes].map(([c, n]) => `${c}:${n}`).join(" ")}`);
  console.log(`stored ${stored} of ${SENDERS}`);
  console.log(
    `inboxd to the last reply: ${(cpu1.cpuSeconds - cpu0.cpuSeconds).toFixed(1)} s of CPU (all threads), ${cpu1.minorFaults - cpu0.minorFaults} minor page faults`,
  );
  console.log(`RSS baseline ${mb(baseline)}, peak ${mb(peak)}, after ${mb(after)} (2 s after the last reply)`);
  console.log(
    `/healthz: p50 ${pct(health, 50).toFixed(1)} ms, p99 ${pct(health, 99).toFixed(1)} ms, max ${Math.max(...health).toFixed(1)} ms (${health.length} samples)`,
  );
  console.log(`load average now ${loadAverage()}`);
} finally {
  await inst.stop();
  inst.cleanup();
}

/** A process's CPU time (user + system, all threads) and minor page faults so far (Linux /proc). */
function processStat(pid: number): { cpuSeconds: number; minorFaults: number } {
  // Fields after the command name (which may hold spaces): state is 3rd, minflt 10th, utime 14th, stime 15th.
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return { cpuSeconds: (Number(f[11]) + Number(f[12])) / 100, minorFaults: Number(f[7]) };
}
