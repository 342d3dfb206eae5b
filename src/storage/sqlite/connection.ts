// The one SQLite connection of a server, and the rules that make an async storage interface safe
// on a single synchronous connection:
//
// - Statements are prepared once and cached by their text (bun:sqlite's own cache hashes the
//   whole SQL on every call; a literal's hash is cached by the engine).
// - A transaction holds the connection: BEGIN + LOCK_MAIN, the caller's async function, COMMIT.
//   Calls through the storage's own repositories (not the transaction's) wait while one is open,
//   so nothing joins a transaction by accident. The transaction's repositories run directly.
// - Therefore every SQLite repository method is synchronous inside (declared async for the
//   interface, with no await in its body): it runs whole, never straddling the start of a
//   transaction, and a transaction's body only ever waits on microtasks, never on the disk.
// - Commits are made durable like the ingest group commit always was (wal-sync.ts): committed
//   with synchronous=NORMAL, then the WAL is fdatasynced on the thread pool, one flush shared by
//   every transaction committed meanwhile. Autocommit writes outside a transaction keep FULL.
import type { Database, Statement } from "bun:sqlite";
import { WalSyncer } from "./wal-sync";

type Params = Array<string | number | bigint | boolean | null | Uint8Array>;

/**
 * The first statement of every transaction: takes inboxd.db's write lock (waiting busy_timeout),
 * as BEGIN IMMEDIATE did, but on `main` only. BEGIN IMMEDIATE write-locks every attached database,
 * so each transaction also locked inboxd-search.db against the index worker, its only writer:
 * back-to-back commits (a burst, a bulk seeding) starved the worker past its busy_timeout
 * (SQLITE_BUSY, the index minutes behind, issue 19). A write statement that changes nothing.
 */
const LOCK_MAIN = "DELETE FROM main.schema_migrations WHERE 0";

/** What a read needs of a connection: the main one, or a snapshot's own (mailbox-snapshot.ts). */
export interface SqlReader {
  prepare(sql: string): Statement;
  get<T>(sql: string, ...params: Params): T | null;
}

export class SqliteConnection {
  private readonly statements = new Map<string, Statement>();
  /** A transaction is open on the connection (between BEGIN and COMMIT/ROLLBACK). */
  open = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => {};
  /** Transactions queue here, one at a time. */
  private tail: Promise<void> = Promise.resolve();
  private depth = 0;
  readonly wal: WalSyncer;
  /** Run inside every transaction of ours just before its COMMIT (housekeeping that may ride along). */
  readonly beforeCommit: Array<() => void> = [];
  /** Run after every COMMIT of ours, before the flush (wake whoever reads what was committed). */
  readonly afterCommit: Array<() => void> = [];
  /** Told the queue seq of each search-index entry a repository writes (search-index.ts). */
  search: { enqueued(seq: number): void } = { enqueued: () => {} };

  constructor(readonly db: Database) {
    this.wal = new WalSyncer(db);
  }

  prepare(sql: string): Statement {
    let st = this.statements.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }

  get<T>(sql: string, ...params: Params): T | null {
    return (this.prepare(sql).get(...(params as any[])) as T | undefined) ?? null;
  }

  all<T>(sql: string, ...params: Params): T[] {
    return this.prepare(sql).all(...(params as any[])) as T[];
  }

  /**
   * A statement whose text varies with its input (search queries): prepared, run and finalized,
   * never cached, so the cache does not grow with every shape a user writes.
   */
  allOnce<T>(sql: string, ...params: Params): T[] {
    const st = this.db.prepare(sql);
    try {
      return st.all(...(params as any[])) as T[];
    } finally {
      st.finalize();
    }
  }

  run(sql: string, ...params: Params): { changes: number; lastInsertRowid: number | bigint } {
    return this.prepare(sql).run(...(params as any[]));
  }

  /** Waits while a transaction is open, then runs fn (which must not await before its statements). */
  async whenIdle<T>(fn: () => T): Promise<Awaited<T>> {
    while (this.open) await this.idle;
    return await fn();
  }

  /** flushInline: the WAL may be fdatasynced on this thread (WalSyncer.flush). */
  async transaction<T>(fn: () => Promise<T>, flushInline = false): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise((r) => (release = r));
    await previous;
    this.idle = new Promise((r) => (this.markIdle = r));
    this.open = true;
    let out: T;
    let wrote = true;
    try {
      this.db.exec("PRAGMA synchronous = NORMAL");
      const before = this.totalChanges();
      this.prepare("BEGIN").run();
      try {
        this.prepare(LOCK_MAIN).run();
        out = await fn();
        for (const hook of this.beforeCommit) hook();
        this.prepare("COMMIT").run();
        wrote = this.totalChanges() !== before;
        for (const hook of this.afterCommit) hook();
      } catch (e) {
        if (this.db.inTransaction) this.prepare("ROLLBACK").run();
        throw e;
      }
    } finally {
      try {
        this.db.exec("PRAGMA synchronous = FULL");
      } finally {
        this.open = false;
        this.markIdle();
        release();
      }
    }
    // A transaction that changed no row (a claim that found nothing to claim) has nothing to make
    // durable: without this check each one cost a WAL flush on the thread pool, which the next
    // ingest group then had to wait behind.
    if (wrote) await this.wal.flush(flushInline);
    return out;
  }

  /** Rows changed by this connection since it opened (SQLite's total_changes()). */
  private totalChanges(): number {
    return (this.prepare("SELECT total_changes() AS n").get() as { n: number }).n;
  }

  /** Inside a transaction: fn's writes are undone alone if it throws. */
  async savepoint<T>(fn: () => Promise<T>): Promise<T> {
    const name = `sp${++this.depth}`;
    this.prepare(`SAVEPOINT ${name}`).run();
    try {
      const out = await fn();
      this.prepare(`RELEASE ${name}`).run();
      return out;
    } catch (e) {
      this.prepare(`ROLLBACK TO ${name}`).run();
      this.prepare(`RELEASE ${name}`).run();
      throw e;
    } finally {
      this.depth--;
    }
  }
}

/**
 * The same repository, seen from outside any transaction: each method first waits for an open
 * transaction to end (see the rules above). Costs nothing while no transaction is open.
 */
export function gated<T extends object>(repo: T, c: SqliteConnection): T {
  const out: Record<string, unknown> = {};
  for (const name of methodNames(repo)) {
    const fn = (repo as any)[name].bind(repo);
    out[name] = (...args: unknown[]) => (c.open ? c.whenIdle(() => fn(...args)) : fn(...args));
  }
  return out as T;
}

function methodNames(o: object): string[] {
  const names = new Set<string>();
  for (let p = o; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const n of Object.getOwnPropertyNames(p)) {
      if (n !== "constructor" && typeof (o as any)[n] === "function") names.add(n);
    }
  }
  return [...names];
}
