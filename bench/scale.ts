// Scale benchmark (issue 19): the same operations at 1,000, 100,000 and 1,000,000 stored messages
// of ~2 KB, 90 % of them in one inbox, with a prober asking /healthz every 50 ms. For each size it
// prints, per operation, the time it took and the longest /healthz answer while it ran (how long
// the server stood still), plus bytes on disk per message and the server's peak RSS.
//   bun bench/scale.ts [--top 1000000] [--sizes 1000,100000,1000000] [--data DIR] [--no-delete]
// --data DIR seeds into DIR and keeps it (its inboxes and counts in DIR/scale-state.json); a later
// run with the same DIR seeds only what is missing, so 1M is seeded once and measured many times.
// --no-delete skips the DELETE-of-an-inbox measurement (it seeds 10k more each time).
// Messages are written straight through the storage layer (the ingest transaction's rows: uid,
// message row, inline raw blob, search queue), not over SMTP, so 1M takes minutes rather than
// hours; the server is stopped while seeding and started again to measure. No event-log rows are
// seeded (SMTP delivery would add one per message). Seeding 1M took 357 s on 2 shared cores.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import tls from "node:tls";
import { json, startInboxd, type Instance } from "../test/support/harness";
import { Pop3Client } from "../test/support/pop3-client";
import { arg, machineLine } from "./support";
import { prober } from "./healthz-prober";
import { type Box, seed } from "./scale-seed";

const TOP = arg("top", 1_000_000);
const sizesArg = process.argv.indexOf("--sizes");
const SIZES = (sizesArg > 0 ? process.argv[sizesArg + 1]!.split(",").map(Number) : [1000, 100_000, 1_000_000]).filter((n) => n <= TOP);
const SMALL_INBOXES = 9;
const dataArg = process.argv.indexOf("--data");
const DATA_DIR = dataArg > 0 ? process.argv[dataArg + 1]! : undefined;
const DELETE = !process.argv.includes("--no-delete");

/** What a kept data directory holds (--data): its inboxes and how far each was seeded. */
interface SeedState {
  big: Box;
  smalls: Box[];
  seeded: number;
  bigCount: number;
  newest: Newest;
}
const statePath = (dir: string) => join(dir, "scale-state.json");

/** A minimal IMAP client over implicit TLS: a tagged command and its whole response text. */
class Imap {
  private text = "";
  private waiter: { tag: string; resolve: (s: string) => void } | null = null;
  private n = 0;
  private constructor(private readonly socket: tls.TLSSocket) {
    socket.on("data", (d: Buffer) => {
      this.text += d.toString("latin1");
      const w = this.waiter;
      if (w && new RegExp(`(?:^|\\r\\n)${w.tag} (OK|NO|BAD)[^\\r]*\\r\\n$`).test(this.text.slice(-2048))) {
        this.waiter = null;
        w.resolve(this.text);
      }
    });
  }
  static async open(port: number): Promise<Imap> {
    const s = tls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false });
    await new Promise<void>((res, rej) => {
      s.once("secureConnect", () => res());
      s.once("error", rej);
    });
    const c = new Imap(s);
    await new Promise((r) => setTimeout(r, 50));
    return c;
  }
  async cmd(command: string): Promise<string> {
    const tag = `s${++this.n}`;
    this.text = "";
    const done = new Promise<string>((resolve) => (this.waiter = { tag, resolve }));
    this.socket.write(`${tag} ${command}\r\n`);
    const text = await done;
    if (!new RegExp(`${tag} OK`).test(text)) throw new Error(`${command}: ${text.slice(-300)}`);
    return text;
  }
  close(): void {
    this.socket.destroy();
  }
}

const rss = (pid: number) => {
  const s = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
};

function du(dir: string): number {
  const out = Bun.spawnSync(["du", "-sb", dir]).stdout.toString();
  return Number(out.split("\t")[0]);
}

/** The message seeded last: an inbox and a word only that message holds. */
interface Newest {
  box: Box;
  token: string;
}

