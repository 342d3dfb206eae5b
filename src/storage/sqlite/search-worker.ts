// Worker-thread entry of the search indexer (search-index.ts): owns inboxd-search.db (its main
// database) and reads messages and the queue from inboxd.db (attached as `mail`). Must stay an
// entrypoint of `bun build --compile` (package.json "build"), under src/ like the other workers.
import { Database } from "bun:sqlite";
import { applySearchQueue } from "./search-index";
import { fillIndexTerms } from "./search-terms";

declare const self: Worker;

/** Deletions are queued by a trigger and wake nobody: look for them this often when idle. */
const IDLE_MS = 1000;
/** After a failed batch (a lock held past busy_timeout): try again this soon, not at the idle tick. */
const RETRY_MS = 50;

export type SearchWorkerReport = { applied: number } | { failed: string } | { closed: true };

let db: Database | null = null;
let applied = 0;
let draining = false;
let again = false;
let idle: ReturnType<typeof setTimeout> | null = null;

function drain(woken = false): void {
  if (!db) return;
  if (draining) {
    again = true;
    return;
  }
  draining = true;
  if (idle) clearTimeout(idle);
  let next = IDLE_MS;
  let reported = false;
  try {
    do {
      again = false;
      for (;;) {
        const n = applySearchQueue(db, { mail: "mail", search: "main" }, applied);
        if (n === applied) break;
        applied = n;
        self.postMessage({ applied } satisfies SearchWorkerReport);
        reported = true;
      }
    } while (again);
    // The main thread sends one wake at a time and the next after a report: report even when the
    // queue held nothing new (an entry rolled back, or a wake for rows a previous batch took).
    if (woken && !reported) self.postMessage({ applied } satisfies SearchWorkerReport);
    // An index from before index_terms: one page of its vocabulary per turn, the queue first.
    if (fillIndexTerms(db, "main")) next = 0;
  } catch (e) {
    // The batch rolled back and `applied` did not move: nothing is lost, it is applied again.
    // The main thread logs it (and counts it: a test asserts none under a competing writer).
    self.postMessage({ failed: String(e) } satisfies SearchWorkerReport);
    next = RETRY_MS;
  } finally {
    draining = false;
    if (db) idle = setTimeout(drain, next);
  }
}

self.onmessage = (e: MessageEvent<"wake" | "close" | { mailFile: string; searchFile: string; after: number }>) => {
  if (e.data === "wake") return drain(true);
  if (e.data === "close") {
    // Between batches (drain is synchronous): no transaction is open. Closing here, rather than
    // being terminated, lets the next owner of the file (a reopened storage in this process)
    // never meet a connection of this one still holding the write lock.
    if (idle) clearTimeout(idle);
    db?.close();
    db = null;
    self.postMessage({ closed: true } satisfies SearchWorkerReport);
    return;
  }
  if (db) return;
  db = new Database(e.data.searchFile, { readwrite: true, create: false });
  db.exec("PRAGMA busy_timeout = 5000");
  // The index's progress prunes the queue: it must not roll back after a power loss.
  db.exec("PRAGMA synchronous = FULL");
  db.query("ATTACH DATABASE ? AS mail").run(e.data.mailFile);
  applied = e.data.after;
  drain();
};
