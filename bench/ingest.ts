// SMTP ingest benchmark: 10 KB messages over 8 concurrent connections into a real inboxd
// (fresh data directory, durable commits), then the latency from the SMTP 250 to the answer of a
// parked long-poll (p50/p99), then the same ingest against MailDev on loopback ports for scale.
//   bun bench/ingest.ts [--messages N] [--connections C]
// The client is a lean raw-socket SMTP client (pipelined MAIL/RCPT/DATA) so the figures measure
// the servers, not a client library.
import { connect, type Socket } from "node:net";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startInboxd, json } from "../test/harness";

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const TOTAL = arg("messages", 8000);
const CONNECTIONS = arg("connections", 8);
const LATENCY_SAMPLES = arg("latency-samples", 300);
const ROOT = resolve(import.meta.dir, "..");

const WORDS =
  "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua ut enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo consequat".split(" ");

/** A realistic 10 KB transactional mail: one code, one link, prose filler. */
function message(i: number, to: string): string {
  const head =
    `From: Bench <bench@example.com>\r\nTo: <${to}>\r\nSubject: Your sign-in code (${i})\r\n` +
    `Message-ID: <bench-${i}-${Date.now()}@example.com>\r\nDate: ${new Date().toUTCString()}\r\n` +
    `MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n`;
  let body = `Hello,\r\n\r\nYour verification code is ${100000 + (i % 900000)}. It expires in 10 minutes.\r\n` +
    `Or open https://example.com/verify?t=${i} to continue.\r\n\r\n`;
  let w = i;
  while (head.length + body.length < 10 * 1024 - 80) {
    let line = "";
    while (line.length < 70) line += WORDS[(w++ * 7) % WORDS.length] + " ";
    body += line.trim() + "\r\n";
  }
  return head + body;
}

