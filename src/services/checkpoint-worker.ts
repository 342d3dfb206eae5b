// Worker-thread entry of the WAL checkpointer (storage/wal-sync.ts): copies committed WAL frames
// into the database file on its own connection, so the event loop never does it inside a commit.
// Must stay an entrypoint of `bun build --compile` (package.json "build"); it lives under src/ so
// that the embedded entrypoints keep src/ as their common root.
import { Database } from "bun:sqlite";

declare const self: Worker;

let db: Database | null = null;

self.onmessage = (e: MessageEvent<{ file: string; intervalMs: number }>) => {
  if (db) return;
  db = new Database(e.data.file, { readwrite: true, create: false });
  // Never wait for a lock: a busy checkpoint is simply retried on the next tick.
  db.exec("PRAGMA busy_timeout = 0");
  const checkpoint = db.query("PRAGMA wal_checkpoint(PASSIVE)");
  setInterval(() => {
    try {
      checkpoint.get();
    } catch {
      // SQLITE_BUSY or a closing database: the next tick (or the writer's own bound) catches up.
    }
  }, e.data.intervalMs);
  self.postMessage("ready");
};
