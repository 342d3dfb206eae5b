// Large blobs on PostgreSQL are stored as ~1 MiB rows of blob_chunks under a head row in
// blobs_inline (migration 0032, src/storage/postgres/blobs.ts). On a real server: a chunked blob
// round-trips byte for byte through get, stream, size and delete, whether it was put from memory or
// adopted from a spool file; a second write of the same key adds nothing; chunks without a head
// (what a crash between chunk writes would leave, if they were not one transaction) read as absent,
// and a later write of that key replaces them instead of trusting them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import type { Readable } from "node:stream";
import { SQL } from "bun";
import type { Storage } from "../../src/storage";
import { openPostgresStorage } from "../../src/storage/postgres";
import { PG_CHUNK_BYTES } from "../../src/storage/postgres/blobs";
import { type PostgresServer, postgresBinDir, postgresRequired, startPostgres } from "../support/postgres";

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

async function drain(r: Readable): Promise<{ bytes: Buffer; parts: number[] }> {
  const parts: Buffer[] = [];
  for await (const p of r) parts.push(p as Buffer);
  return { bytes: Buffer.concat(parts), parts: parts.map((p) => p.length) };
}

/** 3.5 chunks: half random (TOAST cannot compress it), half text (it can), so both kinds of chunk are read back. */
function largeBlob(seed: string): Buffer {
  const text = Buffer.from(`${seed} the quick brown fox jumps over the lazy dog\r\n`.repeat(40_000)).subarray(0, PG_CHUNK_BYTES * 1.75);
  return Buffer.concat([randomBytes(PG_CHUNK_BYTES * 1.75), text]);
}