class Conn {
  private buf = "";
  private waiter: (() => void) | null = null;
  last = "";
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
  /** Waits for n complete replies; returns their codes. */
  async replies(n: number): Promise<number[]> {
    const codes: number[] = [];
    while (codes.length < n) {
      const m = /^(?:\d{3}-[^\n]*\n)*(\d{3})(?: [^\n]*)?\n/.exec(this.buf);
      if (m) {
        this.buf = this.buf.slice(m[0].length);
        codes.push(Number(m[1]));
        this.last = m[0];
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
  /** One message; resolves at its final reply (the 250). */
  async deliver(from: string, to: string, body: string): Promise<void> {
    const codes = await this.send(`MAIL FROM:<${from}>\r\nRCPT TO:<${to}>\r\nDATA\r\n`, 3);
    if (codes[0] !== 250 || codes[1] !== 250 || codes[2] !== 354) throw new Error(`envelope refused: ${codes} ${this.last}`);
    const [final] = await this.send(body + ".\r\n", 1);
    if (final !== 250) throw new Error(`DATA refused: ${this.last}`);
  }
  close() {
    this.socket.end("QUIT\r\n");
  }
}

async function ingest(port: number, to: string, total: number, connections: number): Promise<{ rate: number; seconds: number }> {
  const conns = await Promise.all(Array.from({ length: connections }, () => Conn.open(port)));
  const bodies = Array.from({ length: 64 }, (_, i) => message(i, to));
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    conns.map(async (c) => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        await c.deliver("bench@example.com", to, bodies[i % bodies.length]!.replace("bench message", `bench message ${i}`));
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  for (const c of conns) c.close();
  return { rate: total / seconds, seconds };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function latency(inst: Awaited<ReturnType<typeof startInboxd>>, inboxId: string, address: string, samples: number, loadPort?: number) {
  const sender = await Conn.open(inst.ports.smtp!);
  const out: number[] = [];
  // Optional background load: 6 connections streaming meanwhile, so the figure includes contention.
  let loading = loadPort !== undefined;
  const load = loading
    ? Promise.all(
        Array.from({ length: 6 }, async () => {
          const c = await Conn.open(loadPort!);
          const body = message(0, address);
          while (loading) await c.deliver("load@example.com", address, body);
          c.close();
        }),
      )
    : Promise.resolve([]);
  let token: string | null = null;
  {
    // Baseline: whatever is newest now.
    const r = await json(inst.api(`/v1/inboxes/${inboxId}/messages/latest?wait=0&view=summary`));
    token = r.status === 200 ? r.body.meta.poll_token : null;
  }
  const probeInbox = loadPort !== undefined ? (await json(inst.api("/v1/inboxes", { method: "POST", json: {} }))).body.data : null;
  const target = probeInbox ?? { id: inboxId, address };
  if (probeInbox) token = null;
  for (let i = 0; i < samples; i++) {
    const q = new URLSearchParams({ wait: "10", view: "summary" });
    if (token) q.set("poll_token", token);
    let answeredAt = 0;
    const poll = inst.api(`/v1/inboxes/${target.id}/messages/latest?${q}`).then(async (r) => {
      answeredAt = performance.now();
      return json(r);
    });
    await Bun.sleep(2); // let the poll park
    await sender.deliver("probe@example.com", target.address, message(i, target.address));
    const ackAt = performance.now();
    const r = await poll;
    if (r.status !== 200) throw new Error(`long-poll answered ${r.status}`);
    token = r.body.meta.poll_token;
    out.push(Math.max(0, answeredAt - ackAt));
  }
  loading = false;
  await load;
  sender.close();
  return out;
}

async function maildev(total: number): Promise<{ rate: number; seconds: number }> {
  const smtpPort = 20000 + Math.floor(Math.random() * 20000);
  const webPort = smtpPort + 1;
  const dir = mkdtempSync(join(tmpdir(), "maildev-bench-"));
  const proc = spawn(
    "node",
    [join(ROOT, "node_modules/maildev/dist/bin/maildev.js"), "--smtp", String(smtpPort), "--ip", "127.0.0.1", "--web", String(webPort), "--web-ip", "127.0.0.1", "--mail-directory", dir, "--silent"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  try {
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        const c = await Conn.open(smtpPort);
        c.close();
        break;
      } catch {
        if (Date.now() > deadline) throw new Error("MailDev did not start");
        await Bun.sleep(100);
      }
    }
    await ingest(smtpPort, "warm@example.com", 200, CONNECTIONS);
    return await ingest(smtpPort, "bench@example.com", total, CONNECTIONS);
  } finally {
    proc.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");
console.log(`machine: ${availableParallelism()} cores, load average ${load()} (figures vary with other load on the machine)`);
const inst = await startInboxd({ INBOXD_PLAN: "business" });
try {
  const inbox = (await json(inst.api("/v1/inboxes", { method: "POST", json: { name: "bench" } }))).body.data;
  await ingest(inst.ports.smtp!, inbox.address, 300, CONNECTIONS); // warm-up
  const ours = await ingest(inst.ports.smtp!, inbox.address, TOTAL, CONNECTIONS);
  const check = (await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data;
  console.log(`inboxd  ingest: ${TOTAL} x 10 KB over ${CONNECTIONS} connections in ${ours.seconds.toFixed(2)} s = ${ours.rate.toFixed(0)} messages/s (inbox message_count ${check.message_count})`);
  const idle = await latency(inst, inbox.id, inbox.address, LATENCY_SAMPLES);
  console.log(`inboxd  250 -> long-poll answer (idle):      p50 ${pct(idle, 50).toFixed(2)} ms, p99 ${pct(idle, 99).toFixed(2)} ms (${idle.length} samples)`);
  const busy = await latency(inst, inbox.id, inbox.address, LATENCY_SAMPLES, inst.ports.smtp!);
  console.log(`inboxd  250 -> long-poll answer (under load): p50 ${pct(busy, 50).toFixed(2)} ms, p99 ${pct(busy, 99).toFixed(2)} ms (${busy.length} samples, 6 loading connections)`);
  const theirs = await maildev(TOTAL);
  console.log(`MailDev ingest: ${TOTAL} x 10 KB over ${CONNECTIONS} connections in ${theirs.seconds.toFixed(2)} s = ${theirs.rate.toFixed(0)} messages/s`);
  console.log(`ratio inboxd/MailDev: ${(ours.rate / theirs.rate).toFixed(2)}x`);
  console.log(`goals: >= 1500 messages/s (${ours.rate >= 1500 ? "met" : "not met"}); p99 < 25 ms (idle ${pct(idle, 99) < 25 ? "met" : "not met"}, under load ${pct(busy, 99) < 25 ? "met" : "not met"}); load average now ${load()}`);
} finally {
  await inst.stop();
  inst.cleanup();
}
