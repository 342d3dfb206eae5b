// SMTP connection benchmark (issue 14): senders that open one connection per message. Against a
// real inboxd (fresh data directory, durable commits) and MailDev in the same run:
//   1. 200 sequential one-message connections: connect → 220 → EHLO → MAIL/RCPT/DATA → 250 →
//      QUIT → 221, timed per connection (median, p90, p99);
//   2. one-message-per-connection throughput with 8 concurrent senders.
// When Postfix's smtp-source and smtp-sink are installed, also `smtp-source -s 8 -m 5000 -l 10240`
// (a new connection per message, and -d: each of the 8 sessions reused) against inboxd and smtp-sink,
// and during each inboxd run, the latency from a probe message's 250 to the answer of a long-poll
// parked on its inbox (plain, and filtered with q, which waits for the search index).
// Before the smtp-source runs, --warmup N messages (default 5000, with -d) go unmeasured: JSC's JIT
// spends ~250 µs per message on the second core for the first few thousand, which a service that
// has been running for a minute no longer pays (bench/smtp-cpu.ts --threads shows it fade).
//   bun bench/smtp-connections.ts [--sequential N] [--messages N] [--senders S] [--warmup N]
// Figures are printed, never asserted.
import { spawn } from "node:child_process";
import { json, startInboxd } from "../test/support/harness";
import { freePort, waitForPort } from "../test/support/net";
import { arg, loadAverage, machineLine, pct, SmtpClient, smtpSource, withMaildev } from "./support";

const SEQUENTIAL = arg("sequential", 200);
const MESSAGES = arg("messages", 2000);
const SENDERS = arg("senders", 8);
const WARMUP = arg("warmup", 5000);
const enc = new TextEncoder();
const latin1 = new TextDecoder("latin1");

/** A 10 KB message, distinct per serial number. */
function message(i: number, to: string): Uint8Array {
  let text = `From: bench@example.com\r\nTo: <${to}>\r\nSubject: connection bench ${i}\r\nMessage-ID: <conn-${i}-${Date.now()}@example.com>\r\n\r\n`;
  const line = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt\r\n";
  while (text.length < 10 * 1024 - line.length) text += line;
  return enc.encode(`${text}.\r\n`);
}

/**
 * One connection, one message: connect, read 220, EHLO, the envelope pipelined (MAIL, RCPT, DATA),
 * the content, QUIT. Resolves with the milliseconds from connect to the 221.
 */
async function oneMessage(port: number, to: string, body: Uint8Array): Promise<number> {
  const t0 = performance.now();
  let text = "";
  let codes: number[] = [];
  let want = 0;
  let waiter: ((c: number[]) => void) | null = null;
  const expect = (n: number) =>
    new Promise<number[]>((r) => {
      want = n;
      waiter = r;
      check();
    });
  const check = () => {
    if (waiter && codes.length >= want) {
      const w = waiter;
      waiter = null;
      const got = codes.splice(0, want);
      w(got);
    }
  };
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_s, chunk) {
        text += latin1.decode(chunk);
        let nl: number;
        while ((nl = text.indexOf("\n")) >= 0) {
          const line = text.slice(0, nl + 1);
          text = text.slice(nl + 1);
          if (line.charCodeAt(3) !== 45) codes.push(Number(line.slice(0, 3)));
        }
        check();
      },
      close() {
        codes.push(0);
        check();
      },
      error() {},
    },
  });
  const send = (b: Uint8Array | string) => {
    const bytes = typeof b === "string" ? enc.encode(b) : b;
    let off = 0;
    while (off < bytes.byteLength) {
      const n = socket.write(bytes.subarray(off));
      if (n <= 0) break;
      off += n;
    }
    if (off < bytes.byteLength) throw new Error("socket buffer full (not expected for 10 KB)");
  };
  try {
    const [greeting] = await expect(1);
    if (greeting !== 220) throw new Error(`greeting ${greeting}`);
    send("EHLO bench.local\r\n");
    await expect(1);
    send(`MAIL FROM:<bench@example.com>\r\nRCPT TO:<${to}>\r\nDATA\r\n`);
    const env = await expect(3);
    if (env.join() !== "250,250,354") throw new Error(`envelope ${env}`);
    send(body);
    const [stored] = await expect(1);
    if (stored !== 250) throw new Error(`DATA ${stored}`);
    send("QUIT\r\n");
    const [bye] = await expect(1);
    if (bye !== 221) throw new Error(`QUIT ${bye}`);
    return performance.now() - t0;
  } finally {
    socket.end();
    codes = [];
  }
}

