// A BlobStore in two tiers: blobs up to INLINE_MAX bytes in SQLite (table blobs_inline), larger
// ones in the file-system store. Why: a file blob is durable only after a file fsync and a
// directory fsync (two device flushes), while an inline blob written inside the transaction
// that also inserts the message row is covered by that transaction's single WAL fsync, shared by
// every message of a group commit. The same content-addressed keys are used in both tiers, so
// callers (raw download, IMAP, POP3, removal) never know which tier holds a blob.
// Inline blobs are zstd-compressed where it pays (codec 1, compression.ts); rows written before
// migration 0024 have codec 0 and are read as they are. Every reader gets the bytes as received.
import { type BlobSpool, sha256Hex, type BlobStore, type TransactionalBlobStore } from "../blobs";
import { compressIfWorth, decompress } from "./compression";
import type { SqliteConnection } from "./connection";
import { Readable } from "node:stream";

export const INLINE_MAX = 512 * 1024;
/** blobs_inline.codec: the bytes as received, or a zstd frame of them. */
const CODEC_NONE = 0;
const CODEC_ZSTD = 1;

export class TieredBlobStore implements TransactionalBlobStore {
  constructor(
    private readonly files: BlobStore,
    private readonly c: SqliteConnection,
    readonly inlineMax = INLINE_MAX,
  ) {}

  /** Writes a small blob as part of the open transaction (durable at its commit). */
  putInline(key: string, bytes: Uint8Array): void {
    const z = compressIfWorth(bytes);
    this.c.run(
      "INSERT OR IGNORE INTO blobs_inline (key, bytes, codec, raw_size) VALUES (?, ?, ?, ?)",
      key,
      z ?? bytes,
      z ? CODEC_ZSTD : CODEC_NONE,
      bytes.byteLength,
    );
  }

  private inline(key: string): Promise<Uint8Array | null> {
    return this.c.whenIdle(() => {
      const row = this.c.get<{ bytes: Uint8Array; codec: number }>("SELECT bytes, codec FROM blobs_inline WHERE key = ?", key);
      if (!row) return null;
      return row.codec === CODEC_ZSTD ? decompress(row.bytes) : row.bytes;
    });
  }

  async put(bytes: Uint8Array, key = sha256Hex(bytes)): Promise<string> {
    if (bytes.byteLength > this.inlineMax) return this.files.put(bytes, key);
    // Autocommit with synchronous=FULL: durable when run() returns.
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
    return (await this.inline(key)) ?? this.files.get(key);
  }

  async stream(key: string): Promise<Readable | null> {
    const bytes = await this.inline(key);
    return bytes ? Readable.from([Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]) : this.files.stream(key);
  }

  async size(key: string): Promise<number | null> {
    const row = await this.c.whenIdle(() =>
      this.c.get<{ n: number }>("SELECT COALESCE(raw_size, length(bytes)) AS n FROM blobs_inline WHERE key = ?", key),
    );
    return row ? row.n : this.files.size(key);
  }

  async delete(key: string): Promise<void> {
    await this.c.whenIdle(() => this.c.run("DELETE FROM blobs_inline WHERE key = ?", key));
    await this.files.delete(key);
  }
}
