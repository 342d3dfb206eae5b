// The PostgreSQL connection pool (Bun's built-in client, `import { SQL } from "bun"`; see
// docs/decisions.md) and the one small query surface every PostgreSQL repository is written
// against: rows/row/run with $1-style parameters. The same repository classes serve the pool
// (autocommit statements) and a transaction or savepoint (its own client), so a transaction's
// repositories are the storage's repositories bound to another PgClient.
//
// Durability: synchronous_commit stays on (the server default, also asked for on every
// connection), so COMMIT returns only once the WAL is flushed: transaction() resolving is the
// promise the SMTP 250 waits for.
import { SQL } from "bun";
import { isTransientConflict } from "../../lib/errors";
import { postgresMigrations } from "./migrations";

/** Runs again after a deadlock or serialization failure (after the first try): PostgreSQL's advice. */
const CONFLICT_RETRIES = 5;

/**
 * `run` again, after a short random pause, when PostgreSQL rolled it back as the victim of a lock
 * cycle (isTransientConflict): a transaction from its start, or an autocommit statement. Lock
 * orders are kept where they are known (webhooks in id order, inboxes in id order); this covers
 * the cycles between paths that lock rows of one table in different orders (a flag update over a
 * mailbox against a delivery's, a deletion's) which no single order can rule out.
 */
async function retryingConflicts<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (attempt > CONFLICT_RETRIES || !isTransientConflict(e)) throw e;
      await Bun.sleep(Math.random() * 5 * attempt);
    }
  }
}

// A string[] binds to a text[] parameter (`= ANY($1::text[])`, where SQLite reads json_each).
export type PgParam = string | number | bigint | boolean | null | Uint8Array | string[];

/** Anything that runs a statement: the pool, a transaction, a savepoint. */
export interface PgClient {
  rows<T = Record<string, any>>(text: string, ...params: PgParam[]): Promise<T[]>;
  row<T = Record<string, any>>(text: string, ...params: PgParam[]): Promise<T | null>;
  /** Runs a statement; resolves with the rows it affected. */
  run(text: string, ...params: PgParam[]): Promise<number>;
  /**
   * NOTIFY (pg_notify): inside a transaction it is delivered to every listening node at COMMIT,
   * in commit order, and never on ROLLBACK (the cross-node wake-ups of docs/scaling.md).
   */
  notify(channel: string, payload: string): Promise<void>;
}

/** A client bound to one open transaction (or savepoint of one). */
export interface PgTransaction extends PgClient {
  /** Runs fn in a savepoint: if it throws, only its writes are undone, and the error is rethrown. */
  savepoint<T>(fn: (tx: PgTransaction) => Promise<T>): Promise<T>;
}

type BunClient = InstanceType<typeof SQL>;

/** A pooled connection reserved for one caller (PgConnection.reserve); give it back with release(). */
export interface PgReserved extends PgClient {
  release(): void;
}

// PostgreSQL's text cannot hold U+0000 (SQLite's can): mail is any bytes (BDAT BINARYMIME, a NUL in a
// header or body), so a NUL in a string parameter is stored as U+FFFD, the replacement character,
// instead of failing the whole delivery. Raw bytes (bytea) are untouched.
const NUL = /\u0000/g;
const textSafe = (params: PgParam[]): PgParam[] =>
  params.map((p) => (typeof p === "string" && p.includes("\u0000") ? p.replace(NUL, "\uFFFD") : p));

class Client implements PgClient {
  constructor(protected readonly sql: BunClient) {}

  /** One statement; on the pool (autocommit) it runs again if it was a deadlock's victim, inside a transaction the transaction does. */
  protected query(text: string, params: PgParam[]): Promise<unknown[]> {
    return this.sql.unsafe(text, textSafe(params)) as Promise<unknown[]>;
  }

  async rows<T>(text: string, ...params: PgParam[]): Promise<T[]> {
    return (await this.query(text, params)) as T[];
  }

  async row<T>(text: string, ...params: PgParam[]): Promise<T | null> {
    const r = (await this.query(text, params)) as T[];
    return r[0] ?? null;
  }