async function sequential(port: number, to: string, n: number) {
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(await oneMessage(port, to, message(i, to)));
  return times;
}

async function concurrent(port: number, to: string, total: number, senders: number) {
  const bodies = Array.from({ length: 64 }, (_, i) => message(i, to));
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: senders }, async () => {
      for (let i = next++; i < total; i = next++) await oneMessage(port, to, bodies[i % bodies.length]!);
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, rate: total / seconds };
}

const report = (who: string, times: number[]) =>
  console.log(
    `${who.padEnd(8)} ${times.length} sequential one-message connections (connect → 221): median ${pct(times, 50).toFixed(2)} ms, p90 ${pct(times, 90).toFixed(2)} ms, p99 ${pct(times, 99).toFixed(2)} ms`,
  );
const reportRate = (who: string, r: { seconds: number; rate: number }) =>
  console.log(
    `${who.padEnd(8)} ${MESSAGES} x 10 KB, one message per connection, ${SENDERS} concurrent senders: ${r.seconds.toFixed(2)} s = ${r.rate.toFixed(0)} messages/s`,
  );

/**
 * While `running` is pending: one probe message at a time to a probe inbox with a long-poll
 * parked on it, alternately plain and filtered by a word of the message (`q`, which waits for
 * the search index); returns the milliseconds from each 250 to the long-poll's answer.
 */
async function probeLatency(inst: Awaited<ReturnType<typeof startInboxd>>, running: Promise<unknown>) {
  const probe = (await json(inst.api("/v1/inboxes", { method: "POST", json: { name: "probe" } }))).body.data;
  const sender = await SmtpClient.open(inst.ports.smtp!);
  let done = false;
  void running.then(() => (done = true));
  const plain: number[] = [];
  const filtered: number[] = [];
  let token: string | null = null;
  for (let i = 0; !done; i++) {
    const word = `probeword${i}`;
    const q = new URLSearchParams({ wait: "10", view: "summary" });
    if (i % 2 === 1) q.set("q", word);
    else if (token) q.set("poll_token", token);
    let answeredAt = 0;
    const poll = inst.api(`/v1/inboxes/${probe.id}/messages/latest?${q}`).then(async (r) => {
      answeredAt = performance.now();
      return json(r);
    });
    await Bun.sleep(2); // let the poll park
    const body = `From: probe@example.com\r\nTo: <${probe.address}>\r\nSubject: probe ${i}\r\n\r\nthe ${word} probe\r\n`;
    await sender.deliver("probe@example.com", probe.address, body);
    const ackAt = performance.now();
    const r = await poll;
    if (r.status !== 200) throw new Error(`long-poll answered ${r.status}`);
    // The answer must be this probe: a poll that returned an earlier message measured nothing.
    if (r.body.data?.subject !== `probe ${i}`) throw new Error(`long-poll answered "${r.body.data?.subject}", not probe ${i}`);
    token = r.body.meta.poll_token ?? token;
    (i % 2 === 1 ? filtered : plain).push(Math.max(0, answeredAt - ackAt));
    await Bun.sleep(20);
  }
  sender.close();
  return { plain, filtered };
}

