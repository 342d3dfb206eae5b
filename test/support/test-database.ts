// The suite's engine switch (issue 20): INBOXD_TEST_DATABASE=postgres makes every inboxd the tests
// start (harness.ts, in-process.ts) run on PostgreSQL, a fresh database each, on one server this
// test process starts on first use, stopped once the process is gone, however it ended (a watchdog,
// postgres.ts). Unset (or sqlite): SQLite in the data directory, as always.
// `bun scripts/test-postgres.ts` runs the whole suite that way.
//
// A data directory keeps its database: an instance restarted on the same directory (restart(), a
// second startInboxd(env, dir), a CLI command on inst.dataDir) finds the same data, as it would
// find inboxd.db on SQLite. Tests about SQLite itself skip through `sqliteOnly` with their reason
// (listed in docs/scaling.md).
import { describe, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type PostgresServer, startPostgres } from "./postgres";

export const testEngine: "sqlite" | "postgres" = process.env.INBOXD_TEST_DATABASE === "postgres" ? "postgres" : "sqlite";
export const onPostgres = testEngine === "postgres";

let server: Promise<PostgresServer> | null = null;
let migrated: Promise<string> | null = null;
const databases = new Map<string, string>();

function sharedServer(): Promise<PostgresServer> {
  // Never stopped here: its watchdog stops it once this process is gone (watchdog.ts).
  server ??= startPostgres({ maxConnections: 1000 });
  return server;
}

/**
 * The name of a database of the shared server that every migration has run on, made once: each
 * instance's database is a copy of it. Copying takes ~0.2-0.3 s where an empty database then migrated
 * by the server took ~0.4-0.55 s, and a pass starts some hundreds of instances (docs/decisions.md, "The
 * suite on the executable"). The migrations are the server's own (openPostgresStorage, as `inboxd serve`
 * runs them); the server still checks them at every start, and finds them applied.
 */
function migratedTemplate(pg: PostgresServer): Promise<string> {
  migrated ??= (async () => {
    const url = await pg.newDatabase();
    const { openPostgresStorage } = await import("../../src/storage/postgres");
    const spoolDir = mkdtempSync(join(tmpdir(), "inboxd-pg-template-spool-"));
    try {
      await (await openPostgresStorage(url, { spoolDir })).close();
    } finally {
      rmSync(spoolDir, { recursive: true, force: true });
    }
    return url.slice(url.lastIndexOf("/") + 1);
  })();
  return migrated;
}

/**
 * The settings that put an instance on `dataDir` on the engine under test: {} on SQLite, else
 * INBOXD_DATABASE_URL of the directory's database (made fresh the first time the directory is seen).
 */
export async function databaseEnv(dataDir: string): Promise<Record<string, string>> {
  if (!onPostgres) return {};
  const key = resolve(dataDir);
  let url = databases.get(key);
  if (!url) {
    const pg = await sharedServer();
    url = await pg.newDatabase(await migratedTemplate(pg));
    databases.set(key, url);
  }
  return { INBOXD_DATABASE_URL: url };
}

/** The same, for a directory an instance already ran on (a CLI command after the server): never a new database. */
export function knownDatabaseEnv(dataDir: string): Record<string, string> {
  const url = databases.get(resolve(dataDir));
  return url ? { INBOXD_DATABASE_URL: url } : {};
}

/** `describe`, skipped with its reason when the suite runs on PostgreSQL. */
export function sqliteOnlyDescribe(reason: string): typeof describe {
  return onPostgres ? (((name: string, fn: any) => describe.skip(`${name} [SQLite only: ${reason}]`, fn)) as typeof describe) : describe;
}

/** `test`, skipped with its reason when the suite runs on PostgreSQL: for tests about SQLite itself. */
export function sqliteOnly(reason: string): typeof test {
  return onPostgres ? (((name: string, fn: any, t?: any) => test.skip(`${name} [SQLite only: ${reason}]`, fn, t)) as typeof test) : test;
}
