// Both storage engines for the repository conformance tests (test/storage/*-conformance.test.ts):
// SQLite in a temporary data directory, and PostgreSQL on a server the test file starts itself
// (test/support/postgres.ts). Each entry opens a fresh, migrated store and stops what it started.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "../../src/storage";
import { openPostgresStorage } from "../../src/storage/postgres";
import { openSqliteStorage } from "../../src/storage/sqlite";
import { type PostgresServer, postgresBinDir, postgresMissing, postgresRequired, startPostgres } from "./postgres";

/** Both engines are a whole Storage. */
export type Engine = Storage;

export interface EngineUnderTest {
  name: "sqlite" | "postgres";
  /** false: skip (no PostgreSQL binaries and INBOXD_REQUIRE_POSTGRES unset). */
  available: boolean;
  open(): Promise<Engine>;
  stop(): Promise<void>;
  /** Where the open store lives (SQLite: its data directory; PostgreSQL: its URL), for test-side rows (message-rows.ts). */
  location(): string;
}

/** The two engines; call once per test file (it registers the "skipped" notice when PostgreSQL is missing). */
export function storageEngines(): EngineUnderTest[] {
  const bin = postgresBinDir();
  if (!bin) {
    test(postgresMissing, () => {
      expect(process.env.INBOXD_REQUIRE_POSTGRES).not.toBe("1");
    });
  }
  let pg: PostgresServer | null = null;
  let dir: string | null = null;
  return [
    {
      name: "sqlite",
      available: true,
      open: async () => {
        dir = mkdtempSync(join(tmpdir(), "inboxd-conformance-"));
        return openSqliteStorage(dir);
      },
      stop: async () => {
        if (dir) rmSync(dir, { recursive: true, force: true });
      },
      location: () => dir!,
    },
    {
      name: "postgres",
      available: !!bin || postgresRequired,
      open: async () => {
        pg = await startPostgres();
        return openPostgresStorage(pg.url, { max: 4 });
      },
      stop: async () => {
        await pg?.stop();
      },
      location: () => pg!.url,
    },
  ];
}