async function measureAt(inst: Instance, big: Box, total: number, bigCount: number, newest: Newest): Promise<void> {
  const probe = prober(inst.url);
  await Bun.sleep(200);
  const rows: string[] = [];
  const time = async (name: string, fn: () => Promise<string | undefined>) => {
    probe.reset();
    const t = performance.now();
    const note = await fn();
    const ms = performance.now() - t;
    await Bun.sleep(60); // let a probe stuck behind the operation come back
    rows.push(
      `  ${name.padEnd(34)} ${ms.toFixed(1).padStart(9)} ms   healthz max ${probe.worst().toFixed(1).padStart(8)} ms${note ? `   ${note}` : ""}`,
    );
  };
  try {
    // The full-text index catches up in its worker after a restart; wait for the message seeded
    // last (the small inboxes are seeded after the big one: waiting for the big one's newest left
    // ~100,000 entries to apply at 1M, and every search and list page waits for the index).
    const t0 = performance.now();
    for (;;) {
      const r = await json(inst.api(`/v1/inboxes/${newest.box.id}/messages?q=${newest.token}&limit=1`));
      if (r.body?.data?.length) break;
      if (performance.now() - t0 > 3600_000) throw new Error("search index did not catch up");
      await Bun.sleep(1000);
    }
    console.log(`  (search index caught up ${((performance.now() - t0) / 1000).toFixed(1)} s after start)`);

    await time("GET /v1/usage", async () => {
      const r = await json(inst.api("/v1/usage"));
      return `messages=${r.body.data?.usage?.messages ?? JSON.stringify(r.body).slice(0, 80)}`;
    });
    await time("GET /v1/usage (again)", async () => void (await json(inst.api("/v1/usage"))));
    let imap!: Imap;
    await time("IMAP LOGIN + SELECT big inbox", async () => {
      imap = await Imap.open(inst.ports.imap!);
      await imap.cmd(`LOGIN "${big.address}" "${big.password}"`);
      const sel = await imap.cmd("SELECT INBOX");
      return `${/\* (\d+) EXISTS/.exec(sel)?.[1]} EXISTS`;
    });
    // The first command after SELECT: the view fills in the background from a snapshot, and a
    // command waits only for the part it names (view-need.ts); `*` needs the whole view. SELECT and
    // the command in one timing: time() pauses after each operation, long enough for a fill.
    await time("IMAP SELECT alone (again)", async () => {
      const r = await imap.cmd("SELECT INBOX");
      return `${/\* (\d+) EXISTS/.exec(r)?.[1]} EXISTS`;
    });
    await time("IMAP SELECT + FETCH 1:100", async () => {
      await imap.cmd("SELECT INBOX");
      const r = await imap.cmd("FETCH 1:100 (FLAGS RFC822.SIZE)");
      return `${r.length} bytes`;
    });
    await time("IMAP SELECT + UID FETCH 1:50", async () => {
      await imap.cmd("SELECT INBOX");
      const r = await imap.cmd("UID FETCH 1:50 (FLAGS)");
      return `${r.length} bytes`;
    });
    await time("IMAP SELECT + FETCH * (whole view)", async () => {
      await imap.cmd("SELECT INBOX");
      const r = await imap.cmd("FETCH * (UID)");
      return (/\* \d+ FETCH[^\r]*/.exec(r)?.[0] ?? "").trim();
    });
    await time("IMAP STATUS INBOX", async () => {
      const r = await imap.cmd("STATUS INBOX (MESSAGES UNSEEN UIDNEXT)");
      return /\* STATUS[^\r]*/.exec(r)?.[0];
    });
    await time("IMAP SEARCH BODY (one hit)", async () => {
      const r = await imap.cmd(`SEARCH BODY "seedtok${Math.floor(bigCount / 2)}"`);
      return (/\* SEARCH([^\r]*)/.exec(r)?.[1] ?? "").trim();
    });
    await time("IMAP FETCH 1:100 (view filled)", async () => {
      const r = await imap.cmd("FETCH 1:100 (FLAGS RFC822.SIZE)");
      return `${r.length} bytes`;
    });
    await imap.cmd("LOGOUT").catch(() => {});
    imap.close();
    // Log-in + STAT answer from counters; LIST names every message (its output grows, it streams).
    let pop!: Pop3Client;
    await time("POP3 log-in + STAT", async () => {
      pop = await Pop3Client.connect(inst.ports.pop3!);
      await pop.line();
      await pop.login(big.address, big.password);
      return await pop.cmd("STAT");
    });
    await time("POP3 LIST (all)", async () => {
      const list = await pop.multi("LIST");
      await pop.cmd("QUIT").catch(() => {});
      return `LIST ${list.body.length} bytes`;
    });
    await time("list page (GET …/messages?limit=20)", async () => void (await json(inst.api(`/v1/inboxes/${big.id}/messages?limit=20`))));
    await time("latest (GET …/messages/latest)", async () => void (await json(inst.api(`/v1/inboxes/${big.id}/messages/latest`))));
    const bytes = du(inst.dataDir);
    const mem = rss(inst.proc.pid);
    console.log(`${total.toLocaleString("en")} messages (${bigCount.toLocaleString("en")} in the big inbox)`);
    for (const r of rows) console.log(r);
    console.log(
      `  bytes on disk per message: ${(bytes / total).toFixed(0)} (data directory ${(bytes / 1048576).toFixed(0)} MiB); RSS ${mem.rss.toFixed(0)} MiB, peak ${mem.peak.toFixed(0)} MiB`,
    );
  } finally {
    probe.stop();
  }
}

