// The search index under contention (issue 19: the scale bench logged one SQLITE_BUSY from the
// search worker). The cause: the main connection began every transaction with BEGIN IMMEDIATE,
// which write-locks every attached database, inboxd-search.db included, so each transaction of
// the main connection also locked the index against its worker. Back-to-back commits (the bench's
// seeding, a burst) starved the worker past busy_timeout; its batch rolled back (nothing lost:
// applied again later) but a search waiting for the index gave up after 5 s and answered without
// messages already acknowledged. Now a transaction locks inboxd.db only. Real processes, threads
// and files: an inboxd, SMTP, HTTP, a second thread writing the search database.
import { afterAll, beforeAll, expect } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { openSqliteStorage } from "../../src/storage/sqlite";
import { json, startInboxd, type Instance } from "../support/harness";
import { createInbox, transport } from "../support/mail";
import { openDataFile } from "../support/sqlite-file";
import { sqliteOnly } from "../support/test-database";

let inst: Instance;
let inbox: { id: string; address: string };
beforeAll(async () => {
  inst = await startInboxd();
  inbox = await createInbox(inst, { name: "search-contention" });
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

async function find(q: string): Promise<string[]> {
  const r = await json(inst.api(`/v1/inboxes/${inbox.id}/messages?${new URLSearchParams({ q, limit: "100" })}`));
  expect(r.status).toBe(200);
  return (r.body.data as any[]).map((m) => m.id);
}

sqliteOnly("a second SQLite connection holds inboxd-search.db's write lock; PostgreSQL's index is a column of messages")(
  "with another connection writing the search database, every acknowledged message is found and no index batch fails",
  async () => {
    const writer = new Worker(new URL("../support/sqlite-writer.worker.ts", import.meta.url).href);
    const reports: Array<{ started?: boolean; held?: number }> = [];
    writer.onmessage = (e) => reports.push(e.data);
    writer.postMessage({
      file: join(inst.dataDir, "inboxd-search.db"),
      sql: "UPDATE search_progress SET last_seq = last_seq",
      holdMs: 10,
      gapMs: 10,
    });
    while (!reports.some((r) => r.started)) await Bun.sleep(5);
    const ids: string[] = [];
    const t = transport(inst);
    try {
      for (let i = 0; i < 60; i++) {
        const info = await t.sendMail({ from: "app@example.com", to: inbox.address, subject: `c ${i}`, text: `kestrel${i} and the flock` });
        ids.push(/stored ([0-9A-Z]{26})/.exec(info.response)![1]!);
        // A search right after each acknowledgement, while the lock keeps being taken.
        expect(await find(`kestrel${i}`)).toEqual([ids[i]!]);
      }
    } finally {
      t.close();
      writer.postMessage("stop");
    }
    while (!reports.some((r) => r.held !== undefined)) await Bun.sleep(5);
    writer.terminate();
    // The competitor really held the lock throughout, and the index has every message.
    expect(reports.find((r) => r.held !== undefined)!.held!).toBeGreaterThan(10);
    expect((await find("flock")).sort()).toEqual([...ids].sort());
    // A batch that met the lock waited for it instead of failing and rolling back.
    expect(inst.output()).not.toContain("index batch failed");
    expect(inst.output()).not.toContain("SQLITE_BUSY");
  },
);

sqliteOnly("holds a transaction open on inboxd.db and reads inboxd-search.db's FTS5 table directly")(
  "a transaction held open on inboxd.db does not lock the index: the worker applies the queue meanwhile",
  async () => {
    const t = transport(inst);
    let id: string;
    try {
      const info = await t.sendMail({ from: "app@example.com", to: inbox.address, subject: "held", text: "a lone osprey" });
      id = /stored ([0-9A-Z]{26})/.exec(info.response)![1]!;
    } finally {
      t.close();
    }
    await inst.stop();
    // Without its search database the storage queues every message again at open: work for the worker.
    const searchFile = join(inst.dataDir, "inboxd-search.db");
    for (const f of [searchFile, `${searchFile}-wal`, `${searchFile}-shm`]) rmSync(f, { force: true });
    const storage = openSqliteStorage(inst.dataDir);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let opened!: () => void;
    const isOpen = new Promise<void>((r) => (opened = r));
    // A transaction of the main connection, kept open (as a long delete or a burst of commits would).
    const tx = storage.transaction(async () => {
      opened();
      await held;
    });
    await isOpen;
    const other = openDataFile(searchFile);
    try {
      // Another writer gets the index's write lock at once: the open transaction does not hold it.
      other.exec("PRAGMA busy_timeout = 0");
      other.exec("BEGIN IMMEDIATE");
      other.exec("ROLLBACK");
      // The worker applied the rebuild while the transaction stays open: the message is in the index.
      await storage.searchable();
      const row = other.query("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'osprey'").all() as Array<{ rowid: number }>;
      expect(row).toHaveLength(1);
    } finally {
      other.close();
      release();
      await tx;
      await storage.close();
    }
    // And the server finds it after a restart.
    inst = await inst.restart();
    expect(await find("osprey")).toEqual([id]);
  },
);
