// Opens the SQLite database file with the pragmas every connection of ours relies on, and
// applies the versioned migrations.
import { Database } from "bun:sqlite";
import { migrations } from "./migrations";

/** How much of inboxd.db is memory-mapped (see openDatabase). */
export const MMAP_BYTES = 64 * 1024 * 1024;

export function openDatabase(file: string): Database {
  const sqlite = new Database(file, { create: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  // FULL: a commit is on disk before we answer (SMTP 250 promises durability).
  sqlite.exec("PRAGMA synchronous = FULL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA cache_size = -32000");
  // Savepoint journals (one savepoint per message of a group commit) in memory: Bun's SQLite is
  // built with TEMP_STORE=1, so they spilled to a temp file created, written and removed in
  // every group (openat, unlink, pwrite, close on the event loop; docs/benchmarks.md 2026-11-24).
  sqlite.exec("PRAGMA temp_store = MEMORY");
  // Reads of inline blobs and bodies come straight from the page cache instead of read() copies,
  // for the first 64 MiB of the file (a small deployment's whole database). Mapped pages a read
  // touched count in the process's RSS: at 256 MiB, one POP3 LIST or search over a large mailbox
  // added ~250 MB of it (RSS 525 MB at a million messages, goal < 500: issue 19). Past the map,
  // SQLite reads into its page cache (cache_size, bounded): as fast in the scale bench.
  sqlite.exec(`PRAGMA mmap_size = ${MMAP_BYTES}`);
  migrate(sqlite);
  return sqlite;
}

export function migrate(sqlite: Database): void {
  sqlite.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)");
  const applied = new Set((sqlite.query("SELECT version FROM schema_migrations").all() as { version: number }[]).map((r) => r.version));
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    // PRAGMA foreign_keys is a no-op inside a transaction: set around it.
    const fk = (sqlite.query("PRAGMA foreign_keys").get() as { foreign_keys: number }).foreign_keys;
    if (m.foreignKeysOff) sqlite.exec("PRAGMA foreign_keys = OFF");
    try {
      sqlite
        .transaction(() => {
          if (typeof m.sql === "string") sqlite.exec(m.sql);
          else m.sql(sqlite);
          if (m.foreignKeysOff && sqlite.query("PRAGMA foreign_key_check").all().length) {
            throw new Error(`migration ${m.version}: foreign keys broken`);
          }
          sqlite
            .query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)")
            .run(m.version, m.name, new Date().toISOString());
        })
        .immediate();
    } finally {
      if (m.foreignKeysOff) sqlite.exec(`PRAGMA foreign_keys = ${fk ? "ON" : "OFF"}`);
    }
  }
}
