// Worker-thread entry of the search indexer (search-index.ts): owns inboxd-search.db (its main
// database) and reads messages and the queue from inboxd.db (attached as `mail`). Must stay an
// entrypoint of `bun build --compile` (package.json "build"), under src/ like the other workers.
import { Database } from "bun:sqlite";
import { applySearchQueue } from "./search-index";

declare const self: Worker;

/** Deletions are queued by a trigger and wake nobody: look for them this often when idle. */
const IDLE_MS = 1000;

let db: Database | null = null;
let applied = 0;
let draining = false;
let again = false;
let idle: ReturnType<typeof setTimeout> | null = null;

function drain(): void {
  if (!db) return;
  if (draining) {
    again = true;
    return;
  }
  draining = true;
  if (idle) clearTimeout(idle);
  try {
    do {
      again = false;
      for (;;) {
        const next = applySearchQueue(db, { mail: "mail", search: "main" }, applied);
        if (next === applied) break;
        applied = next;
        self.postMessage({ applied });
      }
    } while (again);
  } catch (e) {
    // A busy database or a closing one: the next wake or the idle timer tries again.
    console.error("search worker: indexing failed", e);
  } finally {
    draining = false;
    idle = setTimeout(drain, IDLE_MS);
  }
}

self.onmessage = (e: MessageEvent<"wake" | { mailFile: string; searchFile: string; after: number }>) => {
  if (e.data === "wake") return drain();
  if (db) return;
  db = new Database(e.data.searchFile, { readwrite: true, create: false });
  db.exec("PRAGMA busy_timeout = 5000");
  // The index's progress prunes the queue: it must not roll back after a power loss.
  db.exec("PRAGMA synchronous = FULL");
  db.query("ATTACH DATABASE ? AS mail").run(e.data.mailFile);
  applied = e.data.after;
  drain();
};
