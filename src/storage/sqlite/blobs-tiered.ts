// A BlobStore in two tiers: blobs up to INLINE_MAX bytes in SQLite (table blobs_inline), larger
// ones in the file-system store. Why: a file blob is durable only after a file fsync and a
// directory fsync (two device flushes), while an inline blob written inside the transaction
// that also inserts the message row is covered by that transaction's single WAL fsync, shared by
// every message of a group commit. The same content-addressed keys are used in both tiers, so
// callers (raw download, IMAP, POP3, removal) never know which tier holds a blob.
import { type BlobSpool, sha256Hex, type BlobStore, type TransactionalBlobStore } from "../blobs";
import type { SqliteConnection } from "./connection";
import { Readable } from "node:stream";

export const INLINE_MAX = 512 * 1024;

export class TieredBlobStore implements TransactionalBlobStore {
  constructor(
    private readonly files: BlobStore,
    private readonly c: SqliteConnection,
    readonly inlineMax = INLINE_MAX,
  ) {}

  /** Writes a small blob as part of the open transaction (durable at its commit). */
  putInline(key: string, bytes: Uint8Array): void {
    this.c.run("INSERT OR IGNORE INTO blobs_inline (key, bytes) VALUES (?, ?)", key, bytes);
  }

  async put(bytes: Uint8Array): Promise<string> {
    if (bytes.byteLength > this.inlineMax) return this.files.put(bytes);
    // Autocommit with synchronous=FULL: durable when run() returns.
    const key = sha256Hex(bytes);
    await this.c.whenIdle(() => this.putInline(key, bytes));
    return key;
  }

  spool(): BlobSpool {
    return this.files.spool();
  }

  /** A spool is only used for blobs above inlineMax: it always goes to the file tier. */
  adopt(spool: BlobSpool): Promise<string> {
    return this.files.adopt(spool);
  }

  removeTemp(): void {
    this.files.removeTemp();
  }

  async get(key: string): Promise<Uint8Array | null> {
    const row = await this.c.whenIdle(() => this.c.get<{ bytes: Uint8Array }>("SELECT bytes FROM blobs_inline WHERE key = ?", key));
    return row ? row.bytes : this.files.get(key);
  }

  async stream(key: string): Promise<Readable | null> {
    const row = await this.c.whenIdle(() => this.c.get<{ bytes: Uint8Array }>("SELECT bytes FROM blobs_inline WHERE key = ?", key));
    return row ? Readable.from([Buffer.from(row.bytes)]) : this.files.stream(key);
  }

  async size(key: string): Promise<number | null> {
    const row = await this.c.whenIdle(() => this.c.get<{ n: number }>("SELECT length(bytes) AS n FROM blobs_inline WHERE key = ?", key));
    return row ? row.n : this.files.size(key);
  }

  async delete(key: string): Promise<void> {
    await this.c.whenIdle(() => this.c.run("DELETE FROM blobs_inline WHERE key = ?", key));
    await this.files.delete(key);
  }
}
