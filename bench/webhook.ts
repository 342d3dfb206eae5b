// Webhooks keep pace (issue 15). Runs against real inboxd processes (fresh data directories,
// Business plan, rate limits out of the way), with receivers on loopback in this process, and
// prints figures against the goals (a benchmark does not assert; it says "met" or "NOT met"):
//
//  1. Latency, receiver answers at once: 200 messages at 100/s to ONE inbox (one webhook filtered
//     to it). From each message's SMTP 250 to the receiver holding its signed webhook: p50, p90,
//     p99, max. Goal p99 < 100 ms.
//  2. The same with a receiver that answers after 44 ms (Python's http.server with Nagle and
//     delayed ACK answers like that): deliveries must overlap. Goal p99 < 100 ms.
//  3. Induced failures: 5 of the 200 (numbers 10, 50, 90, 130, 170) are answered 500 on their
//     first try only; from each one's 250 to its accepted (2xx) retry, with the default backoff
//     base (5 s, first retry after 50-100 % of it). Goal: all 5 accepted within 15 s. Also the p99
//     of the 195 others (a failing delivery must not hold back the rest).
//  4. Every request received in 1-3 is verified with the official `standardwebhooks` package
//     (`new Webhook(secret).verify(body, headers)`); prints verified / received. Goal: all.
//  5. Backlog: per-message SMTP time (MAIL FROM to the 250) on one connection, sequential, into a
//     probe inbox: first with no webhook backlog (baseline), then with a webhook whose receiver is
//     DOWN (closed loopback port) holding 10,000 pending deliveries for another inbox of the same
//     project, then (down webhook deleted) with a receiver that HANGS every request (accepts, never
//     answers; INBOXD_WEBHOOK_TIMEOUT_MS 2000) holding its own 10,000. Goal: down/baseline and
//     hang/baseline <= 1.5x (mean and median).
// Scenarios 1-3 share one server, each with a fresh inbox and webhook (deleted afterwards), after
// one unreported warm-up run; scenario 5 runs on a second server, warmed up by 2,000 messages into
// an inbox without webhooks, and ends with a control probe (no backlog again) whose figures also
// serve as reference: a ratio counts as met only against both the baseline and the faster of the two.
//   bun bench/webhook.ts [--messages 200] [--rate 100] [--connections 4] [--slow-ms 44]
//                        [--backlog 10000] [--probe 300] [--backlog-connections 8] [--timeout-ms 2000]
import { connect, createServer, type Socket } from "node:net";
import { availableParallelism, loadavg } from "node:os";
import { Webhook } from "standardwebhooks";
import { type Instance, json, startInboxd } from "../test/support/harness";
import { arg, pct } from "./support";

const TOTAL = arg("messages", 200);
const RATE = arg("rate", 100);
const CONNECTIONS = arg("connections", 4);
const SLOW_MS = arg("slow-ms", 44);
const BACKLOG = arg("backlog", 10_000);
const PROBE = arg("probe", 300);
const BACKLOG_CONNECTIONS = arg("backlog-connections", 8);
const TIMEOUT_MS = arg("timeout-ms", 2000);
/** Messages flooded into an inbox without webhooks before the baseline (server warm-up). */
const WARM_UP = 2000;
/** Message numbers answered 500 on their first try in scenario 3. */
const FAIL_FIRST = [10, 50, 90, 130, 170].filter((n) => n < TOTAL);
const LATENCY_GOAL_MS = 100;
const RETRY_GOAL_MS = 15_000;
const RATIO_GOAL = 1.5;
const SERVER_ENV = { INBOXD_PLAN: "business", INBOXD_RATE_LIMIT_RPS: "1000000", INBOXD_RATE_LIMIT_BURST: "1000000" };

