// IMAP benchmark: 1,000 messages of 10 KB put into a real inboxd through SMTP, then over
// implicit TLS the time to FETCH BODY[] of all of them and to SEARCH them (a body-text search
// that has to look at every message). When Dovecot is installed (`apt-get install
// dovecot-imapd`), the same bytes go into a Maildir served by a throw-away Dovecot on loopback
// and the same commands are timed there; both figures and the ratio are printed. Then the
// writes: APPEND of --appends messages of 10 KB into a new mailbox (one command at a time, as a
// client filing its Sent copies does), and one MOVE of them into another mailbox, per run.
//   bun bench/imap.ts [--messages N] [--runs R] [--appends A]
// The IMAP client is a lean raw TLS client so that the figures measure the servers.
import tls from "node:tls";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import nodemailer from "nodemailer";
import { json, startInboxd } from "../test/support/harness";
import { arg } from "./support";
import { haveDovecot, startDovecot } from "../test/support/dovecot";

const TOTAL = arg("messages", 1000);
const RUNS = arg("runs", 5);
const APPENDS = arg("appends", 200);
const NEEDLE = "needle-in-message-777";

function message(i: number, to: string): string {
  const head =
    `From: Bench <bench@example.com>\r\nTo: <${to}>\r\nSubject: bench message ${i}\r\n` +
    `Message-ID: <imap-bench-${i}@example.com>\r\nDate: Mon, 02 Mar 2026 10:00:00 +0000\r\n` +
    `MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n`;
  const tag = i === 777 ? NEEDLE : `message-${i}`;
  const line = `Line of ${tag}: your verification code is ${100000 + i}. Visit https://example.com/v/${i}\r\n`;
  let body = "";
  while (head.length + body.length < 10 * 1024) body += line;
  return head + body.slice(0, 10 * 1024 - head.length - 2) + "\r\n";
}

/** A minimal IMAP client: writes a tagged command and waits for its completion, counting bytes. */
class Client {
  private chunks: Buffer[] = [];
  private tail = "";
  private received = 0;
  private waiter: { tag: string; resolve: (s: string) => void } | null = null;
  private n = 0;
  private constructor(private readonly socket: tls.TLSSocket) {
    socket.on("data", (d: Buffer) => {
      this.received += d.length;
      this.chunks.push(d);
      this.tail = (this.tail + d.toString("latin1")).slice(-4096);
      const w = this.waiter;
      if (w) {
        const m = new RegExp(`(?:^|\\r\\n)${w.tag} (OK|NO|BAD)[^\\r]*\\r\\n$`).exec(this.tail);
        if (m) {
          this.waiter = null;
          w.resolve(m[0].trim());
        }
      }
    });
  }

  static async open(port: number): Promise<Client> {
    const s = tls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false });
    await new Promise<void>((res, rej) => {
      s.once("secureConnect", () => res());
      s.once("error", rej);
    });
    const c = new Client(s);
    await new Promise((r) => setTimeout(r, 50)); // greeting
    return c;
  }

  /** Runs a command; returns the completion line, the response bytes and the text if small. */
  async cmd(command: string, literal?: string): Promise<{ status: string; bytes: number; text: string }> {
    const tag = `b${++this.n}`;
    this.chunks = [];
    this.received = 0;
    const done = new Promise<string>((resolve) => (this.waiter = { tag, resolve }));
    // A literal goes as LITERAL+ ({n+}): both servers take it without a continuation round trip.
    this.socket.write(
      literal === undefined ? `${tag} ${command}\r\n` : `${tag} ${command} {${Buffer.byteLength(literal)}+}\r\n${literal}\r\n`,
    );
    const status = await done;
    const bytes = this.received;
    const text = bytes < 1_000_000 ? Buffer.concat(this.chunks).toString("latin1") : "";
    if (!status.includes(" OK")) throw new Error(`${command}: ${status}`);
    return { status, bytes, text };
  }

  close(): void {
    this.socket.destroy();
  }
}

interface Result {
  fetchMs: number[];
  fetchBytes: number;
  searchMs: number[];
  searchHits: string;
  appendMs: number[];
  moveMs: number[];
}

async function open(port: number, user: string, pass: string): Promise<Client> {
  const c = await Client.open(port);
  await c.cmd(`LOGIN "${user}" "${pass}"`);
  const sel = await c.cmd("SELECT INBOX");
  const exists = Number(/\* (\d+) EXISTS/.exec(sel.text)?.[1]);
  if (exists !== TOTAL) throw new Error(`expected ${TOTAL} messages, the server has ${exists}`);
  return c;
}

/**
 * Times the servers run by run, alternating between them, so that load from elsewhere on the
 * machine falls on both alike (on a shared 2-core box it varies by ±50% within a minute).
 */