console.log(machineLine());
const inst = await startInboxd({ INBOXD_PLAN: "business" });
try {
  const inbox = (await json(inst.api("/v1/inboxes", { method: "POST", json: { name: "bench" } }))).body.data;
  const port = inst.ports.smtp!;
  await sequential(port, inbox.address, 50); // warm-up
  const ours = await sequential(port, inbox.address, SEQUENTIAL);
  report("inboxd", ours);
  const oursRate = await concurrent(port, inbox.address, MESSAGES, SENDERS);
  reportRate("inboxd", oursRate);
  const theirs = await withMaildev(async (p) => {
    await sequential(p, "warm@example.com", 50);
    const seq = await sequential(p, "bench@example.com", SEQUENTIAL);
    const rate = await concurrent(p, "bench@example.com", MESSAGES, SENDERS);
    return { seq, rate };
  });
  report("MailDev", theirs.seq);
  reportRate("MailDev", theirs.rate);
  console.log(
    `ratio inboxd/MailDev: median connection time ${(pct(theirs.seq, 50) / pct(ours, 50)).toFixed(1)}x shorter, throughput ${(oursRate.rate / theirs.rate.rate).toFixed(2)}x`,
  );
  console.log(`goal: median connect → QUIT < 5 ms (${pct(ours, 50) < 5 ? "met" : "not met"})`);
  const count = (await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data.message_count;
  console.log(`inboxd inbox holds ${count} messages (expected ${50 + SEQUENTIAL + MESSAGES})`);

  if (Bun.which("smtp-source") && Bun.which("smtp-sink")) {
    const sinkPort = await freePort();
    // smtp-sink refuses to run as root without -u (it drops to that user after binding).
    const asRoot = process.getuid?.() === 0 ? ["-u", "nobody"] : [];
    const sink = spawn("smtp-sink", [...asRoot, `127.0.0.1:${sinkPort}`, "256"], { stdio: ["ignore", "ignore", "pipe"] });
    let sinkErr = "";
    sink.stderr?.on("data", (d: Buffer) => {
      sinkErr += d.toString();
    });
    try {
      await waitForPort(sinkPort).catch((e) => {
        throw new Error(`smtp-sink did not listen on ${sinkPort} (${(e as Error).message}); it said: ${sinkErr.trim() || "nothing"}`);
      });
      if (WARMUP > 0) await smtpSource({ port, to: inbox.address, messages: WARMUP, reuse: true });
      for (const d of [false, true]) {
        // smtp-source disconnects after every message unless -d ("don't disconnect"); it speaks HELO, one command per round trip.
        const what = `smtp-source -s 8 -m 5000 -l 10240${d ? " -d (8 sessions reused)" : " (a new connection per message)"}`;
        const run = smtpSource({ port, to: inbox.address, messages: 5000, reuse: d });
        const probes = await probeLatency(inst, run);
        const a = await run;
        console.log(
          `inboxd    ${what}: ${a.seconds.toFixed(2)} s = ${(5000 / a.seconds).toFixed(0)} messages/s${a.ok ? "" : ` (failed: ${a.err})`}`,
        );
        console.log(
          `inboxd    meanwhile, 250 -> long-poll answer: p50 ${pct(probes.plain, 50).toFixed(2)} ms, p99 ${pct(probes.plain, 99).toFixed(2)} ms (${probes.plain.length} probes); with q (search index): p50 ${pct(probes.filtered, 50).toFixed(2)} ms, p99 ${pct(probes.filtered, 99).toFixed(2)} ms (${probes.filtered.length}); goal p99 < 25 ms`,
        );
        const b = await smtpSource({ port: sinkPort, to: "sink@example.com", messages: 5000, reuse: d });
        console.log(
          `smtp-sink ${what}: ${b.seconds.toFixed(2)} s = ${(5000 / b.seconds).toFixed(0)} messages/s${b.ok ? "" : ` (failed: ${b.err})`}`,
        );
      }
      const total = (await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data.message_count;
      console.log(
        `inboxd inbox holds ${total} messages after smtp-source (expected ${count + WARMUP + 10000}; the probes went to their own inboxes)`,
      );
    } finally {
      sink.kill("SIGTERM");
    }
  } else {
    console.log("smtp-source/smtp-sink (Postfix) not installed: skipped");
  }
  console.log(`load average now ${loadAverage()}`);
} finally {
  await inst.stop();
  inst.cleanup();
}
