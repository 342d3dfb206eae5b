// The one place that chooses the storage engine (issue 20, docs/scaling.md): SQLite in the data
// directory by default, PostgreSQL when INBOXD_DATABASE_URL is a postgres:// URL. The server and
// every CLI command open storage through here, so none of them knows which engine runs.
//
// On PostgreSQL the data directory still holds what belongs to one node: the lock file, the
// generated TLS key and certificate, secret.key when INBOXD_SECRET_KEY is not set (nodes sharing
// a database must share the key, so set it there), and `spool/`, where large incoming messages
// are written as they arrive before they go into the database.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Storage } from ".";
import { openPostgresStorage } from "./postgres";
import { openSqliteStorage } from "./sqlite";

export type StorageEngine = "sqlite" | "postgres";

export interface StorageLocation {
  dataDir: string;
  databaseUrl: string | null;
}

export function storageEngine(where: StorageLocation): StorageEngine {
  return where.databaseUrl ? "postgres" : "sqlite";
}

/** Opens (and migrates) the configured engine. dataDir must exist. */
export async function openStorage(where: StorageLocation): Promise<Storage> {
  if (where.databaseUrl) return openPostgresStorage(where.databaseUrl, { spoolDir: join(where.dataDir, "spool") });
  return openSqliteStorage(where.dataDir);
}

/**
 * Whether a command that works on existing data has any to work on. SQLite: the database file in
 * the data directory. PostgreSQL: the database is the data (a fresh one is migrated on open; the
 * commands then find no users or messages, which is their own answer).
 */
export function storageExists(where: StorageLocation): boolean {
  return storageEngine(where) === "postgres" || existsSync(join(where.dataDir, "inboxd.db"));
}
