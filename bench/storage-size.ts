// Storage benchmark (issue 19): bytes on disk per received message against its raw size, with
// where the bytes go (SQLite's dbstat, per table and its indexes), and what MailDev would keep
// (one .eml file per message). Messages come from the realistic corpus in bench/corpus.ts
// (ESP-style transactional mail, ~14 KB on average) and are delivered over SMTP, so every row a real
// delivery writes is there (message, raw blob, search index, event log).
//   bun bench/storage-size.ts [--messages 2000] [--connections 4] [--data-dir DIR]
// With --data-dir an existing stopped data directory is measured as it is (no delivery).
import { statSync } from "node:fs";
import { join } from "node:path";
import { storedMessages, tableSizes } from "../src/storage/sqlite/disk-usage";
import { json, startInboxd } from "../test/support/harness";
import { corpusMessage } from "./corpus";
import { arg, machineLine, SmtpClient } from "./support";

const TOTAL = arg("messages", 2000);
const CONNECTIONS = arg("connections", 4);
const dirArg = process.argv.indexOf("--data-dir");
const enc = new TextEncoder();

function du(path: string): number {
  return Number(Bun.spawnSync(["du", "-sb", path]).stdout.toString().split("\t")[0]);
}

/** Dot-stuffed DATA content with its terminating line. */
const dataOf = (text: string): Uint8Array =>
  enc.encode(text.replace(/(^|\r\n)\./g, "$1..") + (text.endsWith("\r\n") ? "" : "\r\n") + ".\r\n");

async function deliver(port: number, to: string, total: number): Promise<number> {
  let next = 0;
  let raw = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      const c = await SmtpClient.open(port);
      for (let i = next++; i < total; i = next++) {
        const codes = await c.send(enc.encode(`MAIL FROM:<bench@example.com>\r\nRCPT TO:<${to}>\r\nDATA\r\n`), 3);
        if (codes.join() !== "250,250,354") throw new Error(`envelope refused: ${codes} ${c.last}`);
        const text = corpusMessage(i, to);
        raw += enc.encode(text).byteLength;
        const [code] = await c.send(dataOf(text), 1);
        if (code !== 250) throw new Error(`DATA refused: ${c.last}`);
      }
      c.close();
    }),
  );
  return raw;
}

function report(dataDir: string, messages: number, raw: number): void {
  const dbPath = join(dataDir, "inboxd.db");
  const dirBytes = du(dataDir);
  const searchPath = join(dataDir, "inboxd-search.db");
  const rows = [...tableSizes(dbPath), ...tableSizes(searchPath).map((r) => ({ ...r, table: `search: ${r.table}` }))];
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  console.log(
    `messages: ${messages}, raw ${kb(raw / messages)} each on average (MailDev-like .eml files: ${kb(raw / messages)} of content, ${kb(Math.ceil(raw / messages / 4096) * 4096)} in 4 KiB blocks)`,
  );
  console.log(
    `data directory: ${kb(dirBytes / messages)} per message = ${(dirBytes / raw).toFixed(2)}x raw (database file ${kb(statSync(dbPath).size / messages)}, search index file ${kb(statSync(searchPath).size / messages)} per message)`,
  );
  for (const r of rows.filter((r) => r.bytes / messages >= 20)) {
    console.log(
      `  ${r.table.padEnd(24)} ${kb(r.bytes / messages).padStart(10)} per message (${((100 * r.unused) / r.bytes).toFixed(0)} % of its pages unused)`,
    );
  }
  console.log(`goal: <= 1.5x raw (${dirBytes / raw <= 1.5 ? "met" : "not met"})`);
}

console.log(machineLine());
if (dirArg > 0) {
  const dir = process.argv[dirArg + 1]!;
  const { count, rawBytes } = storedMessages(join(dir, "inboxd.db"));
  report(dir, count, rawBytes);
} else {
  const inst = await startInboxd({ INBOXD_PLAN: "business" });
  try {
    const inbox = (await json(inst.api("/v1/inboxes", { method: "POST", json: { name: "storage" } }))).body.data;
    const raw = await deliver(inst.ports.smtp!, inbox.address, TOTAL);
    const count = (await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data.message_count;
    if (count !== TOTAL) throw new Error(`stored ${count} of ${TOTAL}`);
    await Bun.sleep(2000); // the search indexer works behind ingest
    await inst.stop(); // checkpoints the WAL
    report(inst.dataDir, TOTAL, raw);
  } finally {
    if (!process.argv.includes("--keep")) inst.cleanup();
    else console.log(`kept ${inst.dataDir}`);
  }
}
