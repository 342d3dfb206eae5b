// The file-system blob store: one fsynced file per blob under data/blobs/ab/cd/<sha256>.
import { createReadStream, mkdirSync, unlinkSync, existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import type { Readable } from "node:stream";
import { link, mkdir, open, rename } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { sha256Hex, type BlobStore } from ".";
import { BlobSpool } from "./spool";

export class FsBlobStore implements BlobStore {
  private readonly tmpDir: string;
  constructor(private readonly root: string) {
    mkdirSync(root, { recursive: true });
    this.tmpDir = join(root, "tmp");
    mkdirSync(this.tmpDir, { recursive: true });
  }

  private pathOf(key: string): string {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error(`bad blob key ${key}`);
    return join(this.root, key.slice(0, 2), key.slice(2, 4), key);
  }

  async put(bytes: Uint8Array, key = sha256Hex(bytes)): Promise<string> {
    const final = this.pathOf(key);
    if (existsSync(final)) return key; // same content already durable
    const dir = join(this.root, key.slice(0, 2), key.slice(2, 4));
    await mkdir(dir, { recursive: true });
    // Temp name, fsync, rename, fsync the directory: a crash leaves either nothing or the whole file.
    // Async I/O so concurrent SMTP sessions fsync in parallel on the thread pool.
    const tmp = join(this.tmpDir, `${key}.${randomBytes(6).toString("hex")}`);
    const fh = await open(tmp, "w");
    try {
      await fh.writeFile(bytes);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, final);
    await fsyncPath(dir);
    return key;
  }

  spool(): BlobSpool {
    return new BlobSpool(this.tmpDir);
  }

  async adopt(spool: BlobSpool): Promise<string> {
    const key = spool.finish().key;
    const final = this.pathOf(key);
    if (existsSync(final)) return key;
    const dir = join(this.root, key.slice(0, 2), key.slice(2, 4));
    await mkdir(dir, { recursive: true });
    await fsyncPath(spool.path);
    // A link, not a rename: the spool stays readable under its own name until released (LMTP
    // parses one spool once per recipient, concurrently).
    try {
      await link(spool.path, final);
    } catch (e: any) {
      if (e.code !== "EEXIST") throw e;
    }
    await fsyncPath(dir);
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
    try {
      return readFileSync(this.pathOf(key));
    } catch (e: any) {
      if (e.code === "ENOENT") return null;
      throw e;
    }
  }

  async stream(key: string): Promise<Readable | null> {
    const path = this.pathOf(key);
    if (!existsSync(path)) return null;
    return createReadStream(path, { highWaterMark: 64 * 1024 });
  }

  async size(key: string): Promise<number | null> {
    try {
      return statSync(this.pathOf(key)).size;
    } catch {
      return null;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      unlinkSync(this.pathOf(key));
    } catch (e: any) {
      if (e.code !== "ENOENT") throw e;
    }
  }
}

/** fsync of a file or a directory by path (a directory's fsync makes a rename or a link in it durable). */
async function fsyncPath(path: string): Promise<void> {
  const h = await open(path, "r");
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}
