// The embedded engine: one SQLite database (WAL) plus the file-system blob store, with blobs up to
// INLINE_MAX bytes kept in the database itself (blobs-tiered.ts).
import { join } from "node:path";
import type { Repositories, Storage, Transaction } from "..";
import { FsBlobStore } from "../blobs/fs";
import { TieredBlobStore } from "./blobs-tiered";
import { openDatabase, type Db } from "./database";
import { gated, SqliteConnection } from "./connection";
import { sqliteTenancyRepositories } from "./tenancy";
import { sqliteMailRepositories } from "./mail";
import { sqliteDomainsRepositories } from "./domains";
import { sqliteEventsRepositories } from "./events";
import { sqliteAutomationRepositories } from "./automation";

function repositories(c: SqliteConnection): Repositories {
  return {
    ...sqliteTenancyRepositories(c),
    ...sqliteMailRepositories(c),
    ...sqliteDomainsRepositories(c),
    ...sqliteEventsRepositories(c),
    ...sqliteAutomationRepositories(c),
  };
}

export interface SqliteStorage extends Storage {
  /** Transitional: the raw handle for code not yet behind a repository. Removed when none is left. */
  readonly legacy: Db;
}

export function openSqliteStorage(dataDir: string): SqliteStorage {
  const legacy = openDatabase(join(dataDir, "inboxd.db"));
  const c = new SqliteConnection(legacy.sqlite);
  const direct = repositories(c);
  const blobs = new TieredBlobStore(new FsBlobStore(join(dataDir, "blobs")), c);
  const tx: Transaction = {
    ...direct,
    savepoint: (fn) => c.savepoint(() => fn(tx)),
    putInlineBlob: async (key, bytes) => blobs.putInline(key, bytes),
  };
  const outside = Object.fromEntries(Object.entries(direct).map(([name, repo]) => [name, gated(repo as object, c)]));
  return {
    ...(outside as unknown as Repositories),
    legacy,
    blobs,
    transaction: (fn) => c.transaction(() => fn(tx)),
    close: async () => {
      await c.wal.close();
      legacy.close();
    },
  };
}