describe.skipIf(!postgresBinDir() && !postgresRequired)("PostgreSQL chunked blobs", () => {
  let pg: PostgresServer;
  let s: Storage;
  let sql: InstanceType<typeof SQL>;

  const chunkRows = async (key: string) =>
    (
      (await sql`SELECT seq, octet_length(bytes) AS n FROM blob_chunks WHERE key = ${key} ORDER BY seq`) as { seq: number; n: number }[]
    ).map((r) => [r.seq, Number(r.n)]);
  const headOf = async (key: string) =>
    ((await sql`SELECT codec, raw_size, octet_length(bytes) AS n FROM blobs_inline WHERE key = ${key}`) as Record<string, unknown>[]).map(
      (r) => ({
        codec: Number(r.codec),
        raw_size: Number(r.raw_size),
        n: Number(r.n),
      }),
    );

  beforeAll(async () => {
    pg = await startPostgres();
    s = await openPostgresStorage(pg.url, { max: 4 });
    sql = new SQL(pg.url, { max: 1 });
  });
  afterAll(async () => {
    await sql?.close();
    await s?.close();
    await pg?.stop();
  });

  test("put: chunks of 1 MiB and a head, read back byte for byte by get, stream and size; delete removes all of it", async () => {
    const bytes = largeBlob("put");
    const key = await s.blobs.put(bytes);
    expect(key).toBe(sha(bytes));
    expect(await chunkRows(key)).toEqual([
      [0, PG_CHUNK_BYTES],
      [1, PG_CHUNK_BYTES],
      [2, PG_CHUNK_BYTES],
      [3, bytes.length - 3 * PG_CHUNK_BYTES],
    ]);
    expect(await headOf(key)).toEqual([{ codec: 2, raw_size: bytes.length, n: 0 }]);

    expect(await s.blobs.size(key)).toBe(bytes.length);
    const got = await s.blobs.get(key);
    expect(sha(got!)).toBe(key);
    expect(got!.byteLength).toBe(bytes.length);
    const streamed = await drain((await s.blobs.stream(key))!);
    expect(sha(streamed.bytes)).toBe(key);
    // Read a chunk at a time, handed on in 64 KiB pieces: never the whole blob in one piece.
    expect(Math.max(...streamed.parts)).toBe(64 * 1024);

    // A second put of the same bytes adds no row.
    expect(await s.blobs.put(bytes)).toBe(key);
    expect((await chunkRows(key)).length).toBe(4);

    await s.blobs.delete(key);
    expect(await s.blobs.size(key)).toBeNull();
    expect(await s.blobs.get(key)).toBeNull();
    expect(await s.blobs.stream(key)).toBeNull();
    expect(await chunkRows(key)).toEqual([]);
    expect(await headOf(key)).toEqual([]);
  });

  test("adopt: a spooled blob is written from its file, chunk by chunk, and round-trips; the spool is released", async () => {
    const bytes = largeBlob("adopt");
    const spool = s.blobs.spool();
    for (let at = 0; at < bytes.length; at += 64 * 1024) spool.write(bytes.subarray(at, at + 64 * 1024));
    const key = await s.blobs.adopt(spool);
    spool.release();
    expect(existsSync(spool.path)).toBe(false);
    expect(key).toBe(sha(bytes));
    expect((await chunkRows(key)).map(([seq]) => seq)).toEqual([0, 1, 2, 3]);
    expect(await s.blobs.size(key)).toBe(bytes.length);
    expect(Buffer.from((await s.blobs.get(key))!).equals(bytes)).toBe(true);
    expect((await drain((await s.blobs.stream(key))!)).bytes.equals(bytes)).toBe(true);
    await s.blobs.delete(key);
    expect(await chunkRows(key)).toEqual([]);
  });

  test("identical blobs adopted at once: one copy of the chunks, both writers get the key", async () => {
    const bytes = largeBlob("twice");
    const spools = [s.blobs.spool(), s.blobs.spool(), s.blobs.spool()];
    for (const sp of spools) sp.write(bytes);
    const keys = await Promise.all(spools.map((sp) => s.blobs.adopt(sp)));
    for (const sp of spools) sp.release();
    expect(keys).toEqual([sha(bytes), sha(bytes), sha(bytes)]);
    expect((await chunkRows(keys[0]!)).length).toBe(4);
    expect(await headOf(keys[0]!)).toEqual([{ codec: 2, raw_size: bytes.length, n: 0 }]);
    expect(Buffer.from((await s.blobs.get(keys[0]!))!).equals(bytes)).toBe(true);
    await s.blobs.delete(keys[0]!);
  });

  test("chunks without a head (a crash mid-write) read as absent; writing the blob then replaces them", async () => {
    const bytes = largeBlob("crash");
    const key = sha(bytes);
    // What a writer that died after two chunks would have left, were chunks and head not one
    // transaction; the second chunk is even wrong, so trusting it would corrupt the blob.
    await sql`INSERT INTO blob_chunks (key, seq, bytes) VALUES (${key}, 0, ${bytes.subarray(0, PG_CHUNK_BYTES)}), (${key}, 1, ${Buffer.from("torn")})`;
    expect(await s.blobs.size(key)).toBeNull();
    expect(await s.blobs.get(key)).toBeNull();
    expect(await s.blobs.stream(key)).toBeNull();

    expect(await s.blobs.put(bytes)).toBe(key);
    expect((await chunkRows(key)).map(([, n]) => n)).toEqual([
      PG_CHUNK_BYTES,
      PG_CHUNK_BYTES,
      PG_CHUNK_BYTES,
      bytes.length - 3 * PG_CHUNK_BYTES,
    ]);
    expect(Buffer.from((await s.blobs.get(key))!).equals(bytes)).toBe(true);
    expect((await drain((await s.blobs.stream(key))!)).bytes.equals(bytes)).toBe(true);
    await s.blobs.delete(key);
  });

  test("a blob up to the inline limit stays one row (no chunks), and a large one stored before 0032 (one bytea) still reads", async () => {
    const small = randomBytes(s.blobs.inlineMax);
    const key = await s.blobs.put(small);
    expect(await chunkRows(key)).toEqual([]);
    expect(await headOf(key)).toEqual([{ codec: 0, raw_size: small.length, n: small.length }]);
    expect(Buffer.from((await s.blobs.get(key))!).equals(small)).toBe(true);

    const old = largeBlob("legacy");
    const oldKey = sha(old);
    await sql`INSERT INTO blobs_inline (key, bytes, codec, raw_size) VALUES (${oldKey}, ${old}, 0, ${old.length})`;
    expect(await s.blobs.size(oldKey)).toBe(old.length);
    expect(Buffer.from((await s.blobs.get(oldKey))!).equals(old)).toBe(true);
    expect((await drain((await s.blobs.stream(oldKey))!)).bytes.equals(old)).toBe(true);
    await s.blobs.delete(oldKey);
    expect(await s.blobs.size(oldKey)).toBeNull();
  });
});
