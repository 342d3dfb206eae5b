// The blob store on PostgreSQL (bytea rows, src/storage/postgres/blobs.ts) against the
// file-system store (src/storage/blobs/fs.ts, fsync + rename + directory fsync), for 10 KB and
// 1 MB blobs: the figure behind docs/scaling.md's "Blobs" decision.
//   bun bench/postgres-blobs.ts [--blobs 200] [--concurrency 4]
// Per store and size: durable puts/s and MB/s (`concurrency` writers at once, each put durable on
// its own: fs fsyncs, PostgreSQL commits with synchronous_commit on), then reads/s of the same blobs.
// PostgreSQL also in the ingest's way: `concurrency` inline puts in one transaction, one commit.
// Random bytes: TOAST compression gains nothing, as for already-compressed attachments.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BlobStore, sha256Hex, type Storage } from "../src/storage";
import { FsBlobStore } from "../src/storage/blobs/fs";
import { openPostgresStorage } from "../src/storage/postgres";
import { startPostgres } from "../test/support/postgres";
import { arg, machineLine, pct } from "./support";

const N = arg("blobs", 200);
const C = arg("concurrency", 4);
const SIZES = [10 * 1024, 1024 * 1024];

async function timed(jobs: Array<() => Promise<unknown>>): Promise<{ seconds: number; lat: number[] }> {
  const lat: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next < jobs.length) {
        const job = jobs[next++]!;
        const t = performance.now();
        await job();
        lat.push(performance.now() - t);
      }
    }),
  );
  return { seconds: (performance.now() - t0) / 1000, lat };
}

function line(store: string, op: string, size: number, count: number, r: { seconds: number; lat: number[] }): void {
  const mb = (count * size) / 1024 / 1024 / r.seconds;
  console.log(
    `${store.padEnd(22)} ${op.padEnd(6)} ${String(size / 1024).padStart(5)} KB  ${(count / r.seconds).toFixed(0).padStart(6)}/s  ` +
      `${mb.toFixed(1).padStart(7)} MB/s  p50 ${pct(r.lat, 50).toFixed(2)} ms  p99 ${pct(r.lat, 99).toFixed(2)} ms`,
  );
}

async function measure(name: string, store: BlobStore): Promise<void> {
  for (const size of SIZES) {
    const blobs = Array.from({ length: N }, () => randomBytes(size));
    line(name, "put", size, N, await timed(blobs.map((b) => () => store.put(b))));
    const keys = blobs.map((b) => sha256Hex(b));
    line(name, "get", size, N, await timed(keys.map((k) => () => store.get(k))));
  }
}

async function measureInline(s: Storage): Promise<void> {
  for (const size of SIZES.filter((x) => x <= s.blobs.inlineMax)) {
    const groups = Array.from({ length: N / C }, () => Array.from({ length: C }, () => randomBytes(size)));
    const r = await timed(
      groups.map((g) => () => s.transaction(async (tx) => Promise.all(g.map((b) => tx.putInlineBlob(sha256Hex(b), b))))),
    );
    line("postgres (inline, tx)", "put", size, N, { seconds: r.seconds, lat: r.lat });
  }
}

console.log(machineLine());
console.log(`${N} blobs per row, ${C} at once`);
const dir = mkdtempSync(join(tmpdir(), "inboxd-bench-blobs-"));
await measure("fs (fsync each)", new FsBlobStore(join(dir, "blobs")));
rmSync(dir, { recursive: true, force: true });
const pg = await startPostgres();
const s = await openPostgresStorage(pg.url, { max: C + 2 });
await measure("postgres (bytea)", s.blobs);
await measureInline(s);
const size = await s.stats();
console.log(`postgres database after the run: ${(size.databaseBytes / 1024 / 1024).toFixed(1)} MB`);
await s.close();
await pg.stop();