/** DELETE of an inbox holding `n` messages, while the prober runs. */
async function deleteInboxAt(inst: Instance, n: number, make: () => Promise<Box>): Promise<void> {
  const box = await make();
  await inst.stop();
  await seed(inst.dataDir, box, 10_000_000, n);
  const again = await inst.restart();
  const probe = prober(again.url);
  await Bun.sleep(200);
  probe.reset();
  const t = performance.now();
  const r = await again.api(`/v1/inboxes/${box.id}`, { method: "DELETE" });
  const ms = performance.now() - t;
  await Bun.sleep(60);
  console.log(`  DELETE of a ${n}-message inbox: ${r.status} in ${ms.toFixed(1)} ms, healthz max ${probe.worst().toFixed(1)} ms`);
  probe.stop();
  await again.stop();
}

console.log(machineLine());
// As deployed: routes compiled at start-up (testEnv turns that off for tests).
const kept: SeedState | undefined =
  DATA_DIR && existsSync(statePath(DATA_DIR)) ? JSON.parse(readFileSync(statePath(DATA_DIR), "utf8")) : undefined;
let inst = await startInboxd({ INBOXD_PLAN: "", INBOXD_HTTP_PRECOMPILE: "on" }, DATA_DIR);
const dataDir = inst.dataDir;
const makeBox = async (i: Instance): Promise<Box> => {
  const ib = await json(i.api("/v1/inboxes", { method: "POST", json: { ttl_seconds: 2592000 } }));
  const cr = await json(i.api(`/v1/inboxes/${ib.body.data.id}/credentials`));
  return { id: ib.body.data.id, address: ib.body.data.address, password: cr.body.data.password, projectId: ib.body.data.project_id };
};
try {
  const big = kept?.big ?? (await makeBox(inst));
  if (!big.projectId) {
    const u = await json(inst.api("/v1/usage"));
    big.projectId = u.body.data.project.id;
  }
  const smalls: Box[] = kept?.smalls ?? [];
  if (!kept) for (let i = 0; i < SMALL_INBOXES; i++) smalls.push({ ...(await makeBox(inst)), projectId: big.projectId });
  let seeded = kept?.seeded ?? 0;
  let bigCount = kept?.bigCount ?? 0;
  for (const size of SIZES) {
    await inst.stop();
    if (size <= seeded) {
      // A kept directory already holds at least this many: measure what it holds.
      console.log(`\nkept data directory: ${seeded.toLocaleString("en")} messages seeded earlier`);
      const t1 = performance.now();
      inst = await inst.restart();
      console.log(`  start-up ${(performance.now() - t1).toFixed(0)} ms`);
      await measureAt(inst, big, seeded, bigCount, kept!.newest);
      continue;
    }
    const t = performance.now();
    const addBig = Math.round(size * 0.9) - bigCount;
    await seed(dataDir, big, bigCount, addBig);
    bigCount += addBig;
    const rest = size - seeded - addBig;
    let newest: Newest = { box: big, token: `seedtok${bigCount - 1}` };
    for (let i = 0; i < SMALL_INBOXES; i++) {
      const n = Math.floor(rest / SMALL_INBOXES) + (i < rest % SMALL_INBOXES ? 1 : 0);
      const from = 20_000_000 + seeded + i * 1_000_000;
      await seed(dataDir, smalls[i]!, from, n);
      if (n > 0) newest = { box: smalls[i]!, token: `seedtok${from + n - 1}` };
    }
    seeded = size;
    if (DATA_DIR) writeFileSync(statePath(DATA_DIR), JSON.stringify({ big, smalls, seeded, bigCount, newest } satisfies SeedState));
    console.log(`\nseeded to ${size.toLocaleString("en")} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const t1 = performance.now();
    inst = await inst.restart();
    console.log(`  start-up ${(performance.now() - t1).toFixed(0)} ms`);
    await measureAt(inst, big, size, bigCount, newest);
    if (DELETE && size >= 10_000) {
      const n = Math.min(10_000, size / 10);
      const box = { ...(await makeBox(inst)), projectId: big.projectId };
      await deleteInboxAt(inst, n, async () => box);
      inst = await inst.restart();
    }
  }
} finally {
  await inst.stop();
  if (!process.argv.includes("--keep") && !DATA_DIR) inst.cleanup();
  else console.log(`data directory kept: ${dataDir}`);
}
process.exit(0);
