// Cross-node wake-ups on PostgreSQL (docs/scaling.md, "Event bus"): two connections to one
// database stand for two nodes. A NOTIFY made inside a transaction reaches the other node only
// once the transaction commits, in commit order, and never when it rolls back.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PgConnection } from "../../src/storage/postgres";
import { type PostgresServer, postgresBinDir, postgresRequired, startPostgres } from "../support/postgres";
import { needs } from "../support/components";

const bin = postgresBinDir();
needs("postgres", bin !== null, "apt-get install postgresql");

/** Resolves once `got` holds n payloads. */
async function until(got: string[], n: number): Promise<void> {
  while (got.length < n) await Bun.sleep(5);
}

describe.skipIf(!bin && !postgresRequired)("LISTEN/NOTIFY between two nodes", () => {
  let pg: PostgresServer;
  let nodeA: PgConnection;
  let nodeB: PgConnection;
  const got: string[] = [];
  let unlisten: () => Promise<void>;

  beforeAll(async () => {
    pg = await startPostgres();
    nodeA = await PgConnection.open(pg.url, { max: 3 });
    nodeB = await PgConnection.open(pg.url, { max: 3 });
    unlisten = await nodeB.listen("inboxd", (p) => got.push(p));
  });

  afterAll(async () => {
    await unlisten?.();
    await nodeA?.close();
    await nodeB?.close();
    await pg?.stop();
  });

  test("a notification made in a transaction arrives at the other node after its COMMIT, not before", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let sent!: () => void;
    const notified = new Promise<void>((r) => {
      sent = r;
    });
    const tx = nodeA.transaction(async (t) => {
      await t.notify("inboxd", "message.received:pr_1:ib_1");
      sent();
      await held;
    });
    await notified;
    // An autocommit notification sent after it overtakes it: delivery follows commit order.
    await nodeA.notify("inboxd", "autocommit");
    await until(got, 1);
    expect(got).toEqual(["autocommit"]);
    release();
    await tx;
    await until(got, 2);
    expect(got).toEqual(["autocommit", "message.received:pr_1:ib_1"]);
  });

  test("a rolled-back transaction's notification is never delivered", async () => {
    got.length = 0;
    await expect(
      nodeA.transaction(async (t) => {
        await t.notify("inboxd", "rolled back");
        throw new Error("rollback");
      }),
    ).rejects.toThrow("rollback");
    // A marker sent afterwards on the same channel: once it arrives, anything sent before would have.
    await nodeA.notify("inboxd", "marker");
    await until(got, 1);
    expect(got).toEqual(["marker"]);
  });
});
