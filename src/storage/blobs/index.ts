// Raw mail and attachment bytes, content-addressed by sha256. One interface whatever holds them
// (files, a database table, later an S3-compatible store).
import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import type { BlobSpool } from "./spool";

export { BlobSpool } from "./spool";

export interface BlobStore {
  /**
   * Stores bytes durably (on disk before it resolves) and returns their key (sha256 hex). `key`: their
   * sha256 when the caller has it already (the parse computes every attachment's: a 18 MB one took
   * ~0.1 s of the event loop to hash again).
   */
  put(bytes: Uint8Array, key?: string): Promise<string>;
  get(key: string): Promise<Uint8Array | null>;
  /** The bytes as a stream of file reads (a 24 MB blob is never whole in memory, and each read is its own event-loop turn). */
  stream(key: string): Promise<Readable | null>;
  size(key: string): Promise<number | null>;
  delete(key: string): Promise<void>;
  /** A temp file to write a large blob into as it arrives (see spool.ts). */
  spool(): BlobSpool;
  /** Makes a finished spool durable under its key (fsync, link into place, fsync the directory); the caller releases the spool. */
  adopt(spool: BlobSpool): Promise<string>;
  /** Removes temp files a crash left (server start-up only: another process's spool may be live otherwise). */
  removeTemp(): void;
}

/**
 * A blob store some of whose blobs can be written inside a storage transaction (Transaction.
 * putInlineBlob), durable with that transaction's commit instead of a file flush of their own.
 */
export interface TransactionalBlobStore extends BlobStore {
  /** Blobs up to this many bytes may go through Transaction.putInlineBlob (0: none may). */
  readonly inlineMax: number;
}

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}
