// CONDSTORE/QRESYNC benchmark (issue 21): what the modification sequences cost and save.
// N messages APPENDed (pipelined LITERAL+) into INBOX of a real inboxd, then over TLS, median of
// R runs: STORE of a flag on all N and back (every row gets a new modseq in the statement that
// changes it), SELECT, and, after 10 flag changes and 10 expunges by another session, the
// resynchronisation a client does: FETCH 1:* (FLAGS) (CHANGEDSINCE h) against FETCH 1:* (FLAGS),
// and SELECT … (QRESYNC …). On a server without CONDSTORE (an older checkout) only STORE and
// SELECT are timed, for comparison.
//   bun bench/condstore.ts [--messages N] [--runs R]
import tls from "node:tls";
import { json, startInboxd } from "../test/support/harness";
import { arg, machineLine, pct } from "./support";

const TOTAL = arg("messages", 5000);
const RUNS = arg("runs", 5);

class Client {
  private buf = "";
  private waiter: { tag: string; resolve: (s: string) => void } | null = null;
  private n = 0;
  private constructor(private readonly socket: tls.TLSSocket) {
    socket.on("data", (d: Buffer) => {
      this.buf += d.toString("latin1");
      const w = this.waiter;
      if (w && new RegExp(`(?:^|\\r\\n)${w.tag} (OK|NO|BAD)[^\\r]*\\r\\n$`).test(this.buf)) {
        this.waiter = null;
        w.resolve(this.buf);
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
    await new Promise((r) => setTimeout(r, 50));
    return c;
  }

  async cmd(command: string): Promise<string> {
    const tag = `b${++this.n}`;
    this.buf = "";
    const done = new Promise<string>((resolve) => (this.waiter = { tag, resolve }));
    this.socket.write(`${tag} ${command}\r\n`);
    const text = await done;
    if (!new RegExp(`${tag} OK`).test(text)) throw new Error(`${command}: ${text.slice(-300)}`);
    return text;
  }

  /** Pipelines APPENDs with LITERAL+ and waits for the last one. */
  async appendAll(msgs: string[]): Promise<void> {
    const last = `b${this.n + msgs.length}`;
    this.buf = "";
    const done = new Promise<string>((resolve) => (this.waiter = { tag: last, resolve }));
    for (const m of msgs) this.socket.write(`b${++this.n} APPEND INBOX {${m.length}+}\r\n${m}\r\n`);
    await done;
  }

  close(): void {
    this.socket.destroy();
  }
}

const timed = async (f: () => Promise<unknown>): Promise<number> => {
  const t = performance.now();
  await f();
  return performance.now() - t;
};
const med = (xs: number[]) => pct(xs, 50).toFixed(1);

const inst = await startInboxd();
try {
  const ib = await json(inst.api("/v1/inboxes", { method: "POST", json: {} }));
  const cr = await json(inst.api(`/v1/inboxes/${ib.body.data.id}/credentials`));
  const login = `LOGIN "${ib.body.data.address}" "${cr.body.data.password}"`;
  const a = await Client.open(inst.ports.imap!);
  await a.cmd(login);
  const caps = await a.cmd("CAPABILITY");
  const condstore = caps.includes(" CONDSTORE");
  const msgs = Array.from({ length: TOTAL }, (_, i) => `Subject: bench ${i}\r\nFrom: b@example.com\r\n\r\nbody ${i}\r\n`);
  for (let i = 0; i < msgs.length; i += 500) await a.appendAll(msgs.slice(i, i + 500));
  await a.cmd("SELECT INBOX");
  // STORE is timed on a session that never enables CONDSTORE: the storage cost alone, comparable
  // with a server without it (a CONDSTORE session also gets every new MODSEQ back, even .SILENT).
  const w = await Client.open(inst.ports.imap!);
  await w.cmd(login);
  await w.cmd("SELECT INBOX");
  const store: number[] = [];
  const select: number[] = [];
  const full: number[] = [];
  const changed: number[] = [];
  const qresync: number[] = [];
  let sizes = "";
  for (let r = 0; r < RUNS; r++) {
    store.push(await timed(() => w.cmd("STORE 1:* +FLAGS.SILENT (\\Flagged)")));
    store.push(await timed(() => w.cmd("STORE 1:* -FLAGS.SILENT (\\Flagged)")));
    await w.cmd("NOOP");
    select.push(await timed(() => a.cmd("SELECT INBOX")));
    if (!condstore) continue;
    const sel = await a.cmd("SELECT INBOX");
    const h = /HIGHESTMODSEQ (\d+)/.exec(sel.match(/HIGHESTMODSEQ \d+/)![0])![1];
    const uv = /UIDVALIDITY (\d+)/.exec(sel)![1];
    // Another session changes 10 messages and expunges 10.
    const b = await Client.open(inst.ports.imap!);
    await b.cmd(login);
    await b.cmd("SELECT INBOX");
    await b.cmd(`STORE ${r * 20 + 1}:${r * 20 + 10} +FLAGS (\\Seen)`);
    await b.cmd(`STORE ${r * 20 + 11}:${r * 20 + 20} +FLAGS (\\Deleted)`);
    await b.cmd("EXPUNGE");
    b.close();
    await a.cmd("NOOP");
    let fullText = "";
    let changedText = "";
    full.push(await timed(async () => (fullText = await a.cmd("FETCH 1:* (UID FLAGS)"))));
    changed.push(await timed(async () => (changedText = await a.cmd(`FETCH 1:* (UID FLAGS) (CHANGEDSINCE ${h})`))));
    await a.cmd("ENABLE QRESYNC").catch(() => {});
    qresync.push(await timed(() => a.cmd(`SELECT INBOX (QRESYNC (${uv} ${h}))`)));
    sizes = `${fullText.length} bytes for every message, ${changedText.length} for the changed ones`;
  }
  a.close();
  w.close();
  console.log(machineLine());
  console.log(`${TOTAL} messages, ${RUNS} runs, server ${condstore ? "with" : "without"} CONDSTORE; medians:`);
  console.log(`  STORE 1:* ±FLAGS.SILENT (\\Flagged)   ${med(store)} ms`);
  console.log(`  SELECT INBOX                        ${med(select)} ms`);
  if (condstore) {
    console.log(`  FETCH 1:* (UID FLAGS)               ${med(full)} ms`);
    console.log(`  FETCH 1:* (UID FLAGS) (CHANGEDSINCE) ${med(changed)} ms  (${sizes})`);
    console.log(`  SELECT INBOX (QRESYNC (…))          ${med(qresync)} ms`);
  }
} finally {
  await inst.stop();
  inst.cleanup();
}
