// The full-text index of messages (docs/search.md), kept off the commit that stores a message
// (docs/decisions.md, "Search index off the ingest commit"). Tokenizing subject and body inside
// the ingest transaction cost the main thread a quarter of its ingest throughput; now:
//
// - the message's transaction appends its rowid to search_queue (migration 0018; deletions are
//   queued by a trigger), which costs one small row;
// - a worker thread (search-worker.ts) owns inboxd-search.db, a database file of its own, so its
//   writes never take the lock the ingest commits need. It applies the queue in seq order and
//   records the last seq applied in the same transaction (search_progress), then reports it;
// - the main connection reads the index through ATTACH (`search.messages_fts`) and prunes the
//   applied queue rows inside its next transaction;
// - `searchable()` resolves once the index holds every message this process has queued, so a
//   search (and a filtered wait judging an arrival) sees the mail already acknowledged. It is
//   usually one worker turn, about a millisecond after the commit.
//
// A missing search database (deleted, or a data directory from before migration 0018) is rebuilt
// from every message. Should the worker be unavailable, the queue is applied on this thread.
import { log } from "../../lib/log";
import { Database as DatabaseClass, type Database } from "bun:sqlite";
import { searchBodyOfStored } from "../../mime/search-text";
import { spaceCjk } from "../cjk-words";
import { bodyOf } from "./compression";
import type { SqliteConnection } from "./connection";
import type { SearchWorkerReport } from "./search-worker";
import { addTermsOf, TOKENIZE, wordsOf } from "./search-terms";

/** Applied queue entries deleted per transaction of the main connection at most. */
const PRUNE_MAX = 2000;
/** Queue entries applied per index transaction. */
const BATCH = 500;
/** While nobody waits for the index, the worker is woken at most this often (see SearchIndex.wake). */
const WAKE_EVERY_MS = 10;
/** A search never waits longer than this for the index; it then runs on what is indexed. */
const SETTLE_LIMIT_MS = 5000;
/** close() waits this long for the worker to close its connection before terminating it. */
const CLOSE_WAIT_MS = 2000;

const WORKER_SPEC = import.meta.path.includes("$bunfs")
  ? "./storage/sqlite/search-worker.ts"
  : new URL("./search-worker.ts", import.meta.url).href;

/** Creates the index's tables in the search database attached (or opened) as `schema`. */
export function createSearchSchema(db: Database, schema: string): void {
  db.exec(`
    CREATE VIRTUAL TABLE IF NOT EXISTS ${schema}.messages_fts USING fts5(
      subject, body, sender, recipients,
      content = '', contentless_delete = 1,
      tokenize = '${TOKENIZE}'
    );
    -- The index's vocabulary as FTS5 computes it (a view that reads the doclists of the whole
    -- index: the upgrade fill of index_terms reads it once, in pages).
    CREATE VIRTUAL TABLE IF NOT EXISTS ${schema}.messages_fts_terms USING fts5vocab(messages_fts, 'row');
    CREATE TABLE IF NOT EXISTS ${schema}.search_progress (id INTEGER PRIMARY KEY CHECK (id = 1), last_seq INTEGER NOT NULL);
    -- Every term the index ever held (search-terms.ts), and its trigrams: IMAP SEARCH finds the
    -- words containing a fragment with one MATCH (protocols/imap/search-text.ts).
    CREATE TABLE IF NOT EXISTS ${schema}.index_terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE);
    CREATE VIRTUAL TABLE IF NOT EXISTS ${schema}.index_terms_trigram USING fts5(
      term, content = 'index_terms', content_rowid = 'id', tokenize = 'trigram'
    );
    CREATE TRIGGER IF NOT EXISTS ${schema}.index_terms_added AFTER INSERT ON index_terms BEGIN
      INSERT INTO index_terms_trigram (rowid, term) VALUES (new.id, new.term);
    END;
    -- One row: whether index_terms holds the whole vocabulary yet (done), else the last term copied.
    CREATE TABLE IF NOT EXISTS ${schema}.index_terms_fill (id INTEGER PRIMARY KEY CHECK (id = 1), after TEXT NOT NULL, done INTEGER NOT NULL);
    -- How the index made its words (INDEX_FORMAT); no row: before the format was recorded (1).
    CREATE TABLE IF NOT EXISTS ${schema}.index_format (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
  `);
}

