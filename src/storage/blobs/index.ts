// Raw mail and attachment bytes, content-addressed by sha256. One interface whatever holds them
// (files, a database table, later an S3-compatible store).
import { createHash } from "node:crypto";

export interface BlobStore {
  /** Stores bytes durably (on disk before it resolves) and returns their key (sha256 hex). */
  put(bytes: Uint8Array): Promise<string>;
  get(key: string): Promise<Uint8Array | null>;
  size(key: string): Promise<number | null>;
  delete(key: string): Promise<void>;
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