class Conn {
  private buf = "";
  private waiter: (() => void) | null = null;
  constructor(private readonly socket: Socket) {
    socket.setEncoding("latin1");
    socket.setNoDelay(true);
    socket.on("data", (d: string) => {
      this.buf += d;
      const w = this.waiter;
      this.waiter = null;
      w?.();
    });
  }
  static async open(port: number): Promise<Conn> {
    const s = connect(port, "127.0.0.1");
    await new Promise<void>((res, rej) => {
      s.once("connect", res);
      s.once("error", rej);
    });
    const c = new Conn(s);
    await c.replies(1);
    await c.send("EHLO bench.local\r\n", 1);
    return c;
  }
  async replies(n: number): Promise<number[]> {
    const codes: number[] = [];
    while (codes.length < n) {
      const m = /^(?:\d{3}-[^\n]*\n)*(\d{3})(?: [^\n]*)?\n/.exec(this.buf);
      if (m) {
        this.buf = this.buf.slice(m[0].length);
        codes.push(Number(m[1]));
        continue;
      }
      await new Promise<void>((r) => (this.waiter = r));
    }
    return codes;
  }
  async send(data: string, n: number): Promise<number[]> {
    this.socket.write(data);
    return this.replies(n);
  }
  /** One message, one command group at a time; resolves at the 250. */
  async deliver(to: string, body: string): Promise<void> {
    const codes = await this.send(envelope(to), 3);
    if (codes[0] !== 250 || codes[1] !== 250 || codes[2] !== 354) throw new Error(`SMTP refused: ${codes}`);
    const [c] = await this.send(body + ".\r\n", 1);
    if (c !== 250) throw new Error(`SMTP DATA answered ${c}`);
  }
  /** `count` messages as fast as the server takes them: each content pipelined with the next envelope (RFC 2920). */
  async flood(to: string, count: number, body: () => string): Promise<void> {
    if (count <= 0) return;
    let codes = await this.send(envelope(to), 3);
    for (let k = 0; k < count; k++) {
      if (codes[codes.length - 3] !== 250 || codes[codes.length - 2] !== 250 || codes[codes.length - 1] !== 354)
        throw new Error(`SMTP refused: ${codes}`);
      const last = k === count - 1;
      codes = await this.send(body() + ".\r\n" + (last ? "" : envelope(to)), last ? 1 : 4);
      if (codes[0] !== 250) throw new Error(`SMTP DATA answered ${codes[0]}`);
    }
  }
  close() {
    this.socket.end("QUIT\r\n");
  }
}

const envelope = (to: string) => `MAIL FROM:<bench@example.com>\r\nRCPT TO:<${to}>\r\nDATA\r\n`;

let serial = 0;
function message(i: number, to: string): string {
  return (
    `From: Bench <bench@example.com>\r\nTo: <${to}>\r\nSubject: wh-bench ${i}\r\n` +
    `Message-ID: <wh-bench-${i}-${serial++}-${Date.now()}@example.com>\r\nDate: ${new Date().toUTCString()}\r\n` +
    `MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n` +
    `Your verification code is ${100000 + i}. Visit https://example.com/verify/${i} to continue.\r\n`.repeat(20)
  );
}

const ms = (x: number) => `${x.toFixed(1)} ms`;
const verdict = (ok: boolean) => (ok ? "met" : "NOT met");

/** Resolves when `p` does or after `timeout` ms, whichever first, without leaving a timer behind. */
async function within(p: Promise<unknown>, timeout: number): Promise<void> {
  let t: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([p, new Promise<void>((r) => (t = setTimeout(r, timeout)))]);
  clearTimeout(t);
}

// ---------------------------------------------------------------------------------------------
// Receivers. One HTTP server; each scenario gets its own path (its sink) and webhook secret.

interface Sink {
  secret: string;
  delayMs: number;
  /** Message numbers answered 500 on their first try. */
  failFirst: Set<number>;
  expected: number;
  requests: number;
  verified: number;
  /** Tries seen per webhook-id (a retry repeats the id). */
  tries: Map<string, number>;
  /** Message number -> when its first request arrived, and when one was answered 2xx. */
  firstSeen: Map<number, number>;
  accepted: Map<number, number>;
  triesToAccept: Map<number, number>;
  sequences: Set<number>;
  duplicates: number;
  allAccepted: Promise<void>;
  done: () => void;
}

const sinks = new Map<string, Sink>();
const verifyFailures: string[] = [];
let strayRequests = 0;

function newSink(tag: string, delayMs: number, failFirst: number[]): Sink {
  let done!: () => void;
  const allAccepted = new Promise<void>((r) => (done = r));
  const s: Sink = {
    secret: "",
    delayMs,
    failFirst: new Set(failFirst),
    expected: TOTAL,
    requests: 0,
    verified: 0,
    tries: new Map(),
    firstSeen: new Map(),
    accepted: new Map(),
    triesToAccept: new Map(),
    sequences: new Set(),
    duplicates: 0,
    allAccepted,
    done,
  };
  sinks.set(tag, s);
  return s;
}