/**
 * The index's way of making words. 2: every CJK character is a word of its own (../cjk-words.ts).
 * An index made another way is emptied and built again from every message, as a missing one is.
 */
export const INDEX_FORMAT = 2;

/**
 * The words the index makes of a text, in byte order (its vocabulary after indexing only that
 * text): the reference the PostgreSQL engine's tokenizer is tested against
 * (test/storage/search-tokens-parity.test.ts, postgres/search-vector.ts). The same code adds the
 * words of indexed messages to index_terms.
 */
export function indexWordsOf(text: string): string[] {
  const db = new DatabaseClass(":memory:");
  try {
    return wordsOf(db, [spaceCjk(text)]).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  } finally {
    db.close();
  }
}

interface QueueEntry {
  seq: number;
  msg_rowid: number;
  op: number;
}

interface IndexedFields {
  subject: string;
  text_body: string | null;
  text_z: Uint8Array | null;
  html_body: string | null;
  html_z: Uint8Array | null;
  from_name: string;
  from_email: string;
  envelope_to: string;
  to_json: string;
  cc_json: string;
}

/**
 * Applies up to BATCH queue entries after seq `after` to the index, in one transaction of the
 * search database; returns the last seq applied (`after` when the queue held nothing newer).
 * `mail` and `search` name the two databases as this connection sees them.
 */
export function applySearchQueue(db: Database, schemas: { mail: string; search: string }, after: number): number {
  const { mail, search } = schemas;
  const entries = db
    .query(`SELECT seq, msg_rowid, op FROM ${mail}.search_queue WHERE seq > ? ORDER BY seq LIMIT ${BATCH}`)
    .all(after) as QueueEntry[];
  if (entries.length === 0) return after;
  const read = db.query(
    `SELECT subject, text_body, text_z, html_body, html_z, from_name, from_email, envelope_to, to_json, cc_json FROM ${mail}.messages WHERE rowid = ?`,
  );
  // Read and tokenize outside the write transaction; an entry whose message is gone indexes nothing.
  const rows = entries.map((e) => {
    const m = e.op === 1 ? (read.get(e.msg_rowid) as IndexedFields | null) : null;
    return {
      rowid: e.msg_rowid,
      fields:
        m &&
        [
          m.subject,
          searchBodyOfStored(bodyOf(m.text_body, m.text_z), bodyOf(m.html_body, m.html_z)),
          `${m.from_name} ${m.from_email}`,
          `${m.envelope_to} ${people(m.to_json)} ${people(m.cc_json)}`,
        ].map(spaceCjk),
    };
  });
  const last = entries[entries.length - 1]!.seq;
  const drop = db.query(`DELETE FROM ${search}.messages_fts WHERE rowid = ?`);
  const insert = db.query(`INSERT INTO ${search}.messages_fts (rowid, subject, body, sender, recipients) VALUES (?, ?, ?, ?, ?)`);
  const progress = db.query(`UPDATE ${search}.search_progress SET last_seq = ? WHERE id = 1`);
  db.transaction(() => {
    for (const r of rows) {
      // Delete first: an index row for a reused rowid (a message lost with an unflushed commit) is replaced.
      drop.run(r.rowid);
      if (r.fields) insert.run(r.rowid, ...r.fields);
    }
    addTermsOf(
      db,
      search,
      rows.flatMap((r) => (r.fields ? [r.fields.join(" ")] : [])),
    );
    progress.run(last);
  })();
  return last;
}

function people(json: string): string {
  try {
    return (JSON.parse(json) as Array<{ name?: string; email?: string }>).map((a) => `${a.name ?? ""} ${a.email ?? ""}`).join(" ");
  } catch {
    return "";
  }
}

/** The main thread's side: attaches the index, drives the worker, prunes the queue, answers searchable(). */
export class SearchIndex {
  private worker: Worker | null = null;
  /** The last queue seq the index holds. */
  private applied: number;
  /** The highest seq this process queued (or found queued at start). */
  private queued: number;
  private woken = 0;
  /** A wake was posted and the worker has not reported since: it drains to the end of the queue first. */
  private wakeInFlight = false;
  /** When the last wake was posted (performance.now()), and the timer of the next paced one. */
  private lastWake = -Infinity;
  private pacer: ReturnType<typeof setTimeout> | null = null;
  private pruned: number;
  private waiters: Array<{ seq: number; resolve: () => void }> = [];
  private drainingHere = false;
  private closed = false;
  /** Index batches that failed and rolled back (each is applied again): 0 on a healthy server. */
  failures = 0;

