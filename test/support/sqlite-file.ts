// The database file as an outside inspector sees it (what an operator does with the sqlite3
// CLI): the one test-side place that opens it. Tests use it to check data at rest (no secret in
// plaintext), to move time (an expiry in the past) and to change a row behind the server's back.
// The server itself reaches the file only through src/storage/.
import { Database } from "bun:sqlite";
import { join } from "node:path";

export type DatabaseFile = Database;

/** Opens <dataDir>/inboxd.db, runs fn, closes it. Waits for the server's locks rather than failing. */
export function withDatabaseFile<T>(dataDir: string, fn: (db: DatabaseFile) => T, opts: { readonly?: boolean } = {}): T {
  const db = new Database(join(dataDir, "inboxd.db"), opts.readonly ? { readonly: true } : {});
  try {
    if (!opts.readonly) db.exec("PRAGMA busy_timeout = 5000");
    return fn(db);
  } finally {
    db.close();
  }
}

/**
 * Opens another database file of the data directory (e.g. "inboxd-search.db") as a second
 * connection that stays open: a competing writer or reader, as a backup tool or the sqlite3 shell
 * would be. The caller closes it.
 */
export function openDataFile(path: string): DatabaseFile {
  return new Database(path, { readwrite: true, create: false });
}
