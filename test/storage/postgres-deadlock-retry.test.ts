// PostgreSQL breaks a lock cycle by rolling one transaction back (deadlock_detected, 40P01). The
// storage runs that transaction again from its start (storage/postgres/connection.ts,
// retryingConflicts), so the callers see both commit. Before, the victim's error reached them: a 500
// for a REST flag update, a 451 for every message of an SMTP group, a NO for an IMAP STORE, when a
// flag update over a mailbox, a delivery and a deletion locked the same rows in different orders.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import type { Storage } from "../../src/storage";
import { openPostgresStorage } from "../../src/storage/postgres";
import { type PostgresServer, postgresBinDir, postgresRequired, startPostgres } from "../support/postgres";
import { signal } from "../support/signal";
import { inboxRecord, messageRecord } from "../support/storage-records";

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

// Flag changes and deletions take the inbox's row before any message row (storage/postgres/messages.ts
// setFlags, message-rows.ts): the counters' triggers need it too. Taken by the trigger instead, a flag
// change of one message held the inbox while it waited for another message a second change held, and
// that change waited for the inbox: a cycle PostgreSQL broke after a second (deadlock_timeout), once
// per collision, and every delivery to the inbox queued behind it (bench/mixed-stress.ts).
describe.skipIf(!postgresBinDir() && !postgresRequired)("PostgreSQL: one inbox's writers take its row first", () => {
  let pg: PostgresServer;
  let s: Storage;
  let watch: SQL;
  const INBOX = "ib_l";
  const m1 = "01KLOCK000000000000000000A";
  const m2 = "01KLOCK000000000000000000B";
  const m3 = "01KLOCK000000000000000000C";
  const m4 = "01KLOCK000000000000000000D";
  const m5 = "01KLOCK000000000000000000E";

  /** Deadlocks PostgreSQL has broken in this database so far. */
  const deadlocks = async () =>
    Number((await watch`SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`)[0]!.deadlocks);
  /** Resolves once some session of this database waits for a lock. */
  const someoneWaits = async () => {
    for (let i = 0; i < 500; i++) {
      const [r] =
        await watch`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
      if (r!.n > 0) return;
      await Bun.sleep(10);
    }
    throw new Error("nobody waited for a lock");
  };

  beforeAll(async () => {
    pg = await startPostgres();
    s = await openPostgresStorage(pg.url, { max: 4 });
    watch = new SQL(pg.url, { max: 1 });
    await s.teams.insert({ id: "tm_l", name: "l", plan: "free", usedBytes: 0, createdAt: T });
    await s.projects.insert({ id: "pr_l", teamId: "tm_l", slug: "l", name: "l", environment: "live", settings: {}, createdAt: T });
    await s.inboxes.insert(inboxRecord(INBOX, "pr_l", { type: "persistent", createdAt: T }));
    for (const id of [m1, m2, m3, m4, m5]) {
      await s.transaction(async (tx) => {
        const { uid } = (await tx.inboxes.takeUid(INBOX))!;
        await tx.messages.insert(messageRecord({ id, inbox_id: INBOX, project_id: "pr_l", uid }));
      });
    }
  });

  afterAll(async () => {
    await watch?.close();
    await s?.close();
    await pg?.stop();
  });

  /**
   * A changes `first` (m1), and once B is under way, `then` (m2); B meanwhile does `second` (which
   * touches both). Each runs once, none is a deadlock's victim.
   */
  async function interleave(
    second: (tx: Parameters<Parameters<Storage["transaction"]>[0]>[0]) => Promise<unknown>,
    [first, then] = [m1, m2],
  ) {
    const aHolds = signal();
    const runs = { a: 0, b: 0 };
    const before = await deadlocks();
    const a = s.transaction(async (tx) => {
      runs.a++;
      await tx.messages.setFlags(INBOX, [{ id: first, read: true }]);
      aHolds.resolve();
      await someoneWaits();
      await tx.messages.setFlags(INBOX, [{ id: then, flagged: true }]);
    });
    const b = (async () => {
      await aHolds.promise;
      return s.transaction(async (tx) => {
        runs.b++;
        await second(tx);
      });
    })();
    expect((await Promise.allSettled([a, b])).map((o) => o.status)).toEqual(["fulfilled", "fulfilled"]);
    expect(runs).toEqual({ a: 1, b: 1 });
    expect(await deadlocks()).toBe(before);
  }

  test("two flag changes crossing over two messages: the second waits for the first, no cycle", async () => {
    await interleave((tx) => tx.messages.setFlags(INBOX, [{ id: m2, read: true }]));
    const flags = new Map((await s.messages.flagsOf(INBOX, null, [m1, m2])).map((f) => [f.id, f]));
    expect([flags.get(m1)?.read, flags.get(m2)?.read, flags.get(m2)?.flagged]).toEqual([1, 1, 1]);
  }, 30_000);

  test("a deletion crossing a flag change: it waits for the change, no cycle", async () => {
    await interleave((tx) => tx.messages.deleteInProject("pr_l", [m3, m2]));
    expect(await s.messages.exists(m2)).toBe(false);
    expect(await s.messages.exists(m3)).toBe(false);
    expect((await s.inboxes.byId(INBOX))!.messageCount).toBe(3);
  }, 30_000);

  test("RENAME INBOX (its messages into a new mailbox) crossing a flag change: it waits for the change, no cycle", async () => {
    // A holds the last message INBOX's scan reaches, then wants the first, which the move would hold.
    await interleave(
      async (tx) => {
        await tx.imapFolders.insert({
          id: "mb_l",
          inboxId: INBOX,
          name: "Old",
          uidValidity: 1_800_000_000,
          uidNext: 1,
          subscribed: true,
          specialUse: null,
          createdAt: T,
        });
        await tx.imapFolders.adoptInbox(INBOX, "mb_l");
      },
      [m5, m1],
    );
    expect((await s.imapFolders.messageIds(INBOX, "mb_l", 10)).sort()).toEqual([m1, m4, m5]);
    const flags = new Map((await s.messages.flagsOf(INBOX, "mb_l", [m1, m5])).map((f) => [f.id, f]));
    expect([flags.get(m5)?.read, flags.get(m1)?.flagged]).toEqual([1, 1]);
  }, 30_000);
});
