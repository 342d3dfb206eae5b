// A BlobStore in two tiers: blobs up to INLINE_MAX bytes in SQLite (table blobs_inline), larger
// ones in the file-system store. Why: a file blob is durable only after a file fsync and a
// directory fsync (two device flushes), while an inline blob written inside the transaction
// that also inserts the message row is covered by that transaction's single WAL fsync, shared by
// every message of a group commit. The same content-addressed keys are used in both tiers, so
// callers (raw download, IMAP, POP3, removal) never know which tier holds a blob.
import type { Database } from "bun:sqlite";
import { sha256Hex, type BlobStore } from "../blobs/fs";

export const INLINE_MAX = 512 * 1024;

export class TieredBlobStore implements BlobStore {
  constructor(
    private readonly files: BlobStore,
    private readonly sqlite: Database,
    readonly inlineMax = INLINE_MAX,
  ) {}

  isInline(size: number): boolean {
    return size <= this.inlineMax;
  }

  /**
   * Writes a small blob as part of the caller's open transaction (durable at its commit).
   * Returns the key. Only for bytes where isInline(bytes.byteLength).
   */
  putInTx(bytes: Uint8Array, key = sha256Hex(bytes)): string {
    this.sqlite.query("INSERT OR IGNORE INTO blobs_inline (key, bytes) VALUES (?, ?)").run(key, bytes);
    return key;
  }

  async put(bytes: Uint8Array): Promise<string> {
    if (!this.isInline(bytes.byteLength)) return this.files.put(bytes);
    // Autocommit with synchronous=FULL: durable when run() returns.
    return this.putInTx(bytes);
  }

  async get(key: string): Promise<Uint8Array | null> {
    const row = this.sqlite.query("SELECT bytes FROM blobs_inline WHERE key = ?").get(key) as { bytes: Uint8Array } | null;
    return row ? row.bytes : this.files.get(key);
  }

  async size(key: string): Promise<number | null> {
    const row = this.sqlite.query("SELECT length(bytes) AS n FROM blobs_inline WHERE key = ?").get(key) as { n: number } | null;
    return row ? row.n : this.files.size(key);
  }

  async delete(key: string): Promise<void> {
    this.sqlite.query("DELETE FROM blobs_inline WHERE key = ?").run(key);
    await this.files.delete(key);
  }
}