const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const body = await req.text();
    const at = performance.now();
    const sink = sinks.get(new URL(req.url).pathname.slice("/hook/".length));
    if (!sink) {
      strayRequests++;
      return new Response(null, { status: 410 });
    }
    sink.requests++;
    const headers = Object.fromEntries(req.headers);
    let payload: any;
    try {
      payload = new Webhook(sink.secret).verify(body, headers);
      sink.verified++;
    } catch (e) {
      const line = `${String(e)} webhook-id=${headers["webhook-id"]} signature=${headers["webhook-signature"]}`;
      verifyFailures.push(line);
      console.log(`!!! SIGNATURE VERIFICATION FAILED: ${line}`);
      payload = JSON.parse(body);
    }
    const id = headers["webhook-id"] ?? "";
    const attempt = (sink.tries.get(id) ?? 0) + 1;
    sink.tries.set(id, attempt);
    const m = /wh-bench (\d+)/.exec(payload?.data?.subject ?? "");
    const n = m ? Number(m[1]) : -1;
    if (n >= 0 && !sink.firstSeen.has(n)) sink.firstSeen.set(n, at);
    if (attempt === 1 && typeof payload?.sequence === "number") {
      if (sink.sequences.has(payload.sequence)) sink.duplicates++;
      sink.sequences.add(payload.sequence);
    }
    if (sink.delayMs > 0) await Bun.sleep(sink.delayMs);
    if (attempt === 1 && sink.failFirst.has(n)) return new Response("induced failure", { status: 500 });
    if (n >= 0) {
      if (sink.accepted.has(n)) sink.duplicates++;
      else {
        sink.accepted.set(n, at);
        sink.triesToAccept.set(n, attempt);
        if (sink.accepted.size === sink.expected) sink.done();
      }
    }
    return new Response(null, { status: 204 });
  },
});

/** Accepts connections and never answers; reads and drops what it is sent. */
const hangSockets = new Set<Socket>();
const hangServer = createServer((s) => {
  hangSockets.add(s);
  s.on("data", () => {});
  s.on("error", () => {});
  s.on("close", () => hangSockets.delete(s));
});
await new Promise<void>((r) => hangServer.listen(0, "127.0.0.1", r));
const hangPort = (hangServer.address() as { port: number }).port;

