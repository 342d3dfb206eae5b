// Durable writes through the ported repositories on both engines (issue 20, round 1): SQLite in a
// temporary directory and PostgreSQL started from Debian's binaries (test/support/postgres.ts,
// fsync on, synchronous_commit on). Each transaction inserts an event and bumps an inbox's UID, the
// two writes ingest makes per message besides the message itself; it resolves once durable.
//   bun bench/postgres-repositories.ts [--transactions 400] [--concurrency 8]
// Prints transactions/s and latency percentiles: one writer, then `concurrency` writers at once on
// one project (the event log's per-project lock serializes them), then on one project each. Not
// the ingest bench (no SMTP, no message rows yet): a first look at the commit path.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPostgresStorage } from "../src/storage/postgres";
import { openSqliteStorage } from "../src/storage/sqlite";
import { startPostgres } from "../test/support/postgres";
import type { Engine } from "../test/support/storage-engines";
import { arg, machineLine, pct } from "./support";

const N = arg("transactions", 400);
const C = arg("concurrency", 8);
const T0 = new Date().toISOString();

async function seed(s: Engine): Promise<void> {
  await s.teams.insert({ id: "tm_b", name: "bench", plan: "free", usedBytes: 0, createdAt: T0 });
  for (let i = 0; i < C; i++) {
    await s.projects.insert({
      id: `pr_${i}`,
      teamId: "tm_b",
      slug: `bench${i}`,
      name: "bench",
      environment: "live",
      settings: {},
      createdAt: T0,
    });
    await s.inboxes.insert({
      id: `ib_${i}`,
      projectId: `pr_${i}`,
      address: `b${i}@bench.test`,
      localPart: `b${i}`,
      domain: "bench.test",
      domainId: null,
      name: null,
      type: "disposable",
      status: "active",
      passwordEnc: "x",
      uidValidity: 1,
      uidNext: 1,
      expiresAt: null,
      expiringAlertedAt: null,
      createdBySession: null,
      messageCount: 0,
      unreadCount: 0,
      usedBytes: 0,
      createdAt: T0,
    });
  }
}

let serial = 0;
async function one(s: Engine, inbox: number, project: number): Promise<number> {
  const t = performance.now();
  const n = serial++;
  await s.transaction(async (tx) => {
    await tx.inboxes.takeUid(`ib_${inbox}`);
    await tx.eventLog.append({
      id: `ev_${n}`,
      projectId: `pr_${project}`,
      type: "message.received",
      inboxId: `ib_${inbox}`,
      userId: null,
      data: "{}",
      occurredAt: T0,
    });
  });
  return performance.now() - t;
}

async function measure(name: string, s: Engine): Promise<void> {
  await seed(s);
  for (const [writers, spread] of [
    [1, false],
    [C, false],
    [C, true],
  ] as const) {
    const lat: number[] = [];
    const start = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        while (next < N) {
          next++;
          lat.push(await one(s, w, spread ? w : 0));
        }
      }),
    );
    const secs = (performance.now() - start) / 1000;
    console.log(
      `${name.padEnd(10)} writers ${String(writers).padStart(2)}, ${spread ? "one project each" : "one project     "}: ${(N / secs).toFixed(0).padStart(6)} tx/s  p50 ${pct(lat, 50).toFixed(2)} ms  p99 ${pct(lat, 99).toFixed(2)} ms`,
    );
  }
}

console.log(machineLine());
console.log(`${N} durable transactions (takeUid + eventLog.append) per row`);
const dir = mkdtempSync(join(tmpdir(), "inboxd-bench-pg-"));
const lite = openSqliteStorage(dir);
await measure("sqlite", lite);
await lite.close();
rmSync(dir, { recursive: true, force: true });
const pg = await startPostgres();
const post = await openPostgresStorage(pg.url, { max: C + 2 });
await measure("postgres", post);
await post.close();
await pg.stop();
