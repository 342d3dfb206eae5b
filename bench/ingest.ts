// SMTP ingest benchmark: 10 KB messages over 8 concurrent connections into a real inboxd
// (fresh data directory, durable commits), then the latency from the SMTP 250 to the answer of a
// parked long-poll (p50/p99), then the same ingest against MailDev on loopback ports for scale.
//   bun bench/ingest.ts [--messages N] [--connections C]
// The client is a lean SMTP client on Bun's native sockets (each message's content pipelined with
// the next MAIL/RCPT/DATA, RFC 2920), the same for inboxd and MailDev, so the figures measure the
// servers, not a client library. Every message is distinct (serial number in its Message-ID).
import { startInboxd, json } from "../test/support/harness";
import { arg, loadAverage, machineLine, pct, SmtpClient, withMaildev } from "./support";

const TOTAL = arg("messages", 8000);
const CONNECTIONS = arg("connections", 8);
const LATENCY_SAMPLES = arg("latency-samples", 300);

const WORDS =
  "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua ut enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo consequat".split(
    " ",
  );

/** Placeholder in each Message-ID for the per-message serial number. */
const SERIAL = "0000000000";

/** A realistic 10 KB transactional mail: one code, one link, prose filler. */
function message(i: number, to: string): string {
  const head =
    `From: Bench <bench@example.com>\r\nTo: <${to}>\r\nSubject: Your sign-in code (${i})\r\n` +
    `Message-ID: <bench-${SERIAL}-${i}-${Date.now()}@example.com>\r\nDate: ${new Date().toUTCString()}\r\n` +
    `MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n`;
  let body =
    `Hello,\r\n\r\nYour verification code is ${100000 + (i % 900000)}. It expires in 10 minutes.\r\n` +
    `Or open https://example.com/verify?t=${i} to continue.\r\n\r\n`;
  let w = i;
  while (head.length + body.length < 10 * 1024 - 80) {
    let line = "";
    while (line.length < 70) line += WORDS[(w++ * 7) % WORDS.length] + " ";
    body += line.trim() + "\r\n";
  }
  return head + body;
}

/**
 * A lean SMTP client connection on Bun's native sockets: no stream layer, replies parsed by hand,
 * writes kept as bytes. Replies are counted in arrival order; `expect(n)` resolves with the next n
 * reply codes.
 */
const enc = new TextEncoder();
const latin1 = new TextDecoder("latin1");

/**
 * Sends `total` messages over `connections` connections. Every message is distinct (a serial
 * number is patched into its Message-ID) so that no server can skip work for a repeated one. Per
 * connection, each message's content is pipelined with the next envelope, as RFC 2920 allows
 * (content may open a group, DATA closes it): one write and one wait per message, the way bulk
 * senders such as Postfix talk to a PIPELINING server.
 */
