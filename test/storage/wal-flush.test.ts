// The SQLite connection's commit durability (src/storage/sqlite/connection.ts, wal-sync.ts): a
// transaction resolves once its commit is on disk; one that changed no row has nothing to flush;
// a caller that says it waits for nothing else (flushInline) gets its flush on its own thread when
// no other flush is under way. Durability across a kill -9 is test/mail/crash.test.ts.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteConnection } from "../../src/storage/sqlite/connection";
import { openDatabase } from "../../src/storage/sqlite/database";

let dir: string;
let c: SqliteConnection;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "inboxd-wal-"));
  c = new SqliteConnection(openDatabase(join(dir, "inboxd.db")));
  // The first flush opens the WAL's file handle (on the pool); later ones may go inline.
  await c.transaction(async () => void c.run("INSERT INTO instance_meta (name, value, created_at) VALUES ('t0', 'x', 'now')"));
});

afterAll(async () => {
  await c.wal.close();
  c.db.close();
  rmSync(dir, { recursive: true, force: true });
});

const flushes = () => c.wal.flushes.inline + c.wal.flushes.pool;

test("a transaction that changed no row resolves without a flush; one that did is flushed once", async () => {
  const before = flushes();
  await c.transaction(async () => void c.get("SELECT COUNT(*) FROM instance_meta"));
  await c.transaction(async () => void c.run("UPDATE instance_meta SET value = 'y' WHERE name = 'nobody'"));
  expect(flushes()).toBe(before);
  await c.transaction(async () => void c.run("INSERT INTO instance_meta (name, value, created_at) VALUES ('t1', 'x', 'now')"));
  expect(flushes()).toBe(before + 1);
});

test("flushInline flushes on the calling thread when no flush is under way, else joins the pool's", async () => {
  const { inline, pool } = c.wal.flushes;
  await c.transaction(async () => void c.run("INSERT INTO instance_meta (name, value, created_at) VALUES ('t2', 'x', 'now')"), true);
  expect(c.wal.flushes.inline).toBe(inline + 1);
  expect(c.wal.flushes.pool).toBe(pool);
  // Two at once: the first flushes on the pool, so the second may not go inline meanwhile.
  const a = c.transaction(async () => void c.run("INSERT INTO instance_meta (name, value, created_at) VALUES ('t3', 'x', 'now')"));
  const b = c.transaction(async () => void c.run("INSERT INTO instance_meta (name, value, created_at) VALUES ('t4', 'x', 'now')"), true);
  await Promise.all([a, b]);
  expect(c.wal.flushes.inline).toBe(inline + 1);
  expect(c.wal.flushes.pool).toBeGreaterThan(pool);
  expect(c.get<{ n: number }>("SELECT COUNT(*) AS n FROM instance_meta WHERE name IN ('t2', 't3', 't4')")!.n).toBe(3);
});
