// A message on its way in, collected as it arrives (SMTP DATA and BDAT): small mail stays in
// memory (the fast path: a 10 KB message is a few socket-chunk views, no file, no copy), and once
// it passes `spoolAbove` (the blob store's inline limit, 512 KiB) every byte goes on to a temp
// file in the blob store, so that N concurrent 24 MB messages cost N file descriptors, not
// N x 24 MB of heap. Every byte is charged to the global in-flight budget as it arrives; when the
// budget runs out the message is dropped but its end is still read (the session then answers
// 452 4.3.1, docs/security.md). `done()` releases the bytes and the budget: call it once the
// message was stored or refused.
import type { BlobSpool, BlobStore } from "../storage/blobs";
import type { InflightBudget } from "./inflight-budget";
import { spooled } from "./memory-release";
import { isStorageFull } from "../lib/errors";
import { log } from "../lib/log";

/** The bytes of a received message: in memory, or a finished spool (a temp file and its sha256). */
export type MessageBytes = Uint8Array | BlobSpool;

export const sizeOf = (m: MessageBytes): number => (m instanceof Uint8Array ? m.byteLength : m.size);

export class IncomingMessage {
  /** Bytes seen (counted on after a refusal, for the log). */
  size = 0;
  /** Over the size limit: 552. */
  overflow = false;
  /** The in-flight budget ran out: 452. */
  overBudget = false;
  /** The disk is full (the spool's write failed with ENOSPC): 452 too, and the session goes on. */
  noSpace = false;
  private parts: Uint8Array[] = [];
  private spool: BlobSpool | null = null;
  private reserved = 0;

  constructor(
    private readonly blobs: BlobStore,
    private readonly budget: InflightBudget,
    private readonly maxBytes: number,
    private readonly spoolAbove: number,
  ) {}

  get refused(): boolean {
    return this.overflow || this.overBudget || this.noSpace;
  }

  add(b: Uint8Array): void {
    this.size += b.byteLength;
    if (this.refused || b.byteLength === 0) return;
    if (this.size > this.maxBytes) {
      this.overflow = true;
      return this.done();
    }
    if (!this.budget.tryReserve(b.byteLength)) {
      this.overBudget = true;
      return this.done();
    }
    this.reserved += b.byteLength;
    try {
      this.keep(b);
    } catch (e) {
      if (!isStorageFull(e)) throw e;
      // Refused like an exhausted budget: the rest of DATA is still read, then 452 4.3.1.
      log.error({ err: e }, "spooling an incoming message failed: storage full");
      this.noSpace = true;
      this.done();
    }
  }

  private keep(b: Uint8Array): void {
    if (this.spool) {
      this.spool.write(b);
      return spooled(b.byteLength);
    }
    this.parts.push(b);
    if (this.size > this.spoolAbove) {
      this.spool = this.blobs.spool();
      for (const p of this.parts) this.spool.write(p);
      this.parts = [];
    }
  }

  /** The whole message (call once, when it has ended and was not refused). */
  message(): MessageBytes {
    if (this.spool) return this.spool.finish();
    const parts = this.parts;
    this.parts = [];
    // One part is a view into a socket chunk that may hold the next commands: copy it out.
    return parts.length === 1 ? Buffer.from(parts[0]!) : Buffer.concat(parts, this.size);
  }

  /** Releases the bytes: the temp file, the parts, the budget. Idempotent. */
  done(): void {
    this.parts = [];
    this.spool?.release();
    this.spool = null;
    this.budget.release(this.reserved);
    this.reserved = 0;
  }
}
