// Scale-out benchmark (issue 20, docs/scaling.md): the same load against SQLite (one node), one
// inboxd node on PostgreSQL and two nodes on that PostgreSQL, in one run.
//   bun bench/nodes.ts [--messages 1500] [--connections 8] [--inboxes 16] [--warmup 200] [--read-seconds 3] [--readers 16] [--samples 40]
// Per setup: SMTP ingest msg/s (4 KB messages, `connections` SMTP connections spread over the
// nodes, each message durable before its 250), into one inbox and spread over `inboxes` inboxes
// of one project (a lab whose CI jobs each read their own inbox), HTTP read req/s (`readers` clients listing an
// inbox's newest 20 messages, spread over the nodes), and the wake-up latency of a long-poll:
// parked on the node that did not take the mail in (A→B through LISTEN/NOTIFY) with two nodes,
// on the same node otherwise; measured from the SMTP 250 to the long-poll's answer.
// Every process runs on this machine (PostgreSQL too): with two cores, two nodes compete with
// each other and with PostgreSQL, so the figures show the cost of the mechanism, not a cluster.
import { json, startInboxd, type Instance } from "../test/support/harness";
import { startPostgres } from "../test/support/postgres";
import { arg, machineLine, pct, SmtpClient } from "./support";

const MESSAGES = arg("messages", 1500);
const CONNECTIONS = arg("connections", 8);
const INBOXES = arg("inboxes", 16);
const WARMUP = arg("warmup", 200);
const READ_SECONDS = arg("read-seconds", 3);
const READERS = arg("readers", 16);
const SAMPLES = arg("samples", 40);
const SECRET_KEY = "5e".repeat(32);

function message(i: number, to: string): string {
  let body = `From: Bench <bench@example.com>\r\nTo: <${to}>\r\nSubject: nodes bench ${i}\r\nMessage-ID: <nodes-${i}-${Date.now()}-${Math.random()}@example.com>\r\n\r\n`;
  while (body.length < 4096) body += `line ${i} of the nodes benchmark, filler text to reach four kilobytes\r\n`;
  return body;
}

/** Message i goes to to[i % to.length]; `count` messages in all. */
async function ingest(nodes: Instance[], to: string[], count = MESSAGES): Promise<number> {
  const conns = await Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => SmtpClient.open(nodes[i % nodes.length]!.ports.smtp!)));
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    conns.map(async (c) => {
      for (let i = next++; i < count; i = next++) {
        const rcpt = to[i % to.length]!;
        await c.deliver("bench@example.com", rcpt, message(i, rcpt));
      }
    }),
  );
  const rate = count / ((performance.now() - t0) / 1000);
  for (const c of conns) c.close();
  return rate;
}

async function reads(nodes: Instance[], inboxId: string): Promise<number> {
  let done = 0;
  const until = performance.now() + READ_SECONDS * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: READERS }, async (_, r) => {
      const node = nodes[r % nodes.length]!;
      while (performance.now() < until) {
        const res = await node.api(`/v1/inboxes/${inboxId}/messages?limit=20`);
        if (res.status !== 200) throw new Error(`read: ${res.status}`);
        await res.arrayBuffer();
        done++;
      }
    }),
  );
  return done / ((performance.now() - t0) / 1000);
}

/** From the 250 on `sender` to the answer of a long-poll parked on `waiter`, in ms. */
async function wakeUps(sender: Instance, waiter: Instance): Promise<number[]> {
  const box = (await json(waiter.api("/v1/inboxes", { method: "POST", json: {} }))).body.data;
  const smtp = await SmtpClient.open(sender.ports.smtp!);
  const out: number[] = [];
  let token: string | null = null;
  for (let i = 0; i < SAMPLES; i++) {
    const q = new URLSearchParams({ wait: "10", view: "summary" });
    if (token) q.set("poll_token", token);
    let answeredAt = 0;
    const poll = waiter.api(`/v1/inboxes/${box.id}/messages/latest?${q}`).then((r) => {
      answeredAt = performance.now();
      return json(r);
    });
    await Bun.sleep(20); // let the poll park
    await smtp.deliver("probe@example.com", box.address, message(i, box.address));
    const ackAt = performance.now();
    const r = await poll;
    if (r.status !== 200) throw new Error(`long-poll answered ${r.status}`);
    token = r.body.meta.poll_token;
    out.push(Math.max(0, answeredAt - ackAt));
  }
  smtp.close();
  return out;
}

async function run(label: string, nodes: Instance[]) {
  const newBox = async () => (await json(nodes[0]!.api("/v1/inboxes", { method: "POST", json: {} }))).body.data;
  const box = await newBox();
  // Not measured: the first few hundred messages run while the JIT and caches warm up.
  await ingest(nodes, [(await newBox()).address], WARMUP);
  const ingestRate = await ingest(nodes, [box.address]);
  const many: string[] = [];
  for (let i = 0; i < INBOXES; i++) many.push((await newBox()).address);
  const spreadRate = await ingest(nodes, many);
  const readRate = await reads(nodes, box.id);
  const wake = await wakeUps(nodes[0]!, nodes[nodes.length - 1]!);
  const where = nodes.length > 1 ? "A→B" : "same node";
  console.log(
    `| ${label} | ${ingestRate.toFixed(0)} msg/s | ${spreadRate.toFixed(0)} msg/s | ${readRate.toFixed(0)} req/s | ${where}: p50 ${pct(wake, 50).toFixed(1)} ms, p99 ${pct(wake, 99).toFixed(1)} ms |`,
  );
}

console.log(machineLine());
console.log(
  `${MESSAGES} messages of 4 KB over ${CONNECTIONS} SMTP connections, into 1 inbox then ${INBOXES}; ${READERS} HTTP readers for ${READ_SECONDS} s; ${SAMPLES} wake-ups`,
);
console.log(`| Setup | SMTP ingest, 1 inbox | SMTP ingest, ${INBOXES} inboxes | HTTP reads | long-poll wake-up after the 250 |`);
console.log("| --- | --- | --- | --- | --- |");
{
  const lite = await startInboxd();
  try {
    await run("SQLite, 1 node", [lite]);
  } finally {
    await lite.stop();
    lite.cleanup();
  }
}
const pg = await startPostgres();
try {
  for (const count of [1, 2]) {
    const url = await pg.newDatabase();
    const nodes: Instance[] = [];
    try {
      for (let i = 0; i < count; i++) nodes.push(await startInboxd({ INBOXD_DATABASE_URL: url, INBOXD_SECRET_KEY: SECRET_KEY }));
      await run(`PostgreSQL, ${count} node${count > 1 ? "s" : ""}`, nodes);
    } finally {
      for (const n of nodes) {
        await n.stop();
        n.cleanup();
      }
    }
  }
} finally {
  await pg.stop();
}