  constructor(
    private readonly c: SqliteConnection,
    private readonly searchFile: string,
  ) {
    const db = c.db;
    db.query("ATTACH DATABASE ? AS search").run(searchFile);
    db.exec("PRAGMA search.journal_mode = WAL");
    createSearchSchema(db, "search");
    let progress = db.query("SELECT last_seq FROM search.search_progress WHERE id = 1").get() as { last_seq: number } | null;
    const format = (db.query("SELECT version FROM search.index_format WHERE id = 1").get() as { version: number } | null)?.version ?? 1;
    if (progress && format !== INDEX_FORMAT) {
      log.info({ from: format, to: INDEX_FORMAT }, "search index: another word format, rebuilding it from every message");
      db.transaction(() => {
        db.exec("INSERT INTO search.messages_fts (messages_fts) VALUES ('delete-all')");
        db.exec("DELETE FROM search.index_terms");
        db.exec("INSERT INTO search.index_terms_trigram (index_terms_trigram) VALUES ('delete-all')");
        db.exec("DELETE FROM search.search_progress");
      })();
      progress = null;
    }
    db.exec(`INSERT OR REPLACE INTO search.index_format (id, version) VALUES (1, ${INDEX_FORMAT})`);
    if (!progress) {
      // A new search database: queue every message once more (rebuild), numbered from 1. Its
      // terms are added as the messages are indexed: index_terms is complete from the start.
      db.exec("INSERT OR REPLACE INTO search.index_terms_fill (id, after, done) VALUES (1, '', 1)");
      db.transaction(() => {
        db.exec("DELETE FROM main.search_queue");
        db.exec("INSERT INTO main.search_queue (msg_rowid, op) SELECT rowid, 1 FROM main.messages ORDER BY rowid");
      })();
      db.exec("INSERT INTO search.search_progress (id, last_seq) VALUES (1, 0)");
      progress = { last_seq: 0 };
    }
    // An index from before index_terms: the worker copies its vocabulary in (search-terms.ts).
    db.exec("INSERT OR IGNORE INTO search.index_terms_fill (id, after, done) VALUES (1, '', 0)");
    this.applied = progress.last_seq;
    // Entries applied but not yet pruned by the previous process go in slices too (prune()).
    const lowest = (db.query("SELECT MIN(seq) AS s FROM main.search_queue").get() as { s: number | null }).s;
    this.pruned = lowest === null ? this.applied : Math.min(this.applied, lowest);
    this.queued = (db.query("SELECT COALESCE(MAX(seq), 0) AS s FROM main.search_queue").get() as { s: number }).s;
    c.beforeCommit.push(() => this.prune());
    c.afterCommit.push(() => this.wake());
    this.startWorker();
    this.wake();
  }

  /** A message's transaction queued entry `seq` (called by the repository that inserts it). */
  enqueued(seq: number): void {
    if (seq > this.queued) this.queued = seq;
  }

