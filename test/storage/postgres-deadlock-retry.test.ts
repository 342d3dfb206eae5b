// PostgreSQL breaks a lock cycle by rolling one transaction back (deadlock_detected, 40P01). The
// storage runs that transaction again from its start (storage/postgres/connection.ts,
// retryingConflicts), so the callers see both commit. Before, the victim's error reached them: a 500
// for a REST flag update, a 451 for every message of an SMTP group, a NO for an IMAP STORE, when a
// flag update over a mailbox, a delivery and a deletion locked the same rows in different orders.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Storage } from "../../src/storage";
import { openPostgresStorage } from "../../src/storage/postgres";
import { type PostgresServer, postgresBinDir, postgresRequired, startPostgres } from "../support/postgres";
import { signal } from "../support/signal";

const T = new Date().toISOString();

describe.skipIf(!postgresBinDir() && !postgresRequired)("PostgreSQL: a deadlock's victim runs again", () => {
  let pg: PostgresServer;
  let s: Storage;

  beforeAll(async () => {
    pg = await startPostgres();
    s = await openPostgresStorage(pg.url, { max: 4 });
    await s.teams.insert({ id: "tm_d", name: "d", plan: "free", usedBytes: 0, createdAt: T });
    for (const id of ["pr_1", "pr_2"]) {
      await s.projects.insert({ id, teamId: "tm_d", slug: id, name: id, environment: "live", settings: {}, createdAt: T });
    }
  });

  afterAll(async () => {
    await s?.close();
    await pg?.stop();
  });

  test("two transactions that lock two rows in opposite orders both commit; the one rolled back ran twice", async () => {
    const aHolds = signal();
    const bHolds = signal();
    const runs = { a: 0, b: 0 };
    /** Renames `first`, then (on its first run, once the other holds its first row) `second`. */
    const lockBoth = (who: "a" | "b", first: string, second: string, mine: ReturnType<typeof signal>, theirs: ReturnType<typeof signal>) =>
      s.transaction(async (tx) => {
        runs[who]++;
        await tx.projects.update(first, { name: `${who}${first.at(-1)}`, settings: {} });
        if (runs[who] === 1) {
          mine.resolve();
          await theirs.promise;
        }
        await tx.projects.update(second, { name: `${who}${second.at(-1)}`, settings: {} });
      });
    const outcomes = await Promise.allSettled([
      lockBoth("a", "pr_1", "pr_2", aHolds, bHolds),
      lockBoth("b", "pr_2", "pr_1", bHolds, aHolds),
    ]);
    const [runsA, runsB] = [runs.a, runs.b];
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "fulfilled"]);
    // PostgreSQL chose one victim; it ran again after the other committed, so its names are the ones left.
    expect([runsA, runsB].sort()).toEqual([1, 2]);
    const names = [(await s.projects.byId("pr_1"))!.name, (await s.projects.byId("pr_2"))!.name];
    expect(names).toEqual(runsA === 2 ? ["a1", "a2"] : ["b1", "b2"]);
  }, 30_000);
});
