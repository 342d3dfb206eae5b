// Group commit without blocking the event loop. A transaction committed with
// synchronous=NORMAL is written to the WAL but not yet flushed; `commitDurably` commits that way
// and then fdatasyncs the WAL file on the thread pool, so the JS thread parses and commits the
// next messages while the disk flushes. Concurrent callers share flushes: every caller waits for
// a flush that STARTED after its commit, and one flush covers every commit made before it began.
// (Other writers keep synchronous=FULL; the pragma is switched only around our own transaction,
// which is synchronous, so nothing interleaves.) Power-loss durability is the same as FULL:
// nobody is told "stored" before the WAL frames holding their commit are on disk.
import { open, type FileHandle } from "node:fs/promises";
import type { Db } from "./db";

export class WalSyncer {
  private fh: FileHandle | null = null;
  private opening: Promise<FileHandle | null> | null = null;
  private flushing = false;
  private waiting: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];

  constructor(private readonly db: Db) {}

  /** Runs fn in an IMMEDIATE transaction whose commit does not fsync; resolves once it is durable. */
  async commitDurably<T>(fn: () => T): Promise<T> {
    const { sqlite } = this.db;
    sqlite.exec("PRAGMA synchronous = NORMAL");
    let out: T;
    try {
      out = this.db.tx(fn);
    } finally {
      sqlite.exec("PRAGMA synchronous = FULL");
    }
    await this.flush();
    return out;
  }

  private walHandle(): Promise<FileHandle | null> {
    if (this.fh) return Promise.resolve(this.fh);
    this.opening ??= open(`${this.db.sqlite.filename}-wal`, "r").then(
      (fh) => (this.fh = fh),
      () => null,
    );
    return this.opening;
  }

  private flush(): Promise<void> {
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
        else this.db.sqlite.exec("PRAGMA wal_checkpoint(FULL)");
        for (const w of batch) w.resolve();
      } catch (e) {
        for (const w of batch) w.reject(e);
      } finally {
        this.flushing = false;
        this.kick();
      }
    })();
  }

  async close(): Promise<void> {
    await this.fh?.close().catch(() => {});
    this.fh = null;
  }
}
