// The blob store on PostgreSQL: every blob lives in the database, so every node of a cluster reads
// the same bytes and one backup holds mail and metadata (docs/scaling.md, "Blobs", with the
// measurement that decided against S3 for now).
//
// Two shapes, one key space (content addressed, sha256):
// - up to inlineMax bytes: one row of blobs_inline (codec 0, bytes as received; TOAST compresses
//   what compresses), written by the ingest transaction itself (Transaction.putInlineBlob, durable
//   with the COMMIT that stores its message);
// - larger (migration 0032): the bytes as ~1 MiB rows of blob_chunks, written one chunk at a time
//   (from the spool file, so a 24 MB message is never whole in this process), then a head row in
//   blobs_inline (codec 2, empty bytes, raw_size), all in one transaction of their own. The head
//   is written last and commits with the chunks: a blob is present exactly when its head is, so a
//   crash mid-write leaves nothing that claims a blob. That transaction commits (synchronous_commit
//   = on, connection.ts) before the message row that points at the blob does.
// A read streams chunk by chunk; a chunk is its own TOAST value, so each read decompresses 1 MiB,
// not the whole message. Large blobs written before 0032 (one bytea row) are still read as they are.
import { mkdirSync, readdirSync, unlinkSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { BlobSpool, sha256Hex, type TransactionalBlobStore } from "../blobs";
import type { PgClient, PgTransaction } from "./connection";
import { num } from "./rows";

/** Same limit as SQLite's inline tier: what the ingest keeps in memory up to its commit. */
export const PG_INLINE_MAX = 512 * 1024;
/** A large blob is stored, and read back, this many bytes per row. */
export const PG_CHUNK_BYTES = 1024 * 1024;
/** A stream hands a chunk on in pieces of this size (SQLite's file tier reads 64 KiB at a time). */
const READ_PIECE = 64 * 1024;
/** A stream reads a large blob stored before migration 0032 (one bytea) this many bytes per query. */
const STREAM_SLICE = 1024 * 1024;
/** blobs_inline.codec: the bytes are in the row (0; SQLite's 1 is zstd), or in blob_chunks (2: the row is a head). */
export const CODEC_CHUNKED = 2;
const EMPTY = new Uint8Array(0);

const asBytes = (v: unknown): Uint8Array => (v instanceof Uint8Array ? v : new Uint8Array(v as ArrayBuffer));
const asBuffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** The pool, which can also open a transaction of its own. */
export interface PgPool extends PgClient {
  transaction<T>(fn: (tx: PgTransaction) => Promise<T>): Promise<T>;
}

/**
 * Writes a blob as part of whatever transaction `c` is bound to. Content addressed: a second write
 * of a key keeps the bytes and only touches the row, which holds its lock until the transaction
 * (the ingest's, with the message row) commits; a node freeing the blob meanwhile waits for that
 * commit and then sees the new reference (blob-release.ts). If the freer got there first, the
 * conflict disappears with its DELETE and this INSERT writes the bytes afresh.
 */
export async function putPgBlob(c: PgClient, key: string, bytes: Uint8Array): Promise<void> {
  await c.run(
    "INSERT INTO blobs_inline (key, bytes, codec, raw_size) VALUES ($1, $2, 0, $3) ON CONFLICT (key) DO UPDATE SET touched_at = now()",
    key,
    bytes,
    bytes.byteLength,
  );
}

/** First key of the two-key advisory lock a large blob's writer holds (the second is the key's hash). */
const BLOB_WRITE_LOCK = 0x626c6f62; // "blob"

/**
 * Writes a large blob as chunks then its head, in one transaction: `chunks` yields the bytes in
 * order, one chunk at a time. Writers of one key take turns (advisory lock); the second finds the
 * head and does nothing. Chunks with no head (never left by a write, which commits chunks and head
 * together; only made by hand) are replaced, never trusted.
 */
async function putChunked(pool: PgPool, key: string, chunks: AsyncIterable<Uint8Array>): Promise<void> {
  await pool.transaction(async (tx) => {
    await tx.run("SELECT pg_advisory_xact_lock($1, hashtext($2))", BLOB_WRITE_LOCK, key);
    // Present: touch it. This transaction commits before the message row that will point at the
    // blob, so the lock does not cover that gap; the touch does (a chunked blob touched within
    // BLOB_GRACE_SECONDS is never freed, blob-release.ts).
    if (await tx.row("UPDATE blobs_inline SET touched_at = now() WHERE key = $1 RETURNING 1", key)) return;
    await tx.run("DELETE FROM blob_chunks WHERE key = $1", key);
    let seq = 0;
    let size = 0;
    for await (const chunk of chunks) {
      await tx.run("INSERT INTO blob_chunks (key, seq, bytes) VALUES ($1, $2, $3)", key, seq++, chunk);
      size += chunk.byteLength;
    }
    await tx.run(
      "INSERT INTO blobs_inline (key, bytes, codec, raw_size) VALUES ($1, $2, $3, $4) ON CONFLICT (key) DO NOTHING",
      key,
      EMPTY,
      CODEC_CHUNKED,
      size,
    );
  });
}

async function* slicesOf(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += PG_CHUNK_BYTES) yield bytes.subarray(at, at + PG_CHUNK_BYTES);
}

