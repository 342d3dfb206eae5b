// The database file as an outside inspector sees it (what an operator does with the sqlite3
// CLI): the one test-side place that opens it. Tests use it to check data at rest (no secret in
// plaintext), to move time (an expiry in the past) and to change a row behind the server's back.
// The server itself reaches the file only through src/storage/.
import { Database } from "bun:sqlite";
import { join } from "node:path";

export type DatabaseFile = Database;

/** Opens <dataDir>/inboxd.db (or opts.file), runs fn, closes it. Waits for the server's locks rather than failing. */
export function withDatabaseFile<T>(dataDir: string, fn: (db: DatabaseFile) => T, opts: { readonly?: boolean; file?: string } = {}): T {
  const db = new Database(join(dataDir, opts.file ?? "inboxd.db"), opts.readonly ? { readonly: true } : {});
  try {
    if (!opts.readonly) db.exec("PRAGMA busy_timeout = 5000");
    return fn(db);
  } finally {
    db.close();
  }
}

/**
 * Puts a database back into the shape the version before migration 0029 left it in (UIDs unique
 * per inbox: the table constraint UNIQUE (inbox_id, uid), no per-mailbox UID indexes, no
 * last_folder_uid_validity) and marks 0029 as not applied, so the next start migrates it again.
 * `before` runs first in the same transaction (e.g. to renumber rows as the old version would have).
 * Rowids are kept, as the real migration keeps them.
 */
export function undoUidsPerMailbox(db: DatabaseFile, before: () => void = () => {}): void {
  const sql = (db.query("SELECT sql FROM sqlite_master WHERE name = 'messages'").get() as { sql: string }).sql;
  const deps = (
    db
      .query(
        "SELECT sql FROM sqlite_master WHERE tbl_name = 'messages' AND type IN ('index','trigger') AND sql IS NOT NULL AND name NOT LIKE 'messages_uid_%'",
      )
      .all() as { sql: string }[]
  ).map((d) => d.sql);
  const cols = (db.query("SELECT name FROM pragma_table_info('messages')").all() as { name: string }[]).map((c) => c.name).join(", ");
  db.exec("PRAGMA foreign_keys = OFF");
  db.transaction(() => {
    before();
    db.exec(sql.replace(/^CREATE TABLE "?messages"?/, "CREATE TABLE messages_old").replace(/\)\s*$/, ",\n  UNIQUE (inbox_id, uid)\n)"));
    db.exec(`INSERT INTO messages_old (rowid, ${cols}) SELECT rowid, ${cols} FROM messages`);
    db.exec("DROP TABLE messages");
    db.exec("ALTER TABLE messages_old RENAME TO messages");
    for (const d of deps) db.exec(d);
    db.exec("ALTER TABLE inboxes DROP COLUMN last_folder_uid_validity");
    db.exec("DELETE FROM schema_migrations WHERE version = 29");
  })();
}

/** Raises the UIDs of every message outside INBOX by `offset` (as one counter per inbox numbered them before 0029). */
export function shiftFolderUids(db: DatabaseFile, offset: number): void {
  db.query("UPDATE messages SET uid = uid + ? WHERE mailbox_id IS NOT NULL").run(offset);
}

/**
 * Opens another database file of the data directory (e.g. "inboxd-search.db") as a second
 * connection that stays open: a competing writer or reader, as a backup tool or the sqlite3 shell
 * would be. The caller closes it.
 */
export function openDataFile(path: string): DatabaseFile {
  return new Database(path, { readwrite: true, create: false });
}
