// Search benchmark (issue 16): 100,000 messages stored through the real SMTP listener (8 pipelined
// connections, as bench/ingest.ts; ~2 KB messages spread over 4 inboxes, 100 senders, a 1,000-word
// rare vocabulary), then p50/p99 of `q` with a rare word, a common word, `from:` and a date range,
// on GET /v1/messages (project-wide) and on one inbox's list, and the filtered long-poll's
// wake-up after the 250 (a non-matching message first, then the matching one).
//   bun bench/search.ts [--messages N] [--connections C] [--samples S]
// Prints figures; asserts nothing. Goals: list p99 < 50 ms, long-poll wake-up p99 < 25 ms.
import { json, startInboxd } from "../test/support/harness";
import { arg, loadAverage, machineLine, pct, SmtpClient } from "./support";

const TOTAL = arg("messages", 100_000);
const CONNECTIONS = arg("connections", 8);
const SAMPLES = arg("samples", 200);
const INBOXES = 4;

const enc = new TextEncoder();
const FILLER =
  "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua".split(" ");
const rare = (i: number) => `zq${(i * 7919) % 1000}x`;

/** ~2 KB: one of 100 senders, a rare word (each ~1/1000 of the mail), filler prose. */
function message(i: number, to: string): string {
  const head =
    `From: Sender ${i % 100} <sender${i % 100}@shop${i % 7}.example>\r\nTo: <${to}>\r\nSubject: Order ${i} update ${rare(i)}\r\n` +
    `Message-ID: <search-${i}-${Date.now()}@example.com>\r\nDate: ${new Date().toUTCString()}\r\n` +
    "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n";
  let body = `Hello,\r\n\r\nYour order ${i} has shipped. Reference ${rare(i + 1)}.\r\n\r\n`;
  let w = i;
  while (head.length + body.length < 2 * 1024 - 80) {
    let line = "";
    while (line.length < 70) line += `${FILLER[(w++ * 7) % FILLER.length]} `;
    body += `${line.trim()}\r\n`;
  }
  return `${head}${body}`;
}

/** A lean pipelining SMTP client connection (as in bench/ingest.ts). */

/** Sends `total` messages round-robin over the inboxes, each message's content pipelined with the next envelope. */
async function ingest(port: number, to: string[], total: number, marks: Map<number, string>): Promise<number> {
  const conns = await Promise.all(Array.from({ length: CONNECTIONS }, () => SmtpClient.open(port)));
  const envelope = (i: number) => enc.encode(`MAIL FROM:<bench@example.com>\r\nRCPT TO:<${to[i % to.length]}>\r\nDATA\r\n`);
  let next = 0;
  let sent = 0;
  const t0 = performance.now();
  await Promise.all(
    conns.map(async (c) => {
      let i = next++;
      if (i >= total) return;
      const codes = await c.send(envelope(i), 3);
      if (codes.join() !== "250,250,354") throw new Error(`envelope refused: ${codes} ${c.last}`);
      for (;;) {
        const j = next++;
        const more = j < total;
        const body = enc.encode(`${message(i, to[i % to.length]!)}.\r\n`);
        let frame = body;
        if (more) {
          const env = envelope(j);
          frame = new Uint8Array(body.byteLength + env.byteLength);
          frame.set(body);
          frame.set(env, body.byteLength);
        }
        const r = await c.send(frame, more ? 4 : 1);
        if (r[0] !== 250) throw new Error(`DATA refused: ${c.last}`);
        sent++;
        if (sent % 10_000 === 0) marks.set(sent, new Date().toISOString());
        if (!more) return;
        if (r.slice(1).join() !== "250,250,354") throw new Error(`envelope refused: ${r} ${c.last}`);
        i = j;
      }
    }),
  );
  for (const c of conns) c.close();
  if (sent !== total) throw new Error(`sent ${sent} of ${total}`);
  return (performance.now() - t0) / 1000;
}

