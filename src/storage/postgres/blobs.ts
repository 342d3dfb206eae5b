// The blob store on PostgreSQL: every blob, whatever its size, is a row of blobs_inline (bytea),
// so every node of a cluster reads the same bytes and one backup holds mail and metadata
// (docs/scaling.md, "Blobs", with the measurement that decided against S3 for now).
//
// Durability is the SQLite engine's: a blob of at most inlineMax bytes is written by the ingest
// transaction itself (Transaction.putInlineBlob: durable with the COMMIT that stores its message);
// a larger one, or one put outside a transaction, is its own autocommit INSERT, durable when it
// returns (synchronous_commit = on, connection.ts), before the message that points at it commits.
// A large message is still spooled to a local temp file as it arrives (BlobSpool: never whole in
// memory while SMTP reads it); adopt() moves it into the table.
// Bytes are stored as received (codec 0): TOAST compresses what compresses.
import { mkdirSync, readdirSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { BlobSpool, sha256Hex, type TransactionalBlobStore } from "../blobs";
import type { PgClient } from "./connection";
import { num } from "./rows";

/** Same limit as SQLite's inline tier: what the ingest keeps in memory up to its commit. */
export const PG_INLINE_MAX = 512 * 1024;
/** A stream reads a large blob this many bytes per query. */
const STREAM_SLICE = 1024 * 1024;

const asBytes = (v: unknown): Uint8Array => (v instanceof Uint8Array ? v : new Uint8Array(v as ArrayBuffer));

/** Writes a blob as part of whatever transaction `c` is bound to (content addressed: a second write is a no-op). */
export async function putPgBlob(c: PgClient, key: string, bytes: Uint8Array): Promise<void> {
  await c.run(
    "INSERT INTO blobs_inline (key, bytes, codec, raw_size) VALUES ($1, $2, 0, $3) ON CONFLICT (key) DO NOTHING",
    key,
    bytes,
    bytes.byteLength,
  );
}

export class PgBlobStore implements TransactionalBlobStore {
  constructor(
    /** The pool: statements here run in autocommit, each durable on its own. */
    private readonly c: PgClient,
    /** Local directory for spools (per node: a spool lives only while its SMTP session does). */
    private readonly tmpDir: string,
    readonly inlineMax = PG_INLINE_MAX,
  ) {
    mkdirSync(tmpDir, { recursive: true });
  }

  async put(bytes: Uint8Array): Promise<string> {
    const key = sha256Hex(bytes);
    await putPgBlob(this.c, key, bytes);
    return key;
  }

  spool(): BlobSpool {
    return new BlobSpool(this.tmpDir);
  }

  async adopt(spool: BlobSpool): Promise<string> {
    const key = spool.finish().key;
    if ((await this.size(key)) === null) await putPgBlob(this.c, key, readFileSync(spool.path));
    return key;
  }

  removeTemp(): void {
    for (const name of readdirSync(this.tmpDir)) {
      try {
        unlinkSync(join(this.tmpDir, name));
      } catch {}
    }
  }

  async get(key: string): Promise<Uint8Array | null> {
    const r = await this.c.row<{ bytes: unknown }>("SELECT bytes FROM blobs_inline WHERE key = $1", key);
    return r ? asBytes(r.bytes) : null;
  }

  async stream(key: string): Promise<Readable | null> {
    const size = await this.size(key);
    if (size === null) return null;
    const c = this.c;
    // Slices of at most STREAM_SLICE bytes, one query each: a 24 MB blob is never whole in memory.
    async function* slices() {
      for (let at = 0; at < size!; at += STREAM_SLICE) {
        const r = await c.row<{ part: unknown }>(
          "SELECT substring(bytes FROM $2 FOR $3) AS part FROM blobs_inline WHERE key = $1",
          key,
          at + 1,
          STREAM_SLICE,
        );
        if (!r) throw new Error(`blob ${key} was deleted while it was read`);
        const part = asBytes(r.part);
        yield Buffer.from(part.buffer, part.byteOffset, part.byteLength);
      }
    }
    return Readable.from(slices());
  }

  async size(key: string): Promise<number | null> {
    const r = await this.c.row<{ n: string }>("SELECT COALESCE(raw_size, octet_length(bytes)) AS n FROM blobs_inline WHERE key = $1", key);
    return r ? num(r.n) : null;
  }

  async delete(key: string): Promise<void> {
    await this.c.run("DELETE FROM blobs_inline WHERE key = $1", key);
  }
}