/** A loopback port nobody listens on (bound once, then closed). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

// ---------------------------------------------------------------------------------------------
// API helpers.

async function createInbox(inst: Instance, name: string): Promise<{ id: string; address: string }> {
  const r = await json(inst.api("/v1/inboxes", { method: "POST", json: { name } }));
  if (r.status !== 201) throw new Error(`inbox: ${r.status} ${JSON.stringify(r.body)}`);
  return { id: r.body.data.id, address: r.body.data.address };
}

async function createWebhook(inst: Instance, url: string, inboxId: string): Promise<{ id: string; secret: string }> {
  const r = await json(inst.api("/v1/webhooks", { method: "POST", json: { url, event_types: ["message.received"], inbox_id: inboxId } }));
  if (r.status !== 201) throw new Error(`webhook: ${r.status} ${JSON.stringify(r.body)}`);
  return { id: r.body.data.id, secret: r.body.data.secret };
}

async function deleteWebhook(inst: Instance, id: string): Promise<void> {
  const r = await inst.api(`/v1/webhooks/${id}`, { method: "DELETE" });
  if (r.status !== 204) throw new Error(`delete webhook: ${r.status} ${await r.text()}`);
}

async function health(inst: Instance, id: string): Promise<any> {
  return (await json(inst.api(`/v1/webhooks/${id}`))).body.data.health;
}

async function pendingVisible(inst: Instance, id: string): Promise<boolean> {
  const r = await json(inst.api(`/v1/webhooks/${id}/deliveries?status=pending&limit=1`));
  return r.status === 200 && r.body.data.length > 0;
}

// ---------------------------------------------------------------------------------------------
// Scenarios 1-3.

async function latencyRun(inst: Instance, tag: string, delayMs: number, failFirst: number[], waitMs: number, quiet = false) {
  const inbox = await createInbox(inst, `wh-${tag}`);
  const sink = newSink(tag, delayMs, failFirst);
  const wh = await createWebhook(inst, `http://127.0.0.1:${receiver.port}/hook/${tag}`, inbox.id);
  sink.secret = wh.secret;
  const acked = new Map<number, number>();
  const conns = await Promise.all(Array.from({ length: CONNECTIONS }, () => Conn.open(inst.ports.smtp!)));
  const t0 = performance.now() + 50;
  let next = 0;
  let lateStarts = 0;
  await Promise.all(
    conns.map(async (c) => {
      for (;;) {
        const i = next++;
        if (i >= TOTAL) return;
        const wait = t0 + (i * 1000) / RATE - performance.now();
        if (wait > 0) await Bun.sleep(wait);
        else if (wait < -5) lateStarts++;
        await c.deliver(inbox.address, message(i, inbox.address));
        acked.set(i, performance.now());
      }
    }),
  );
  const sendSeconds = (performance.now() - t0) / 1000;
  for (const c of conns) c.close();
  await within(sink.allAccepted, waitMs);
  await deleteWebhook(inst, wh.id);
  if (!quiet)
    console.log(
      `  sent in ${sendSeconds.toFixed(2)} s (${(TOTAL / sendSeconds).toFixed(0)} msg/s achieved; ${lateStarts} sends started late)`,
    );
  return { sink, acked };
}

function latencyFigures(acked: Map<number, number>, sink: Sink, only?: (i: number) => boolean) {
  return [...acked]
    .filter(([i]) => (only ? only(i) : true) && sink.firstSeen.has(i))
    .map(([i, t]) => sink.firstSeen.get(i)! - t)
    .sort((a, b) => a - b);
}

function printLatency(label: string, lat: number[]) {
  console.log(
    `  ${label}: p50 ${ms(pct(lat, 50))}   p90 ${ms(pct(lat, 90))}   p99 ${ms(pct(lat, 99))}   max ${ms(lat[lat.length - 1]!)}   (min ${ms(lat[0]!)}; negative = webhook before the 250 reached the client)`,
  );
}

function printReceived(sink: Sink) {
  const seq = [...sink.sequences].sort((a, b) => a - b);
  console.log(
    `  received ${sink.firstSeen.size}/${TOTAL} messages in ${sink.requests} requests, ${sink.duplicates} duplicates; ` +
      `sequence ${seq[0]}..${seq[seq.length - 1]}, ${seq.length} distinct`,
  );
}

async function latencyScenario(inst: Instance, n: number, title: string, tag: string, delayMs: number): Promise<Sink> {
  console.log(`\n[${n}] ${title}: ${TOTAL} messages at ${RATE}/s to one inbox over ${CONNECTIONS} SMTP connections`);
  const { sink, acked } = await latencyRun(inst, tag, delayMs, [], 10_000);
  const lat = latencyFigures(acked, sink);
  printLatency("250 -> receipt", lat);
  printReceived(sink);
  const ok = lat.length === TOTAL && pct(lat, 99) < LATENCY_GOAL_MS;
  console.log(`  goal p99 < ${LATENCY_GOAL_MS} ms (all received): ${verdict(ok)}`);
  return sink;
}

async function failureScenario(inst: Instance): Promise<Sink> {
  console.log(
    `\n[3] induced failures: ${TOTAL} messages at ${RATE}/s to one inbox; numbers ${FAIL_FIRST.join(", ")} answered 500 on their first try (backoff base 5 s)`,
  );
  const { sink, acked } = await latencyRun(inst, "failures", 0, FAIL_FIRST, 20_000);
  const failSet = new Set(FAIL_FIRST);
  let worst = 0;
  let allIn = true;
  for (const n of FAIL_FIRST) {
    const a = sink.accepted.get(n);
    const t = acked.get(n);
    if (a === undefined || t === undefined) {
      allIn = false;
      console.log(`  #${n}: NOT accepted within the wait (first try ${sink.firstSeen.has(n) ? "received" : "never received"})`);
      continue;
    }
    worst = Math.max(worst, a - t);
    console.log(`  #${n}: 250 -> accepted ${ms(a - t)} (try ${sink.triesToAccept.get(n)})`);
  }
  const others = latencyFigures(acked, sink, (i) => !failSet.has(i));
  printLatency(`the ${others.length} others, 250 -> receipt`, others);
  printReceived(sink);
  console.log(
    `  goal all ${FAIL_FIRST.length} accepted within ${RETRY_GOAL_MS / 1000} s: ${verdict(allIn && worst < RETRY_GOAL_MS)} (slowest ${ms(worst)})`,
  );
  return sink;
}

// ---------------------------------------------------------------------------------------------
// Scenario 5.

/** Sequential messages on one connection: ms from MAIL FROM to the 250 of each. */
async function probe(inst: Instance, to: string): Promise<{ mean: number; median: number; p99: number }> {
  const c = await Conn.open(inst.ports.smtp!);
  for (let i = 0; i < 50; i++) await c.deliver(to, message(i, to)); // warm-up
  const times: number[] = [];
  for (let i = 0; i < PROBE; i++) {
    const body = message(i, to);
    const t = performance.now();
    await c.deliver(to, body);
    times.push(performance.now() - t);
  }
  c.close();
  times.sort((a, b) => a - b);
  return { mean: times.reduce((a, b) => a + b, 0) / times.length, median: pct(times, 50), p99: pct(times, 99) };
}