  searchable(): Promise<void> {
    const target = this.queued;
    if (this.applied >= target || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const w = { seq: target, resolve };
      this.waiters.push(w);
      // Somebody waits: no pacing (see wake).
      this.wakeNow();
      setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w);
        resolve();
      }, SETTLE_LIMIT_MS).unref();
    });
  }

  /** Stops the worker after it closed its connection, so a storage reopened in this process meets no lock of it. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.pacer) clearTimeout(this.pacer);
    this.pacer = null;
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
    const worker = this.worker;
    this.worker = null;
    if (!worker) return;
    await new Promise<void>((resolve) => {
      const give = setTimeout(resolve, CLOSE_WAIT_MS);
      worker.addEventListener("message", (e: MessageEvent<SearchWorkerReport>) => {
        if ("closed" in e.data) {
          clearTimeout(give);
          resolve();
        }
      });
      worker.postMessage("close");
    });
    worker.terminate();
  }

  private startWorker(): void {
    let worker: Worker;
    try {
      worker = new Worker(WORKER_SPEC);
    } catch (e) {
      log.error({ err: e }, "search: index worker unavailable; indexing on the main thread");
      return;
    }
    (worker as any).unref?.();
    const fallBack = (why: unknown) => {
      if (this.worker !== worker) return;
      this.worker = null;
      if (this.closed) return;
      log.error({ err: why }, "search: index worker failed; indexing on the main thread");
      worker.terminate();
      this.wake();
    };
    worker.onmessage = (e: MessageEvent<SearchWorkerReport>) => {
      if ("applied" in e.data) {
        this.wakeInFlight = false;
        this.advance(e.data.applied);
        this.wake();
      } else if ("failed" in e.data) this.failed(e.data.failed);
    };
    worker.onerror = (e) => fallBack(e);
    worker.addEventListener("close", () => fallBack("exited"));
    this.worker = worker;
    worker.postMessage({ mailFile: this.c.db.filename, searchFile: this.searchFile, after: this.applied });
  }

  /**
   * Wakes the worker for what was queued, paced: at most one wake every WAKE_EVERY_MS while nobody
   * waits in searchable(). Each wake and each report is a thread wake-up, which on two busy cores
   * cost the event loop ~130 µs of its time per group commit, and the worker's per-batch costs
   * (its transaction, its fsync) then fell on 8 messages instead of dozens (docs/decisions.md,
   * "Ingest rounds without stray waits").
   */
  private wake(): void {
    if (!this.unwoken()) return;
    if (this.worker && this.waiters.length === 0) {
      const wait = this.lastWake + WAKE_EVERY_MS - performance.now();
      if (wait > 0) {
        this.pacer ??= setTimeout(() => {
          this.pacer = null;
          this.wake();
        }, wait);
        return;
      }
    }
    this.wakeNow();
  }

  private wakeNow(): void {
    if (!this.unwoken()) return;
    if (this.pacer) clearTimeout(this.pacer);
    this.pacer = null;
    // One wake in flight: the worker reads the queue to its end before it reports, and its report
    // wakes it again for what was committed meanwhile.
    if (this.worker && this.wakeInFlight) return;
    this.lastWake = performance.now();
    this.woken = this.queued;
    if (this.worker) {
      this.wakeInFlight = true;
      this.worker.postMessage("wake");
    } else if (!this.drainingHere) {
      this.drainingHere = true;
      setImmediate(() => void this.drainHere());
    }
  }

  /** Entries were queued that no wake has yet covered (and the index is open). */
  private unwoken(): boolean {
    return !this.closed && this.queued > this.applied && this.woken < this.queued;
  }

  /** Without the worker: apply the queue on this connection, between transactions. */
  private async drainHere(): Promise<void> {
    try {
      for (;;) {
        const next = await this.c.whenIdle(() => applySearchQueue(this.c.db, { mail: "main", search: "search" }, this.applied));
        if (next === this.applied) break;
        this.advance(next);
      }
    } catch (e) {
      this.failed(String(e));
    } finally {
      this.drainingHere = false;
      this.woken = this.applied;
    }
  }

  private failed(why: string): void {
    this.failures++;
    log.warn({ err: why }, "search: an index batch failed; it is applied again");
  }

  private advance(applied: number): void {
    if (applied <= this.applied) return;
    this.applied = applied;
    const ready = this.waiters.filter((w) => w.seq <= applied);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.seq > applied);
    for (const w of ready) w.resolve();
  }

  /**
   * Inside a transaction of the main connection: forget the queue entries the index holds, but
   * the newest one: the next seq is max + 1, which must stay above every seq applied.
   */
  private prune(): void {
    if (this.applied <= this.pruned) return;
    // A bounded slice per transaction: after a restart the index may have applied hundreds of
    // thousands of entries at once, and one DELETE of them all rode along in some commit on the
    // event loop (a 2.7 s stall at a million messages, issue 19). Later commits take the rest.
    const upTo = Math.min(this.applied, this.pruned + PRUNE_MAX);
    this.c.run("DELETE FROM search_queue WHERE seq < ?", upTo);
    this.pruned = upTo;
  }
}
