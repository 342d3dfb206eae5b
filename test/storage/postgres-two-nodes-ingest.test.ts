// Two nodes on one PostgreSQL storing mail the way ingest's group commits do (mail/ingest.ts
// flush: one transaction, lockForDelivery over the group's inboxes, a savepoint per delivery
// taking its UID and inserting its row), several groups open at once on each node, each group
// spreading over several inboxes in its own order. What scale-out needs of it: no deadlock
// (without lockForDelivery's id order, two groups crossing X→Y and Y→X wait on each other and
// PostgreSQL aborts one), UIDs 1..n in every inbox, and exact counters: every inbox's count, unread
// and bytes, and the team's bytes, which since migration 0033 are the sum of its inboxes' (no
// teams row updated, and so locked, by every delivery) whichever way they are read.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { newId } from "../../src/lib/ids";
import type { Storage } from "../../src/storage";
import { openPostgresStorage } from "../../src/storage/postgres";
import { type PostgresServer, postgresBinDir, postgresRequired, startPostgres } from "../support/postgres";
import { inboxRecord, messageRecord } from "../support/storage-records";

const T = new Date().toISOString();
const INBOXES = ["ib_a", "ib_b", "ib_c", "ib_d"];

describe.skipIf(!postgresBinDir() && !postgresRequired)("two nodes, one PostgreSQL: ingest's group commits", () => {
  let pg: PostgresServer;
  let a: Storage;
  let b: Storage;

  beforeAll(async () => {
    pg = await startPostgres();
    a = await openPostgresStorage(pg.url, { max: 6 });
    b = await openPostgresStorage(pg.url, { max: 6 });
    await a.teams.insert({ id: "tm_g", name: "groups", plan: "free", usedBytes: 0, createdAt: T });
    // Two projects of one team: the team's bytes sum over both.
    for (const p of ["pr_g1", "pr_g2"]) {
      await a.projects.insert({ id: p, teamId: "tm_g", slug: p, name: p, environment: "live", settings: {}, createdAt: T });
    }
    for (const [i, id] of INBOXES.entries())
      await a.inboxes.insert(inboxRecord(id, i < 2 ? "pr_g1" : "pr_g2", { type: "persistent", createdAt: T }));
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await pg?.stop();
  });

  /** One group commit: a delivery per entry of `to` (an inbox id), in that order; every other one is marked read. */
  const group = (node: Storage, to: string[], size: number) =>
    node.transaction(async (tx) => {
      await tx.inboxes.lockForDelivery(to);
      const out: { inbox: string; uid: number; read: boolean }[] = [];
      for (const [i, inboxId] of to.entries()) {
        out.push(
          await tx.savepoint(async (sp) => {
            const { uid, inbox } = (await sp.inboxes.takeUid(inboxId))!;
            const id = newId();
            await sp.messages.insert(
              messageRecord({
                id,
                inbox_id: inboxId,
                project_id: inbox.projectId,
                uid,
                size_bytes: size,
                logical_size_bytes: size,
                envelope_to: inbox.address,
                from_email: "s@example.test",
                subject: `m ${uid}`,
                text_body: "b",
                received_at: new Date().toISOString(),
                expires_at: T,
              }),
            );
            if (i % 2) await sp.messages.setFlags(inboxId, [{ id, read: true }]);
            return { inbox: inboxId, uid, read: i % 2 === 1 };
          }),
        );
      }
      return out;
    });

  test("groups crossing each other's inboxes on both nodes: no deadlock, UIDs 1..n per inbox, exact counters", async () => {
    // 24 groups, 4 open at once per node (as Storage.ingestGroups), each over all four inboxes in a rotated order.
    const groups = Array.from({ length: 24 }, (_, g) => {
      const order = [...INBOXES.slice(g % 4), ...INBOXES.slice(0, g % 4)];
      return { node: g % 2 ? b : a, to: g % 3 ? order : [...order].reverse(), size: 100 + g };
    });
    const results: { inbox: string; uid: number; read: boolean; size: number }[] = [];
    for (let i = 0; i < groups.length; i += 8) {
      const wave = groups.slice(i, i + 8);
      const done = await Promise.all(wave.map((g) => group(g.node, g.to, g.size)));
      done.forEach((r, j) => results.push(...r.map((x) => ({ ...x, size: wave[j]!.size }))));
    }
    for (const id of INBOXES) {
      const mine = results.filter((r) => r.inbox === id);
      expect(mine.map((r) => r.uid).sort((x, y) => x - y)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
      const row = (await b.inboxes.byId(id))!;
      expect(row.messageCount).toBe(24);
      expect(row.unreadCount).toBe(mine.filter((r) => !r.read).length);
      expect(row.usedBytes).toBe(mine.reduce((s, r) => s + r.size, 0));
      expect(row.uidNext).toBe(25);
    }
    const total = results.reduce((s, r) => s + r.size, 0);
    expect(await a.inboxes.teamUsedBytes("tm_g")).toBe(total);
    expect((await b.teams.byId("tm_g"))!.usedBytes).toBe(total);
    expect((await a.usage.counts("tm_g", "pr_g1"))!.teamUsedBytes).toBe(total);
  });
});