  async run(text: string, ...params: PgParam[]): Promise<number> {
    const r = await this.query(text, params);
    return (r as unknown as { count: number }).count ?? 0;
  }

  notify(channel: string, payload: string): Promise<void> {
    return this.sql.notify(channel, payload);
  }
}

class TxClient extends Client implements PgTransaction {
  savepoint<T>(fn: (tx: PgTransaction) => Promise<T>): Promise<T> {
    const sql = this.sql as unknown as { savepoint(fn: (sp: BunClient) => Promise<T>): Promise<T> };
    return sql.savepoint((sp) => fn(new TxClient(sp)));
  }
}

/** Connections in a node's pool unless told otherwise. */
export const DEFAULT_POOL = 10;

export interface PgConnectionOptions {
  /** Connections in the pool (each node holds its own pool). */
  max?: number;
}

export class PgConnection extends Client {
  private constructor(private readonly pool: BunClient) {
    super(pool);
  }

  /** Connects and brings the schema up to date (safe when several nodes start at once). */
  static async open(url: string, options: PgConnectionOptions = {}): Promise<PgConnection> {
    const pool = new SQL(url, {
      max: options.max ?? DEFAULT_POOL,
      connection: { synchronous_commit: "on", client_min_messages: "warning" },
    });
    const c = new PgConnection(pool);
    try {
      await c.migrate();
    } catch (e) {
      await pool.close();
      throw e;
    }
    return c;
  }

  protected override query(text: string, params: PgParam[]): Promise<unknown[]> {
    return retryingConflicts(() => super.query(text, params));
  }

  /**
   * Runs fn in one transaction; resolves after COMMIT (durable), rejects after ROLLBACK if fn throws.
   * A transaction PostgreSQL rolled back as a deadlock's victim is run again from the start (fn
   * must keep its effects in the transaction, or start them afresh: it may run more than once).
   */
  transaction<T>(fn: (tx: PgTransaction) => Promise<T>): Promise<T> {
    return retryingConflicts(() => this.pool.begin((tx) => fn(new TxClient(tx))) as Promise<T>);
  }

  /**
   * A connection of the pool for the caller alone, until release(): for a read transaction that
   * spans many awaits of unrelated work (a mailbox snapshot, mailbox-snapshot.ts).
   */
  async reserve(): Promise<PgReserved> {
    const reserved = await this.pool.reserve();
    const client = new Client(reserved as unknown as BunClient) as Client & PgReserved;
    client.release = () => reserved.release();
    return client;
  }

  /**
   * Applies the migrations not applied yet, all in one transaction under a transaction-scoped
   * advisory lock: a node that starts while another migrates waits for it, then finds the work
   * done. PostgreSQL's DDL is transactional, so a failed migration leaves nothing half applied.
   */
  async migrate(): Promise<number[]> {
    return this.pool.begin(async (tx) => {
      await tx.unsafe("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
      await tx.unsafe(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
      );
      const done = new Set(((await tx.unsafe("SELECT version FROM schema_migrations")) as { version: number }[]).map((r) => r.version));
      const applied: number[] = [];
      for (const m of postgresMigrations) {
        if (done.has(m.version)) continue;
        await tx.unsafe(m.sql).simple();
        await tx.unsafe("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [
          m.version,
          m.name,
          new Date().toISOString(),
        ]);
        applied.push(m.version);
      }
      return applied;
    }) as Promise<number[]>;
  }

  /**
   * Calls onPayload for every notification on the channel, from any node, on a dedicated
   * connection that Bun re-subscribes after a reconnect (onListen runs each time: a missed
   * wake-up costs latency, so the caller wakes everyone then). Resolves with the unsubscribe.
   */
  async listen(channel: string, onPayload: (payload: string) => void, onListen?: () => void): Promise<() => Promise<void>> {
    const sub = await this.pool.listen(channel, onPayload, onListen);
    return () => sub.unlisten();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** pg_advisory_xact_lock key of schema migrations ("inboxd" in ASCII, so no other use collides by chance). */
const MIGRATION_LOCK = 0x696e626f7864;
