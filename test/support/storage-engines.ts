import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "../../src/storage";
import { openPostgresStorage } from "../../src/storage/postgres";
import { openSqliteStorage } from "../../src/storage/sqlite";
import { type PostgresServer, postgresBinDir, postgresRequired, startPostgres } from "./postgres";
import { needs } from "./components";

/** Both engines are a whole Storage. */
export type Engine = Storage;

export interface EngineUnderTest {
  name: "sqlite" | "postgres";
  /** false: skip (no PostgreSQL binaries, and the run does not require them: components.ts). */
  available: boolean;
  open(): Promise<Engine>;
  stop(): Promise<void>;
  /** Where the open store lives (SQLite: its data directory; PostgreSQL: its URL), for test-side rows (message-rows.ts). */
  location(): string;
}

/** The two engines; call once per test file (it registers the "skipped" notice when PostgreSQL is missing). */
export function storageEngines(): EngineUnderTest[] {
  const bin = postgresBinDir();
  needs("postgres", bin !== null, "apt-get install postgresql");
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
