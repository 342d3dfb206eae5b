// The webhooks' rows on PostgreSQL: a transaction's outbox rows take their seq from their webhook's
// row (delivery_seq, locked until COMMIT), and the dispatcher writes a webhook's health to the same
// row. Taken one event at a time, a group commit whose first message matched webhooks W1 and W3 and
// whose second matched W2 held W3 while it waited for W2; the dispatcher, recording an outcome of W2
// and then one of W3, held W2 while it waited for W3; PostgreSQL aborted one of them after a second
// (an SMTP 451 for every message of the group, or outcomes not recorded and tried again). The outbox
// rows are now written right before COMMIT, their webhooks locked in id order
// (storage/postgres/events.ts, enqueuePgDeliveries), and the dispatcher records in id order too.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Storage } from "../../src/storage";
import type { NewDelivery } from "../../src/storage/events";
import { openPostgresStorage } from "../../src/storage/postgres";
import { type PostgresServer, postgresBinDir, postgresRequired, startPostgres } from "../support/postgres";
import { signal } from "../support/signal";
import { webhookRecord } from "../support/storage-records";

const T = new Date().toISOString();
// Created in this order, so that ids sort W1 < W2 < W3.
const [W1, W2, W3] = ["wh_1", "wh_2", "wh_3"];

let n = 0;
const delivery = (webhookId: string): NewDelivery => ({
  id: `dl_${++n}`,
  webhookId,
  projectId: "pr_w",
  eventId: `ev_${n}`,
  eventType: "message.received",
  orderKey: "",
  maxAttempts: 3,
  nextAttemptAt: 0,
  createdAt: T,
});

describe.skipIf(!postgresBinDir() && !postgresRequired)("PostgreSQL: the webhooks' rows are locked in one order", () => {
  let pg: PostgresServer;
  let s: Storage;

  beforeAll(async () => {
    pg = await startPostgres();
    s = await openPostgresStorage(pg.url, { max: 4 });
    await s.teams.insert({ id: "tm_w", name: "w", plan: "free", usedBytes: 0, createdAt: T });
    await s.projects.insert({ id: "pr_w", teamId: "tm_w", slug: "w", name: "w", environment: "live", settings: {}, createdAt: T });
    for (const id of [W1, W2, W3]) await s.webhooks.insert(webhookRecord(id, "pr_w"));
  });

  afterAll(async () => {
    await s?.close();
    await pg?.stop();
  });

  test("a group commit's fan-out and the dispatcher's outcomes, interleaved the way that deadlocked, both commit", async () => {
    const groupMatched = signal();
    const dispatcherHoldsW2 = signal();
    // The group commit: message 1 matches W1 and W3, message 2 (after the dispatcher took W2) matches W2.
    const group = s.transaction(async (tx) => {
      await tx.webhookDeliveries.enqueue([delivery(W1), delivery(W3)]);
      groupMatched.resolve();
      await dispatcherHoldsW2.promise;
      await tx.webhookDeliveries.enqueue([delivery(W2)]);
    });
    // The dispatcher's outcomes: one of W2, then one of W3 (its order before the fix; the rows now
    // give way because the group holds none of them before its COMMIT).
    const outcomes = (async () => {
      await groupMatched.promise;
      await s.transaction(async (tx) => {
        await tx.webhooks.recordSuccess(W2, T);
        dispatcherHoldsW2.resolve();
        await tx.webhooks.recordFailure(W3, T);
      });
    })();
    const settled = await Promise.allSettled([group, outcomes]);
    expect(settled.map((r) => (r.status === "rejected" ? String(r.reason?.message ?? r.reason) : "ok"))).toEqual(["ok", "ok"]);
    // Every outbox row is there, numbered by its webhook.
    for (const id of [W1, W2, W3]) {
      const rows = await s.webhookDeliveries.listForWebhook(id, null, "zzzz", 10);
      expect(rows.map((r) => r.seq)).toEqual([1]);
      expect((await s.webhooks.byId(id))!.delivery_seq).toBe(1);
    }
    expect((await s.webhooks.byId(W3))!.consecutive_failures).toBe(1);
  }, 20_000);

  test("outbox rows of a savepoint that failed are not written; those of one that succeeded are", async () => {
    await expect(
      s.transaction(async (tx) => {
        await tx.savepoint(async (sp) => {
          await sp.webhookDeliveries.enqueue([delivery(W1)]);
        });
        await tx
          .savepoint(async (sp) => {
            await sp.webhookDeliveries.enqueue([delivery(W2)]);
            throw new Error("this delivery fails");
          })
          .catch(() => {});
      }),
    ).resolves.toBeUndefined();
    expect((await s.webhookDeliveries.listForWebhook(W1, null, "zzzz", 10)).map((r) => r.seq)).toEqual([2, 1]);
    expect((await s.webhookDeliveries.listForWebhook(W2, null, "zzzz", 10)).map((r) => r.seq)).toEqual([1]);
  });
});
