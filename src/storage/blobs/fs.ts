// The file-system blob store: one fsynced file per blob under data/blobs/ab/cd/<sha256>.
import { mkdirSync, unlinkSync, existsSync, readFileSync, statSync } from "node:fs";
import { mkdir, open, rename } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { sha256Hex, type BlobStore } from ".";

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

  async put(bytes: Uint8Array): Promise<string> {
    const key = sha256Hex(bytes);
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
    const dh = await open(dir, "r");
    try {
      await dh.sync();
    } finally {
      await dh.close();
    }
    return key;
  }

  async get(key: string): Promise<Uint8Array | null> {
    try {
      return readFileSync(this.pathOf(key));
    } catch (e: any) {
      if (e.code === "ENOENT") return null;
      throw e;
    }
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
