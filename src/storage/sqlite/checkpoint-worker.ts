// Worker-thread entry of the WAL checkpointer (storage/wal-sync.ts): copies committed WAL frames
// into the database file on its own connection, so the event loop never does it inside a commit.
// Must stay an entrypoint of `bun build --compile` (package.json "build"); it lives under src/ so
// that the embedded entrypoints keep src/ as their common root.
import { Database } from "bun:sqlite";

declare const self: Worker;

let db: Database | null = null;

/** While the WAL grows, checkpoint often (small copies, short device flushes); idle, back off. */
const BUSY_MS = 30;
const IDLE_MAX_MS = 1000;

self.onmessage = (e: MessageEvent<{ file: string }>) => {
  if (db) return;
  db = new Database(e.data.file, { readwrite: true, create: false });
  // Never wait for a lock: a busy checkpoint is simply retried on the next tick.
  db.exec("PRAGMA busy_timeout = 0");
  const checkpoint = db.query("PRAGMA wal_checkpoint(PASSIVE)");
  let lastLog = -1;
  let delay = BUSY_MS;
  const tick = () => {
    try {
      const r = checkpoint.get() as { busy: number; log: number; checkpointed: number } | null;
      const log = r?.log ?? -1;
      delay = log !== lastLog ? BUSY_MS : Math.min(IDLE_MAX_MS, delay * 2);
      lastLog = log;
    } catch {
      // SQLITE_BUSY or a closing database: try again a little later.
      delay = Math.min(IDLE_MAX_MS, delay * 2);
    }
    setTimeout(tick, delay);
  };
  setTimeout(tick, BUSY_MS);
  self.postMessage("ready");
};