const fmt = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(2)} ms, p99 ${pct(xs, 99).toFixed(2)} ms`;

console.log(machineLine());
const inst = await startInboxd({ INBOXD_PLAN: "business" });
try {
  const inboxes: Array<{ id: string; address: string }> = [];
  for (let i = 0; i < INBOXES; i++)
    inboxes.push((await json(inst.api("/v1/inboxes", { method: "POST", json: { name: `bench ${i}` } }))).body.data);
  const marks = new Map<number, string>();
  const seconds = await ingest(
    inst.ports.smtp!,
    inboxes.map((b) => b.address),
    TOTAL,
    marks,
  );
  const usage = (await json(inst.api("/v1/usage"))).body.data.usage;
  console.log(
    `stored ${TOTAL} x ~2 KB over SMTP (${CONNECTIONS} pipelined connections, ${INBOXES} inboxes) in ${seconds.toFixed(1)} s = ${(TOTAL / seconds).toFixed(0)} messages/s; project messages: ${usage.messages}`,
  );

  // A date window of about a tenth of the mail, in the middle of the ingest.
  const from = marks.get(Math.round((TOTAL * 0.4) / 10_000) * 10_000) ?? new Date(Date.now() - 60_000).toISOString();
  const to = marks.get(Math.round((TOTAL * 0.5) / 10_000) * 10_000) ?? new Date().toISOString();
  const queries: Array<[string, string]> = [
    ["rare word (~0.2 % of mail)", rare(42)],
    ["common word (every message)", "lorem"],
    ["phrase", '"has shipped"'],
    ["from:", "from:sender42@"],
    ["date range", `after:${from} before:${to}`],
    ["word + from:", `${rare(42)} from:sender`],
  ];
  const time = async (path: string) => {
    const out: number[] = [];
    let count = 0;
    for (let i = 0; i < SAMPLES + 5; i++) {
      const t0 = performance.now();
      const r = await json(inst.api(path));
      const ms = performance.now() - t0;
      if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
      count = r.body.data.length;
      if (i >= 5) out.push(ms);
    }
    return Object.assign(out, { count });
  };
  for (const [name, q] of queries) {
    const all = await time(`/v1/messages?${new URLSearchParams({ q })}`);
    const one = await time(`/v1/inboxes/${inboxes[0]!.id}/messages?${new URLSearchParams({ q })}`);
    console.log(
      `q ${name.padEnd(28)} ${JSON.stringify(q).padEnd(66)} GET /v1/messages: ${fmt(all)} (${all.count} on the page) | inbox list: ${fmt(one)} (${one.count})`,
    );
  }
  const plain = await time("/v1/messages");
  console.log(`no q (baseline)               GET /v1/messages: ${fmt(plain)}`);

  // Filtered long-poll: park, send a non-matching message, then the matching one; time 250 -> answer.
  const target = inboxes[1]!;
  const sender = await SmtpClient.open(inst.ports.smtp!);
  const wake: number[] = [];
  let token: string | null = null;
  for (let i = 0; i < SAMPLES; i++) {
    const params = new URLSearchParams({ q: "subject:probe", wait: "10", view: "summary" });
    if (token) params.set("poll_token", token);
    let answeredAt = 0;
    const poll = inst.api(`/v1/inboxes/${target.id}/messages/latest?${params}`).then(async (r) => {
      answeredAt = performance.now();
      return json(r);
    });
    await Bun.sleep(2); // let the poll park
    await sender.deliver("probe@example.com", target.address, message(TOTAL + i, target.address));
    await sender.deliver("probe@example.com", target.address, `Subject: probe ${i}\r\nFrom: probe@example.com\r\n\r\nprobe body\r\n`);
    const ackAt = performance.now();
    const r = await poll;
    if (r.status !== 200 || !String(r.body.data.subject).startsWith("probe")) throw new Error(`long-poll answered ${r.status}`);
    token = r.body.meta.poll_token;
    wake.push(Math.max(0, answeredAt - ackAt));
  }
  sender.close();
  console.log(`filtered long-poll (q=subject:probe), 250 -> answer after a non-matching arrival: ${fmt(wake)} (${wake.length} samples)`);
  console.log(`load average now ${loadAverage()}`);
} finally {
  await inst.stop();
  inst.cleanup();
}
