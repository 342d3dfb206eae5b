// Worker-thread entry of the storage's background connections (storage/wal-sync.ts), one thread
// per role, each with its own connection:
// - the checkpointer copies committed WAL frames into the database file, so the event loop never
//   does it inside a commit;
// - the deleter runs bulk deletions (mail/removal.ts through Storage.deleteMessages), so their
//   statements, page reads and fsync never hold the event loop (issue 19: a cold page cache made
//   one 17-row delete take 130 ms there). SQLite serializes them with the main connection's writes
//   through its lock; both wait for it (busy_timeout). A thread of its own, not the checkpointer's:
//   checkpoints must go on meanwhile, or the WAL reaches the bound at which the main connection
//   checkpoints inside a commit.
// Must stay an entrypoint of `bun build --compile` (package.json "build"); it lives under src/ so
// that the embedded entrypoints keep src/ as their common root.
import { Database } from "bun:sqlite";
import { deleteMessageRows } from "./message-rows";

declare const self: Worker;

let db: Database | null = null;
let file = "";
let writer: Database | null = null;

/** While the WAL grows, checkpoint often (small copies, short device flushes); idle, back off. */
const BUSY_MS = 30;
const IDLE_MAX_MS = 1000;

export interface DeleteRequest {
  op: "delete";
  id: number;
  projectId: string;
  ids: string[];
}

/** The deletion connection, with the pragmas of database.ts that writes rely on. */
function deletions(): Database {
  if (writer) return writer;
  writer = new Database(file, { readwrite: true, create: false, strict: true });
  writer.exec("PRAGMA busy_timeout = 5000");
  writer.exec("PRAGMA synchronous = FULL");
  writer.exec("PRAGMA foreign_keys = ON");
  writer.exec("PRAGMA cache_size = -16000");
  return writer;
}

function runDelete(r: DeleteRequest): void {
  try {
    const w = deletions();
    const out = w
      .transaction(() => {
        const res = deleteMessageRows((sql) => w.query(sql), r.projectId, r.ids);
        const seq = (w.query("SELECT COALESCE(MAX(seq), 0) AS s FROM search_queue").get() as { s: number }).s;
        return { ...res, seq };
      })
      .immediate();
    self.postMessage({ id: r.id, ...out });
  } catch (e) {
    self.postMessage({ id: r.id, error: String((e as Error)?.message ?? e) });
  }
}

self.onmessage = (e: MessageEvent<{ file: string; role?: "deleter" } | DeleteRequest>) => {
  if ("op" in e.data) return runDelete(e.data);
  if (db || file) return;
  file = e.data.file;
  if (e.data.role === "deleter") return;
  db = new Database(file, { readwrite: true, create: false });
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