async function buildBacklog(inst: Instance, label: string, to: string, webhookId: string): Promise<void> {
  const t0 = performance.now();
  const conns = await Promise.all(Array.from({ length: BACKLOG_CONNECTIONS }, () => Conn.open(inst.ports.smtp!)));
  let i = 0;
  await Promise.all(
    conns.map((c, k) =>
      c.flood(to, Math.floor(BACKLOG / BACKLOG_CONNECTIONS) + (k < BACKLOG % BACKLOG_CONNECTIONS ? 1 : 0), () => message(i++, to)),
    ),
  );
  for (const c of conns) c.close();
  const sent = performance.now() - t0;
  // Every 250 means its delivery row is committed; wait until the log shows them pending and the
  // circuit has opened (the steady state of a dead endpoint).
  let h = await health(inst, webhookId);
  let visible = await pendingVisible(inst, webhookId);
  const deadline = performance.now() + 20_000;
  while ((!visible || h.state !== "circuit_open") && performance.now() < deadline) {
    await Bun.sleep(100);
    h = await health(inst, webhookId);
    visible = await pendingVisible(inst, webhookId);
  }
  console.log(
    `  ${label}: ${i} messages queued in ${(sent / 1000).toFixed(1)} s (${((i * 1000) / sent).toFixed(0)} msg/s over ${BACKLOG_CONNECTIONS} connections); ` +
      `pending visible: ${visible}; health ${h.state} (${h.consecutive_failures} failures in a row) after ${((performance.now() - t0 - sent) / 1000).toFixed(1)} s more`,
  );
}