/** The file's bytes, PG_CHUNK_BYTES at a time (a fresh buffer each: the previous one may still be bound to a query). */
async function* fileChunks(path: string): AsyncGenerator<Uint8Array> {
  const f = await open(path, "r");
  try {
    for (;;) {
      const buf = Buffer.allocUnsafe(PG_CHUNK_BYTES);
      let n = 0;
      while (n < buf.length) {
        const { bytesRead } = await f.read(buf, n, buf.length - n, null);
        if (bytesRead === 0) break;
        n += bytesRead;
      }
      if (n > 0) yield buf.subarray(0, n);
      if (n < buf.length) return;
    }
  } finally {
    await f.close();
  }
}

export class PgBlobStore implements TransactionalBlobStore {
  constructor(
    /** The pool: statements here run in autocommit, each durable on its own. */
    private readonly c: PgPool,
    /** Local directory for spools (per node: a spool lives only while its SMTP session does). */
    private readonly tmpDir: string,
    readonly inlineMax = PG_INLINE_MAX,
  ) {
    mkdirSync(tmpDir, { recursive: true });
  }

  async put(bytes: Uint8Array, key = sha256Hex(bytes)): Promise<string> {
    if (bytes.byteLength <= this.inlineMax) await putPgBlob(this.c, key, bytes);
    else await putChunked(this.c, key, slicesOf(bytes));
    return key;
  }

  spool(): BlobSpool {
    return new BlobSpool(this.tmpDir);
  }

  async adopt(spool: BlobSpool): Promise<string> {
    const key = spool.finish().key;
    // Also when the blob is there: putChunked touches it (the file is only read if it is written).
    await putChunked(this.c, key, fileChunks(spool.path));
    return key;
  }

  removeTemp(): void {
    for (const name of readdirSync(this.tmpDir)) {
      try {
        unlinkSync(join(this.tmpDir, name));
      } catch {}
    }
  }

  private head(key: string) {
    return this.c.row<{ codec: number; n: string }>(
      "SELECT codec, COALESCE(raw_size, octet_length(bytes)) AS n FROM blobs_inline WHERE key = $1",
      key,
    );
  }

  /** The whole blob in memory: for callers that need all of it at once (a parse, a small download). */
  async get(key: string): Promise<Uint8Array | null> {
    const r = await this.c.row<{ bytes: unknown; codec: number; n: string }>(
      "SELECT bytes, codec, COALESCE(raw_size, octet_length(bytes)) AS n FROM blobs_inline WHERE key = $1",
      key,
    );
    if (!r) return null;
    if (r.codec !== CODEC_CHUNKED) return asBytes(r.bytes);
    const size = num(r.n);
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    // One chunk per query: only the assembled copy and one chunk are in memory at a time.
    for (let seq = 0; at < size; seq++) {
      const part = await this.chunk(key, seq);
      if (at + part.byteLength > size) throw new Error(`blob ${key}: chunks longer than its size`);
      out.set(part, at);
      at += part.byteLength;
    }
    return out;
  }

  private async chunk(key: string, seq: number): Promise<Uint8Array> {
    const r = await this.c.row<{ bytes: unknown }>("SELECT bytes FROM blob_chunks WHERE key = $1 AND seq = $2", key, seq);
    if (!r) throw new Error(`blob ${key}: chunk ${seq} is missing (deleted while it was read?)`);
    const part = asBytes(r.bytes);
    if (part.byteLength === 0) throw new Error(`blob ${key}: chunk ${seq} is empty`);
    return part;
  }

  async stream(key: string): Promise<Readable | null> {
    const h = await this.head(key);
    if (!h) return null;
    const size = num(h.n);
    const self = this;
    const c = this.c;
    // Chunked: one chunk per query. Older large rows: slices of at most STREAM_SLICE bytes.
    async function* parts() {
      if (h!.codec === CODEC_CHUNKED) {
        for (let seq = 0, at = 0; at < size; seq++) {
          const part = asBuffer(await self.chunk(key, seq));
          at += part.byteLength;
          // Handed on in 64 KiB views, as the file tier's reads are: a consumer that works through
          // each piece in one go (mailauth's body hash) yields to the event loop between pieces.
          for (let i = 0; i < part.length; i += READ_PIECE) yield part.subarray(i, i + READ_PIECE);
        }
        return;
      }
      for (let at = 0; at < size; at += STREAM_SLICE) {
        const r = await c.row<{ part: unknown }>(
          "SELECT substring(bytes FROM $2 FOR $3) AS part FROM blobs_inline WHERE key = $1",
          key,
          at + 1,
          STREAM_SLICE,
        );
        if (!r) throw new Error(`blob ${key} was deleted while it was read`);
        yield asBuffer(asBytes(r.part));
      }
    }
    return Readable.from(parts());
  }

  async size(key: string): Promise<number | null> {
    const r = await this.head(key);
    return r ? num(r.n) : null;
  }

  /** Head and chunks in one statement (one autocommit): no moment where a head is left over missing chunks. */
  async delete(key: string): Promise<void> {
    await this.c.run("WITH head AS (DELETE FROM blobs_inline WHERE key = $1) DELETE FROM blob_chunks WHERE key = $1", key);
  }
}
