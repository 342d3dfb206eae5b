// Large blobs on PostgreSQL: chunked (migration 0032, 1 MiB rows of blob_chunks under a head row)
// against the single bytea row every large blob was before it, for one message-sized blob of text
// (TOAST compresses it, as it does real mail) and one of random bytes (an attachment TOAST cannot
// compress). The figure behind docs/scaling.md's "Blobs: chunked".
//   bun bench/postgres-large-blobs.ts [--mb 24] [--rounds 3]
// Per shape and layout: the durable write (chunked: from a spool file, chunk by chunk, one
// transaction; single: one INSERT of the whole buffer), a whole read (get) and a streamed read
// (chunked: one chunk per query; single: 1 MiB substring per query, as the old stream did), median
// of `rounds` runs. Memory is bench/large-messages.ts's and test/mail/bounded-memory.test.ts's business.
import { randomBytes } from "node:crypto";
import { sha256Hex } from "../src/storage";
import { openPostgresStorage, PgConnection } from "../src/storage/postgres";
import { putPgBlob } from "../src/storage/postgres/blobs";
import { startPostgres } from "../test/support/postgres";
import { arg, machineLine } from "./support";

const MB = 1024 * 1024;
const SIZE = arg("mb", 24) * MB;
const ROUNDS = arg("rounds", 3);

const text = () =>
  Buffer.from("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\r\n".repeat(SIZE / 80 + 1)).subarray(
    0,
    SIZE,
  );
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

console.log(machineLine());
console.log(`${SIZE / MB} MB blobs, median of ${ROUNDS} rounds`);
const pg = await startPostgres();
const s = await openPostgresStorage(pg.url, { max: 4 });
// A second pool, for blobs written as before 0032 (one row, whatever the size: putPgBlob is the inline put).
const old = await PgConnection.open(pg.url, { max: 1 });
const drain = async (key: string) => {
  let n = 0;
  for await (const part of (await s.blobs.stream(key))!) n += (part as Buffer).length;
  if (n !== SIZE) throw new Error(`streamed ${n} bytes, want ${SIZE}`);
};

for (const [shape, make] of [
  ["text", text],
  ["random", () => randomBytes(SIZE)],
] as const) {
  const rows: Record<string, number[]> = {};
  const add = (k: string, v: number) => void (rows[k] ??= []).push(v);
  for (let i = 0; i < ROUNDS; i++) {
    // A distinct blob per round (content addressing would make a second write a no-op).
    const bytes = make();
    bytes.write(`round ${i} ${Math.random()}`, 0);
    const key = sha256Hex(bytes);
    const spool = s.blobs.spool();
    spool.write(bytes);
    add("chunked put (from spool)", await time(() => s.blobs.adopt(spool)));
    spool.release();
    add("chunked get", await time(() => s.blobs.get(key)));
    add("chunked stream", await time(() => drain(key)));
    await s.blobs.delete(key);
    add("single bytea put", await time(() => putPgBlob(old, key, bytes)));
    add("single bytea get", await time(() => s.blobs.get(key)));
    add("single bytea stream", await time(() => drain(key)));
    await s.blobs.delete(key);
  }
  for (const [k, v] of Object.entries(rows)) console.log(`${shape.padEnd(7)} ${k.padEnd(26)} ${median(v).toFixed(0).padStart(6)} ms`);
}
await old.close();
await s.close();
await pg.stop();