async function backlogScenario(): Promise<void> {
  console.log(
    `\n[5] backlog: ${PROBE} sequential messages on one SMTP connection into a probe inbox, MAIL FROM -> 250; ` +
      `a webhook with ${BACKLOG} pending deliveries for another inbox of the project (timeout ${TIMEOUT_MS} ms)`,
  );
  const inst = await startInboxd({ ...SERVER_ENV, INBOXD_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) });
  try {
    // Warm-up, so the baseline is not measured on a cold server (JIT, caches) while the later
    // phases follow a 10,000-message flood: the same flood path, into an inbox without webhooks.
    const warmInbox = await createInbox(inst, "wh-warm-up");
    const warm = await Promise.all(Array.from({ length: BACKLOG_CONNECTIONS }, () => Conn.open(inst.ports.smtp!)));
    let w = 0;
    const tw = performance.now();
    await Promise.all(
      warm.map((c) => c.flood(warmInbox.address, Math.ceil(WARM_UP / BACKLOG_CONNECTIONS), () => message(w++, warmInbox.address))),
    );
    const warmMs = performance.now() - tw;
    for (const c of warm) c.close();
    console.log(
      `  warm-up: ${w} messages into an inbox without webhooks in ${(warmMs / 1000).toFixed(1)} s (${((w * 1000) / warmMs).toFixed(0)} msg/s)`,
    );
    const probeInbox = await createInbox(inst, "wh-probe");
    const base = await probe(inst, probeInbox.address);
    const line = (label: string, r: { mean: number; median: number; p99: number }) =>
      console.log(`  ${label.padEnd(9)} mean ${ms(r.mean)}   median ${ms(r.median)}   p99 ${ms(r.p99)} per message`);
    line("baseline", base);

    const downInbox = await createInbox(inst, "wh-down");
    const down = await createWebhook(inst, `http://127.0.0.1:${await closedPort()}/hook/down`, downInbox.id);
    await buildBacklog(inst, "down receiver", downInbox.address, down.id);
    const downR = await probe(inst, probeInbox.address);
    const downH = await health(inst, down.id);
    line("down", downR);
    console.log(`            webhook after the probe: ${downH.state}, ${downH.consecutive_failures} failures in a row`);
    await deleteWebhook(inst, down.id);

    const hangInbox = await createInbox(inst, "wh-hang");
    const hang = await createWebhook(inst, `http://127.0.0.1:${hangPort}/hook/hang`, hangInbox.id);
    await buildBacklog(inst, "hanging receiver", hangInbox.address, hang.id);
    const hangR = await probe(inst, probeInbox.address);
    const hangH = await health(inst, hang.id);
    line("hang", hangR);
    console.log(
      `            webhook after the probe: ${hangH.state}, ${hangH.consecutive_failures} failures in a row; ${hangSockets.size} connections held open by the receiver`,
    );

    await deleteWebhook(inst, hang.id);
    const control = await probe(inst, probeInbox.address);
    line("control", control);
    console.log("            (no backlog again, both webhooks deleted: the grown database and the run-to-run noise)");

    // Judged against the faster of the two references without backlog, so a slow baseline
    // (noise, a busy machine) cannot make the goal easier.
    type R = { mean: number; median: number };
    const ref: R = { mean: Math.min(base.mean, control.mean), median: Math.min(base.median, control.median) };
    const ratio = (label: string, r: R) => {
      const rb = [r.mean / base.mean, r.median / base.median];
      const rr = [r.mean / ref.mean, r.median / ref.median];
      const ok = Math.max(...rb, ...rr) <= RATIO_GOAL;
      console.log(
        `  ${label}/baseline: mean ${rb[0]!.toFixed(2)}x, median ${rb[1]!.toFixed(2)}x   ` +
          `(against the faster of baseline and control: ${rr[0]!.toFixed(2)}x, ${rr[1]!.toFixed(2)}x)   goal <= ${RATIO_GOAL}x: ${verdict(ok)}`,
      );
    };
    ratio("down", downR);
    ratio("hang", hangR);
  } finally {
    await inst.stop();
    inst.cleanup();
  }
}

// ---------------------------------------------------------------------------------------------

console.log(`webhook bench (issue 15): ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(2)}`);
try {
  const inst = await startInboxd(SERVER_ENV);
  const seen: Sink[] = [];
  try {
    // Warm-up (not reported): the same run once, so scenario 1 does not measure a cold server and client.
    await latencyRun(inst, "warm-up", 0, [], 10_000, true);
    seen.push(await latencyScenario(inst, 1, "latency, receiver answers at once", "fast", 0));
    seen.push(await latencyScenario(inst, 2, `latency, receiver answers after ${SLOW_MS} ms`, "slow", SLOW_MS));
    seen.push(await failureScenario(inst));
  } finally {
    await inst.stop();
    inst.cleanup();
  }

  const received = seen.reduce((a, s) => a + s.requests, 0);
  const verified = seen.reduce((a, s) => a + s.verified, 0);
  console.log(`\n[4] signatures (the official standardwebhooks package, Webhook.verify) over scenarios 1-3`);
  console.log(`  verified ${verified}/${received} requests${strayRequests ? `; ${strayRequests} requests to no known webhook` : ""}`);
  if (verifyFailures.length > 0) {
    console.log(`  !!! ${verifyFailures.length} FAILED VERIFICATION, first: ${verifyFailures[0]}`);
  }
  console.log(`  goal every request verifies: ${verdict(received > 0 && verified === received)}`);

  await backlogScenario();
} finally {
  receiver.stop(true);
  for (const s of hangSockets) s.destroy();
  hangServer.close();
}
