// A blob written as it arrives: bytes go to a temp file in the blob store's tmp/ directory
// (plain writes into the page cache, no fsync), so a 24 MB message is never whole in the
// process's memory. Its sha256 is not computed here, on the event loop, but by whoever reads the
// file next (the parse thread: setKey), else on demand. `adopt` (the store's) then makes it durable under its key;
// `release` removes the temp file. A crash leaves only temp files, which the server removes at
// start-up (FsBlobStore.removeTemp) before it takes mail.
import { closeSync, openSync, readSync, unlinkSync, writeSync } from "node:fs";
import { createHash, randomBytes } from "node:crypto";
import { join } from "node:path";

export class BlobSpool {
  readonly path: string;
  private fd: number | null;
  private _size = 0;
  private _key: string | null = null;

  constructor(tmpDir: string) {
    this.path = join(tmpDir, `spool.${randomBytes(9).toString("hex")}`);
    this.fd = openSync(this.path, "wx", 0o600);
  }

  get size(): number {
    return this._size;
  }

  /** The sha256 of the whole blob (once finished): as set by the reader that hashed it, else hashed now. */
  get key(): string {
    if (this.fd !== null) throw new Error("spool not finished");
    // 1 MiB reads, not readFileSync: a 24 MB message is not made whole in memory to be hashed.
    if (this._key === null) {
      const h = createHash("sha256");
      const buf = Buffer.allocUnsafe(1024 * 1024);
      const fd = openSync(this.path, "r");
      try {
        for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) h.update(buf.subarray(0, n));
      } finally {
        closeSync(fd);
      }
      this._key = h.digest("hex");
    }
    return this._key;
  }

  /** The sha256 of the finished file, computed by a thread that read it anyway. */
  setKey(sha256: string): void {
    this._key = sha256;
  }

  /** Appends bytes (synchronous: a page-cache copy of one socket chunk costs microseconds). */
  write(bytes: Uint8Array): void {
    if (this.fd === null) throw new Error("spool closed");
    let off = 0;
    while (off < bytes.byteLength) off += writeSync(this.fd, bytes, off, bytes.byteLength - off);
    this._size += bytes.byteLength;
  }

  /** No more bytes: closes the file. */
  finish(): this {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    return this;
  }

  /** Removes the temp file (after adopt, or instead of it). */
  release(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    try {
      unlinkSync(this.path);
    } catch {}
  }
}