async function measure(clients: Client[]): Promise<Result[]> {
  const res: Result[] = clients.map(() => ({ fetchMs: [], fetchBytes: 0, searchMs: [], searchHits: "", appendMs: [], moveMs: [] }));
  for (let r = 0; r < RUNS; r++) {
    for (let i = 0; i < clients.length; i++) {
      const t = performance.now();
      const f = await clients[i]!.cmd("FETCH 1:* (BODY[])");
      res[i]!.fetchMs.push(performance.now() - t);
      res[i]!.fetchBytes = f.bytes;
    }
    for (let i = 0; i < clients.length; i++) {
      const t = performance.now();
      const s = await clients[i]!.cmd(`SEARCH BODY "${NEEDLE}"`);
      res[i]!.searchMs.push(performance.now() - t);
      const hits = (/\* SEARCH([^\r]*)/.exec(s.text)?.[1] ?? "").trim().split(" ").filter(Boolean);
      res[i]!.searchHits = `${hits.length} hit${hits.length === 1 ? "" : "s"}`;
    }
  }
  // Writes, after the reads (MOVE changes what is stored): APPEND into BenchAppend, then MOVE of
  // all of them into BenchMove, alternating between the servers run by run as above.
  const mail = message(1, "bench@example.com");
  for (const c of clients) {
    await c.cmd("CREATE BenchAppend");
    await c.cmd("CREATE BenchMove");
    await c.cmd("SELECT BenchAppend");
  }
  for (let r = 0; r < RUNS; r++) {
    for (let i = 0; i < clients.length; i++) {
      const t = performance.now();
      for (let k = 0; k < APPENDS; k++) await clients[i]!.cmd("APPEND BenchAppend", mail);
      res[i]!.appendMs.push(performance.now() - t);
    }
    for (let i = 0; i < clients.length; i++) {
      await clients[i]!.cmd("NOOP"); // takes in the appended messages' EXISTS
      const t = performance.now();
      await clients[i]!.cmd("MOVE 1:* BenchMove");
      res[i]!.moveMs.push(performance.now() - t);
    }
  }
  for (const c of clients) {
    await c.cmd("LOGOUT").catch(() => {});
    c.close();
  }
  return res;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function report(name: string, r: Result): { fetch: number; search: number; append: number; move: number } {
  const fetch = median(r.fetchMs);
  const search = median(r.searchMs);
  const append = median(r.appendMs);
  const move = median(r.moveMs);
  console.log(
    `${name}: FETCH 1:* (BODY[]) median ${fetch.toFixed(1)} ms (first ${r.fetchMs[0]!.toFixed(1)} ms) = ${Math.round((TOTAL / fetch) * 1000)} messages/s, ` +
      `${(r.fetchBytes / 1024 / 1024).toFixed(1)} MiB; SEARCH BODY median ${search.toFixed(1)} ms = ${Math.round((TOTAL / search) * 1000)} messages/s (${r.searchHits}); ` +
      `APPEND ×${APPENDS} median ${append.toFixed(0)} ms = ${Math.round((APPENDS / append) * 1000)} messages/s; ` +
      `MOVE of ${APPENDS} median ${move.toFixed(1)} ms = ${Math.round((APPENDS / move) * 1000)} messages/s`,
  );
  return { fetch, search, append, move };
}

// -- inboxd -----------------------------------------------------------------------------------
const inst = await startInboxd();
let exitCode = 0;
try {
  const ib = await json(inst.api("/v1/inboxes", { method: "POST", json: {} }));
  const cr = await json(inst.api(`/v1/inboxes/${ib.body.data.id}/credentials`));
  const { username, password } = cr.body.data;
  const messages = Array.from({ length: TOTAL }, (_, i) => message(i + 1, username));
  const t0 = performance.now();
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port: inst.ports.smtp,
    secure: false,
    pool: true,
    maxConnections: 8,
    maxMessages: Infinity,
    tls: { rejectUnauthorized: false },
  } as any);
  // 8 at a time (arrival order within a batch may vary, so UIDs only roughly follow i).
  for (let i = 0; i < TOTAL; i += 8) {
    await Promise.all(
      messages.slice(i, i + 8).map((raw) => transport.sendMail({ envelope: { from: "bench@example.com", to: [username] }, raw })),
    );
  }
  transport.close();
  console.log(`loaded ${TOTAL} messages of 10 KB through SMTP in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  if (!haveDovecot()) {
    report("inboxd ", (await measure([await open(inst.ports.imap!, username, password)]))[0]!);
    console.log("Dovecot is not installed (apt-get install dovecot-imapd) or we are not root: no comparison");
  } else {
    const cert = readFileSync(join(inst.dataDir, "tls.crt"), "utf8");
    const key = readFileSync(join(inst.dataDir, "tls.key"), "utf8");
    const dc = await startDovecot(messages, cert, key);
    try {
      const [a, b] = await measure([await open(inst.ports.imap!, username, password), await open(dc.port, "bench", "benchpass")]);
      const ours = report("inboxd ", a!);
      const theirs = report("dovecot", b!);
      console.log(
        `ratio inboxd/dovecot: FETCH ${(ours.fetch / theirs.fetch).toFixed(2)}x, SEARCH ${(ours.search / theirs.search).toFixed(2)}x (goal: FETCH within 1.5x), ` +
          `APPEND ${(ours.append / theirs.append).toFixed(2)}x, MOVE ${(ours.move / theirs.move).toFixed(2)}x; ` +
          `first FETCH (cold caches, sets \\Seen on every message) ${(a!.fetchMs[0]! / b!.fetchMs[0]!).toFixed(2)}x`,
      );
    } finally {
      dc.stop();
    }
  }
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await inst.stop();
  inst.cleanup();
}
process.exit(exitCode);
