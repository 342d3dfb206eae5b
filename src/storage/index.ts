// The storage boundary. Everything the services keep goes through these repositories, grouped by
// capability (one small typed interface each), and through one blob store. Engines live in one
// folder each (src/storage/sqlite/ today); nothing outside src/storage/ sees SQL or a database
// handle, and nothing above knows which engine runs.
//
// Every method is async (a network database needs it). A transaction is a storage concept: the
// repositories it hands out write atomically with each other, and it resolves only once the
// commit is durable (the SMTP 250 waits for that). Inside a transaction, use only its own
// repositories (tx.x, never storage.x) and do no other I/O: an engine with one writer (SQLite)
// holds every other caller until the transaction ends.
import type { TransactionalBlobStore } from "./blobs";
import type { TenancyRepositories } from "./tenancy";
import type { MailboxSnapshot, MailRepositories, RemovedMessage } from "./mail";
import type { ImapFolderRepositories } from "./imap-folders";
import type { DomainsRepositories } from "./domains";
import type { EventRecord, EventsRepositories } from "./events";
import type { AutomationRepositories } from "./automation";

export interface Repositories
  extends TenancyRepositories,
    MailRepositories,
    ImapFolderRepositories,
    DomainsRepositories,
    EventsRepositories,
    AutomationRepositories {}

export interface Transaction extends Repositories {
  /** Runs fn so that if it throws, only its own writes are undone and the transaction goes on. */
  savepoint<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  /** Writes a blob of at most blobs.inlineMax bytes as part of this transaction. */
  putInlineBlob(key: string, bytes: Uint8Array): Promise<void>;
  /**
   * Runs fn once this transaction's commit is durable (wake-ups: bus.publish of what it wrote), so
   * that whoever it wakes reads the new rows. After a rollback it may run too (a spurious wake-up
   * that finds nothing), never before the commit. On SQLite the next turn of the event loop is
   * after the commit; on PostgreSQL the COMMIT is a network round trip away.
   */
  afterCommit(fn: () => void): void;
  /**
   * Appends to the event log as part of this transaction (rolled back with it, or with the
   * savepoint it was made in). SQLite writes it at once; PostgreSQL just before COMMIT, all of the
   * transaction's events in one statement, so the per-project lock that keeps `seq` in commit order
   * (postgres/events.ts) is held for the commit only, not for the rest of an ingest group.
   */
  appendEvent(e: EventRecord): Promise<void>;
}

export interface StorageStats {
  /** Messages stored, all inboxes. */
  messages: number;
  /** Bytes of the database file (SQLite: page count times page size; the WAL and search index left out). */
  databaseBytes: number;
  /** Webhook deliveries waiting in the outbox. */
  webhookPending: number;
}

/** How a transaction is made durable (engines free to ignore what does not apply to them). */
export interface TransactionOptions {
  /**
   * Every caller in flight waits for this commit (an ingest group holding all the deliveries
   * announced): an engine that flushes its log on a thread pool may flush on the calling thread
   * instead, which has nothing else to do meanwhile and is spared two thread wake-ups
   * (docs/decisions.md, "Ingest rounds without stray waits").
   */
  flushInline?: boolean;
}

export interface Storage extends Repositories {
  readonly blobs: TransactionalBlobStore;
  /** Runs fn in one transaction; resolves with its result once the commit is durable. */
  transaction<T>(fn: (tx: Transaction) => Promise<T>, opts?: TransactionOptions): Promise<T>;
  /**
   * How many ingest group commits (mail/ingest.ts) may be open at once. Absent: one (SQLite, one
   * writer, whose statements never wait on a network). A server engine runs several on pooled
   * connections, so one group's round trips overlap another's and its commit's WAL flush.
   */
  readonly ingestGroups?: number;
  /**
   * Deletes messages of the project in one transaction of their own, off the event loop where the
   * engine can (a bulk deletion's statements then never hold it); the rows deleted and the blob
   * keys they referenced, as messages.deleteInProject. Resolves once the commit is durable.
   */
  deleteMessages(projectId: string, ids: string[]): Promise<{ removed: RemovedMessage[]; blobKeys: string[] }>;
  /**
   * Deletes a blob if no message or attachment references it; true when it did. Safe against a
   * put of the same key on another node whose message is not committed yet (PostgreSQL:
   * postgres/blob-release.ts); SQLite's single process relies on mail/blob-refs.ts' pins.
   */
  releaseBlob(key: string): Promise<boolean>;
  /**
   * Frees blobs a release had to keep and nothing references any more (PostgreSQL: large blobs
   * released within the grace of their last put, or left by a crash between put and message;
   * postgres/blob-release.ts). SQLite frees every blob at its release: nothing to do. Returns how many.
   */
  sweepBlobs(): Promise<number>;
  /**
   * Resolves once every message this node has stored so far is in the full-text index (an engine
   * may index after the commit). Call it before a search, so a search sees the mail already
   * acknowledged.
   */
  searchable(): Promise<void>;
  /**
   * Operations (/healthz, /readyz): resolves when the database answers a read, and with write also
   * when it grants the write lock (a write transaction opens and commits); rejects otherwise.
   */
  check(write: boolean): Promise<void>;
  /** Figures for /metrics, read at scrape time. */
  stats(): Promise<StorageStats>;
  /**
   * Wake-ups between the nodes sharing this database (docs/scaling.md, runtime/cluster-bus.ts);
   * absent on an engine that only one process opens (SQLite).
   */
  readonly signals?: NodeSignals;
  /**
   * The instance key's verifier (a value sealed with INBOXD_SECRET_KEY): stores `candidate` when
   * the database has none yet, and resolves with the one stored (the candidate, or an older one a
   * node wrote first). runtime/secret-check.ts opens it to refuse a node with another key.
   */
  claimSecretVerifier(candidate: string): Promise<string>;
  /**
   * A mailbox's counts and view pages at one instant (IMAP's view, mailbox.ts), or null when none
   * can be had now (too many open); engines without it leave it out. Without one, the view is read
   * with counts and mailboxPage (filled whole before use).
   */
  mailboxSnapshot?(inboxId: string, folderId: string | null): Promise<MailboxSnapshot | null>;
  close(): Promise<void>;
}

/** Small text payloads (a few hundred bytes; PostgreSQL allows 8000) delivered to every node. */
export interface NodeSignals {
  /** Delivers each payload to every listening node, this one included, in order. */
  send(payloads: string[]): Promise<void>;
  /**
   * Calls onPayload for each payload from any node. onListen runs once listening starts and again
   * after every reconnect (signals sent meanwhile are lost: the caller wakes its readers then).
   * Resolves with the function that stops listening.
   */
  listen(onPayload: (payload: string) => void, onListen: () => void): Promise<() => Promise<void>>;
}

export type { BlobStore, TransactionalBlobStore } from "./blobs";
export { sha256Hex } from "./blobs";
