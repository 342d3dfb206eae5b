// Webhook latency: from the SMTP 250 of a message to the moment a receiver on loopback has the
// signed webhook for it, at a steady offered load (default 200 messages/s for 10 s over 8 SMTP
// connections, spread over 20 inboxes, one webhook subscribed to message.received). Prints p50,
// p90, p99 and max, and the same from the end of DATA (so ingest's own time is included).
// Goal on a 2-core machine: p99 < 100 ms.
//   bun bench/webhook.ts [--rate 200] [--seconds 10] [--connections 8] [--inboxes 20]
import { connect, type Socket } from "node:net";
import { startInboxd, json } from "../test/support/harness";

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const RATE = arg("rate", 200);
const SECONDS = arg("seconds", 10);
const CONNECTIONS = arg("connections", 8);
const INBOXES = arg("inboxes", 20);
const TOTAL = RATE * SECONDS;

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
  /** Resolves at the 250; `onData` is called when the message's final dot is written. */
  async deliver(to: string, body: string, onData: () => void): Promise<void> {
    const codes = await this.send(`MAIL FROM:<bench@example.com>\r\nRCPT TO:<${to}>\r\nDATA\r\n`, 3);
    if (codes[0] !== 250 || codes[1] !== 250 || codes[2] !== 354) throw new Error(`SMTP refused: ${codes}`);
    onData();
    const [c] = await this.send(body + ".\r\n", 1);
    if (c !== 250) throw new Error(`SMTP DATA answered ${c}`);
  }
  close() {
    this.socket.end("QUIT\r\n");
  }
}

function message(i: number, to: string): string {
  return (
    `From: Bench <bench@example.com>\r\nTo: <${to}>\r\nSubject: wh-bench ${i}\r\n` +
    `Message-ID: <wh-bench-${i}-${Date.now()}@example.com>\r\nDate: ${new Date().toUTCString()}\r\n` +
    `MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n` +
    `Your verification code is ${100000 + i}. Visit https://example.com/verify/${i} to continue.\r\n`.repeat(20)
  );
}

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

const acked = new Map<number, number>();
const dataSent = new Map<number, number>();
const received = new Map<number, number>();
let allIn: () => void;
const allReceived = new Promise<void>((r) => (allIn = r));
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const body = (await req.json()) as any;
    const at = performance.now();
    const m = /wh-bench (\d+)/.exec(body?.data?.subject ?? "");
    if (m && !received.has(Number(m[1]))) {
      received.set(Number(m[1]), at);
      if (received.size === TOTAL) allIn();
    }
    return new Response(null, { status: 204 });
  },
});

const inst = await startInboxd({ INBOXD_PLAN: "business", INBOXD_RATE_LIMIT_RPS: "1000000", INBOXD_RATE_LIMIT_BURST: "1000000" });
try {
  const inboxes: string[] = [];
  for (let i = 0; i < INBOXES; i++) {
    const r = await json(inst.api("/v1/inboxes", { method: "POST", json: { name: `wh-bench-${i}` } }));
    inboxes.push(r.body.data.address);
  }
  const wh = await json(
    inst.api("/v1/webhooks", {
      method: "POST",
      json: { url: `http://127.0.0.1:${receiver.port}/hook`, event_types: ["message.received"] },
    }),
  );
  if (wh.status !== 201) throw new Error(`webhook: ${JSON.stringify(wh.body)}`);

  console.log(`webhook bench: ${TOTAL} messages at ${RATE}/s over ${CONNECTIONS} SMTP connections to ${INBOXES} inboxes`);
  const conns = await Promise.all(Array.from({ length: CONNECTIONS }, () => Conn.open(inst.ports.smtp)));
  const t0 = performance.now() + 50;
  let next = 0;
  let lateStarts = 0;
  await Promise.all(
    conns.map(async (c) => {
      for (;;) {
        const i = next++;
        if (i >= TOTAL) return;
        const due = t0 + (i * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 0) await Bun.sleep(wait);
        else if (wait < -5) lateStarts++;
        await c.deliver(inboxes[i % inboxes.length]!, message(i, inboxes[i % inboxes.length]!), () => dataSent.set(i, performance.now()));
        acked.set(i, performance.now());
      }
    }),
  );
  const sendSeconds = (performance.now() - t0) / 1000;
  for (const c of conns) c.close();
  await Promise.race([allReceived, Bun.sleep(30_000)]);

  const lat = [...acked]
    .filter(([i]) => received.has(i))
    .map(([i, t]) => received.get(i)! - t)
    .sort((a, b) => a - b);
  const full = [...dataSent]
    .filter(([i]) => received.has(i))
    .map(([i, t]) => received.get(i)! - t)
    .sort((a, b) => a - b);
  const missing = TOTAL - received.size;
  const f = (x: number) => `${x.toFixed(1)} ms`;
  console.log(`sent in ${sendSeconds.toFixed(2)} s (${(TOTAL / sendSeconds).toFixed(0)} msg/s achieved; ${lateStarts} sends started late)`);
  console.log(
    `250 -> webhook receipt: p50 ${f(pct(lat, 50))}   p90 ${f(pct(lat, 90))}   p99 ${f(pct(lat, 99))}   max ${f(lat[lat.length - 1]!)}   (negative = webhook before the 250 reached the client; min ${f(lat[0]!)})`,
  );
  console.log(
    `end of DATA -> webhook receipt (ingest + dispatch): p50 ${f(pct(full, 50))}   p90 ${f(pct(full, 90))}   p99 ${f(pct(full, 99))}   max ${f(full[full.length - 1]!)}`,
  );
  console.log(
    `received ${received.size}/${TOTAL}${missing ? `  MISSING ${missing}` : ""}   goal p99 < 100 ms: ${pct(lat, 99) < 100 ? "met" : "NOT met"}`,
  );
} finally {
  receiver.stop(true);
  await inst.stop();
  inst.cleanup();
}