async function ingest(port: number, to: string, total: number, connections: number): Promise<{ rate: number; seconds: number }> {
  const conns = await Promise.all(Array.from({ length: connections }, () => SmtpClient.open(port)));
  const envelope = enc.encode(`MAIL FROM:<bench@example.com>\r\nRCPT TO:<${to}>\r\nDATA\r\n`);
  const bodies = Array.from({ length: 64 }, (_, i) => enc.encode(message(i, to) + ".\r\n"));
  const serialAt = bodies.map((b) => latin1.decode(b).indexOf(SERIAL));
  let next = 0;
  let sent = 0;
  /** Message i's bytes, followed by the next envelope when another message follows. */
  const frame = (i: number, more: boolean): Uint8Array => {
    const body = bodies[i % bodies.length]!;
    const out = new Uint8Array(body.byteLength + (more ? envelope.byteLength : 0));
    out.set(body);
    out.set(enc.encode(String(i).padStart(SERIAL.length, "0")), serialAt[i % bodies.length]!);
    if (more) out.set(envelope, body.byteLength);
    return out;
  };
  const t0 = performance.now();
  await Promise.all(
    conns.map(async (c) => {
      let i = next++;
      if (i >= total) return;
      const codes = await c.send(envelope, 3);
      if (codes.join() !== "250,250,354") throw new Error(`envelope refused: ${codes} ${c.last}`);
      for (;;) {
        const j = next++;
        const more = j < total;
        const r = await c.send(frame(i, more), more ? 4 : 1);
        if (r[0] !== 250) throw new Error(`DATA refused: ${c.last}`);
        sent++;
        if (!more) return;
        if (r[1] !== 250 || r[2] !== 250 || r[3] !== 354) throw new Error(`envelope refused: ${r} ${c.last}`);
        i = j;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  for (const c of conns) c.close();
  if (sent !== total) throw new Error(`sent ${sent} of ${total}`);
  return { rate: total / seconds, seconds };
}

async function latency(
  inst: Awaited<ReturnType<typeof startInboxd>>,
  inboxId: string,
  address: string,
  samples: number,
  loadPort?: number,
) {
  const sender = await SmtpClient.open(inst.ports.smtp!);
  const out: number[] = [];
  let early = 0;
  // Optional background load: 6 connections streaming meanwhile, so the figure includes contention.
  let loading = loadPort !== undefined;
  const load = loading
    ? Promise.all(
        Array.from({ length: 6 }, async () => {
          const c = await SmtpClient.open(loadPort!);
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
    // Both answers leave the server in the same turn, after the durable flush: the long-poll's
    // can arrive first (counted as 0 ms and reported as "before the 250").
    if (answeredAt < ackAt) early++;
    out.push(Math.max(0, answeredAt - ackAt));
  }
  loading = false;
  await load;
  sender.close();
  return Object.assign(out, { early });
}

function maildev(total: number): Promise<{ rate: number; seconds: number }> {
  return withMaildev(async (smtpPort) => {
    await ingest(smtpPort, "warm@example.com", 200, CONNECTIONS);
    return ingest(smtpPort, "bench@example.com", total, CONNECTIONS);
  });
}

console.log(machineLine());
const inst = await startInboxd({ INBOXD_PLAN: "business" });
try {
  const inbox = (await json(inst.api("/v1/inboxes", { method: "POST", json: { name: "bench" } }))).body.data;
  await ingest(inst.ports.smtp!, inbox.address, 300, CONNECTIONS); // warm-up
  const ours = await ingest(inst.ports.smtp!, inbox.address, TOTAL, CONNECTIONS);
  const check = (await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data;
  console.log(
    `inboxd  ingest: ${TOTAL} x 10 KB over ${CONNECTIONS} connections in ${ours.seconds.toFixed(2)} s = ${ours.rate.toFixed(0)} messages/s (inbox message_count ${check.message_count})`,
  );
  const idle = await latency(inst, inbox.id, inbox.address, LATENCY_SAMPLES);
  console.log(
    `inboxd  250 -> long-poll answer (idle):      p50 ${pct(idle, 50).toFixed(2)} ms, p99 ${pct(idle, 99).toFixed(2)} ms (${idle.length} samples, ${idle.early} answered before the 250 arrived)`,
  );
  const busy = await latency(inst, inbox.id, inbox.address, LATENCY_SAMPLES, inst.ports.smtp!);
  console.log(
    `inboxd  250 -> long-poll answer (under load): p50 ${pct(busy, 50).toFixed(2)} ms, p99 ${pct(busy, 99).toFixed(2)} ms (${busy.length} samples, ${busy.early} answered before the 250 arrived, 6 loading connections)`,
  );
  const theirs = await maildev(TOTAL);
  console.log(
    `MailDev ingest: ${TOTAL} x 10 KB over ${CONNECTIONS} connections in ${theirs.seconds.toFixed(2)} s = ${theirs.rate.toFixed(0)} messages/s`,
  );
  console.log(`ratio inboxd/MailDev: ${(ours.rate / theirs.rate).toFixed(2)}x`);
  console.log(
    `goals: >= 1500 messages/s (${ours.rate >= 1500 ? "met" : "not met"}); p99 < 25 ms (idle ${pct(idle, 99) < 25 ? "met" : "not met"}, under load ${pct(busy, 99) < 25 ? "met" : "not met"}); load average now ${loadAverage()}`,
  );
} finally {
  await inst.stop();
  inst.cleanup();
}
