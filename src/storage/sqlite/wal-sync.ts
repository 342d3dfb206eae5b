// Group commit without blocking the event loop. A transaction committed with
// synchronous=NORMAL is written to the WAL but not yet flushed; the connection's transaction()
// commits that way and then fdatasyncs the WAL file on the thread pool, so the JS thread parses and commits the
// next messages while the disk flushes. Concurrent callers share flushes: every caller waits for
// a flush that STARTED after its commit, and one flush covers every commit made before it began.
// (Other writers keep synchronous=FULL; the pragma is switched only around our own transaction,
// which is synchronous, so nothing interleaves.) Power-loss durability is the same as FULL:
// nobody is told "stored" before the WAL frames holding their commit are on disk.
//
// Checkpoints (copying WAL frames into the database file, then fsyncing it) also leave the event
// loop: by default SQLite runs one inside the COMMIT that takes the WAL past 1000 pages, which
// at full ingest load was a fifth of the main thread's time. A worker thread with its own
// connection runs PASSIVE checkpoints (every 30 ms while the WAL grows, backing off to 1 s when
// idle: small copies keep each device flush short); the main connection keeps an
// automatic checkpoint only as a bound (WAL_BOUND_PAGES), which then has little left to copy.
import { log } from "../../lib/log";
import { fdatasyncSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import type { Database } from "bun:sqlite";
import type { RemovedMessage } from "../mail";

/** The main connection checkpoints by itself past this WAL size (pages), should the worker lag. */
const WAL_BOUND_PAGES = 8192;
/** SQLite's default, restored if the worker cannot run. */
const DEFAULT_AUTOCHECKPOINT = 1000;
/** An inline flush slower than this sends the next ones to the thread pool for INLINE_BACKOFF_MS. */
const INLINE_SLOW_MS = 10;
const INLINE_BACKOFF_MS = 10_000;

// From source, the worker file sits next to this one. In the compiled executable entrypoints are
// embedded relative to their common root, src/ (see src/mail/parse-pool.ts).
const CHECKPOINT_WORKER = import.meta.path.includes("$bunfs")
  ? "./storage/sqlite/checkpoint-worker.ts"
  : new URL("./checkpoint-worker.ts", import.meta.url).href;

/** What a deletion on the worker's connection did; seq: the search queue's last entry after it. */
export interface OffThreadDeletion {
  removed: RemovedMessage[];
  blobKeys: string[];
  seq: number;
}

export class WalSyncer {
  private fh: FileHandle | null = null;
  private opening: Promise<FileHandle | null> | null = null;
  private flushing = false;
  /** Inline flushes (see flush) are allowed again from this performance.now(). */
  private inlineAfter = 0;
  /** Flushes done so far, on this thread (inline) and on the thread pool: what a test or a probe reads. */
  readonly flushes = { inline: 0, pool: 0 };
  private waiting: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];

  private checkpointer: Worker | null = null;
  /** The deletion thread (checkpoint-worker.ts in its deleter role). */
  private deleter: Worker | null = null;
  private deleterFailed = false;
  /** Deletions sent to the deleter, by request id. */
  private pending = new Map<number, { resolve: (r: OffThreadDeletion) => void; reject: (e: unknown) => void }>();
  private nextId = 1;

  constructor(private readonly sqlite: Database) {
    this.startCheckpointer();
    // Started now rather than at the first deletion: a thread's start-up holds the event loop a while.
    this.deleterThread();
  }

  private startCheckpointer(): void {
    const { sqlite } = this;
    const file = sqlite.filename;
    // In-memory or temporary databases have no WAL to move.
    if (!file || file === ":memory:") return;
    let worker: Worker;
    try {
      worker = new Worker(CHECKPOINT_WORKER);
    } catch (e) {
      log.error({ err: e }, "wal: checkpoint worker unavailable; the writer checkpoints itself");
      return;
    }
    (worker as any).unref?.();
    const fallBack = (why: unknown) => {
      if (this.checkpointer !== worker) return;
      this.checkpointer = null;
      log.error({ err: why }, "wal: checkpoint worker failed; the writer checkpoints itself");
      try {
        sqlite.exec(`PRAGMA wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
      } catch {
        // database already closed
      }
      worker.terminate();
    };
    worker.onmessage = (e) => {
      if (e.data === "ready" && this.checkpointer === worker) sqlite.exec(`PRAGMA wal_autocheckpoint = ${WAL_BOUND_PAGES}`);
    };
    worker.onerror = (e) => fallBack(e);
    worker.addEventListener("close", () => fallBack("exited"));
    this.checkpointer = worker;
    worker.postMessage({ file });
  }

  private walHandle(): Promise<FileHandle | null> {
    if (this.fh) return Promise.resolve(this.fh);
    this.opening ??= open(`${this.sqlite.filename}-wal`, "r").then(
      (fh) => (this.fh = fh),
      () => null,
    );
    return this.opening;
  }

  /**
   * Resolves once every commit made before the call is on disk. inline: the caller has nothing to
   * do until then, so when no flush is under way and the disk has been quick, the WAL is
   * fdatasynced here and now, on this thread: the thread pool's round trip (a wake-up there and
   * one back) cost more than the flush itself on the 2-core VM (docs/decisions.md, "Ingest rounds without
   * stray waits").
   */
  flush(inline = false): Promise<void> {
    if (inline && !this.flushing && this.waiting.length === 0 && this.fh && performance.now() >= this.inlineAfter) {
      const started = performance.now();
      try {
        fdatasyncSync(this.fh.fd);
      } catch (e) {
        return Promise.reject(e);
      }
      this.flushes.inline++;
      const took = performance.now() - started;
      // A slow disk (or one busy with other work) must not hold the event loop: the pool it is, for a while.
      if (took > INLINE_SLOW_MS) this.inlineAfter = performance.now() + INLINE_BACKOFF_MS;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.flushing || this.waiting.length === 0) return;
    const batch = this.waiting;
    this.waiting = [];
    this.flushing = true;
    void (async () => {
      try {
        const fh = await this.walHandle();
        // No WAL file to flush (not WAL mode?): fall back to a FULL checkpoint-free sync of the db.
        if (fh) await fh.datasync();
        else this.sqlite.exec("PRAGMA wal_checkpoint(FULL)");
        this.flushes.pool++;
        for (const w of batch) w.resolve();
      } catch (e) {
        for (const w of batch) w.reject(e);
      } finally {
        this.flushing = false;
        this.kick();
      }
    })();
  }

  /**
   * Deletes the messages (of the project) in one transaction on the worker's connection; null when
   * there is no worker (the caller deletes on the main connection).
   */
  deleteOffThread(projectId: string, ids: string[]): Promise<OffThreadDeletion> | null {
    const w = this.deleterThread();
    if (!w) return null;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      w.postMessage({ op: "delete", id, projectId, ids });
    });
  }

  private deleterThread(): Worker | null {
    if (this.deleter || this.deleterFailed) return this.deleter;
    const file = this.sqlite.filename;
    if (!file || file === ":memory:") return null;
    let worker: Worker;
    try {
      worker = new Worker(CHECKPOINT_WORKER);
    } catch (e) {
      log.error({ err: e }, "storage: deletion thread unavailable; deleting on the main connection");
      this.deleterFailed = true;
      return null;
    }
    (worker as any).unref?.();
    const fail = (why: unknown) => {
      if (this.deleter !== worker) return;
      this.deleter = null;
      this.deleterFailed = true;
      log.error({ err: why }, "storage: deletion thread failed; deleting on the main connection");
      worker.terminate();
      this.failPending(why);
    };
    worker.onmessage = (e) => {
      const r = e.data as OffThreadDeletion & { id: number; error?: string };
      const p = this.pending.get(r.id);
      if (!p) return;
      this.pending.delete(r.id);
      if (r.error !== undefined) p.reject(new Error(`background deletion failed: ${r.error}`));
      else p.resolve({ removed: r.removed, blobKeys: r.blobKeys, seq: r.seq });
    };
    worker.onerror = (e) => fail(e);
    worker.addEventListener("close", () => fail("exited"));
    worker.postMessage({ file, role: "deleter" });
    this.deleter = worker;
    return worker;
  }

  private failPending(why: unknown): void {
    for (const p of this.pending.values()) p.reject(new Error(`background connection ended: ${String(why)}`));
    this.pending.clear();
  }

  async close(): Promise<void> {
    const w = this.checkpointer;
    this.checkpointer = null;
    w?.terminate();
    const d = this.deleter;
    this.deleter = null;
    this.deleterFailed = true;
    d?.terminate();
    this.failPending("closed");
    await this.fh?.close().catch(() => {});
    this.fh = null;
  }
}
