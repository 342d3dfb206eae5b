// The bus across nodes (runtime/cluster-bus.ts over PostgreSQL LISTEN/NOTIFY) and the instance
// key's verifier (runtime/secret-check.ts), with two storages on one database standing for two
// nodes. What they prove: an event published on node A reaches B's listeners once and A's own
// listeners once (A drops its own echo); events arrive in the order they were published; a large
// webhook list still wakes the other node; a node with another INBOXD_SECRET_KEY is refused while
// one with the same key is accepted; SQLite keeps the same verifier.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BusEvent, EventBus } from "../../src/lib/bus";
import { Sealer } from "../../src/lib/crypto";
import { ClusterBus } from "../../src/runtime/cluster-bus";
import { secretKeyMismatch } from "../../src/runtime/secret-check";
import type { Storage } from "../../src/storage";
import { openPostgresStorage } from "../../src/storage/postgres";
import { openSqliteStorage } from "../../src/storage/sqlite";
import { type PostgresServer, postgresBinDir, postgresRequired, startPostgres } from "../support/postgres";

const KEY_1 = "11".repeat(32);
const KEY_2 = "22".repeat(32);

/** Resolves once `pred` holds for the events seen so far (the signal travels through the server). */
function until(seen: BusEvent[], pred: (s: BusEvent[]) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const tick = () => (pred(seen) ? resolve() : setTimeout(tick, 5));
    tick();
  });
}

describe.skipIf(!postgresBinDir() && !postgresRequired)("two nodes, one PostgreSQL: the bus and the instance key", () => {
  let pg: PostgresServer;
  let a: Storage;
  let b: Storage;
  let busA: EventBus & { close(): Promise<void> };
  let busB: EventBus & { close(): Promise<void> };
  const seenA: BusEvent[] = [];
  const seenB: BusEvent[] = [];

  beforeAll(async () => {
    pg = await startPostgres();
    a = await openPostgresStorage(pg.url, { max: 3 });
    b = await openPostgresStorage(pg.url, { max: 3 });
    busA = await ClusterBus.open(a.signals, "node-a");
    busB = await ClusterBus.open(b.signals, "node-b");
    busA.subscribe((e) => seenA.push(e));
    busB.subscribe((e) => seenB.push(e));
  });

  afterAll(async () => {
    await busA?.close();
    await busB?.close();
    await a?.close();
    await b?.close();
    await pg?.stop();
  });

  test("PostgreSQL storage has signals; each bus is a ClusterBus", () => {
    expect(a.signals).toBeDefined();
    expect(busA).toBeInstanceOf(ClusterBus);
  });

  test("an event published on A reaches B once, and A's own listeners once", async () => {
    const e: BusEvent = { type: "message.received", projectId: "pr_1", inboxId: "ib_1", messageId: "msg_1" };
    const t0 = performance.now();
    busA.publish(e);
    expect(seenA).toEqual([e]); // local delivery is synchronous, as LocalBus
    await until(seenB, (s) => s.length >= 1);
    console.log(`A→B signal: ${(performance.now() - t0).toFixed(1)} ms`);
    expect(seenB).toEqual([e]);
    // A marker from B proves A has processed everything sent before it, including its own echo.
    const marker: BusEvent = { type: "principal.revoked", kind: "api_key", id: "key_marker" };
    busB.publish(marker);
    await until(seenA, (s) => s.length >= 2);
    expect(seenA).toEqual([e, marker]);
    expect(seenB).toEqual([e, marker]);
  });

  test("a burst arrives complete and in publishing order", async () => {
    seenA.length = 0;
    seenB.length = 0;
    const burst: BusEvent[] = Array.from({ length: 200 }, (_, i) => ({
      type: "message.deleted",
      projectId: "pr_1",
      inboxId: "ib_1",
      messageId: `msg_${i}`,
      mailboxId: null,
      uid: i + 1,
    }));
    for (const e of burst) busA.publish(e);
    await until(seenB, (s) => s.length >= burst.length);
    expect(seenB).toEqual(burst);
    expect(seenA).toEqual(burst);
  });

  test("an outbox wake-up with a webhook list above NOTIFY's 8000 bytes still wakes B (as a wake-up for all)", async () => {
    seenB.length = 0;
    const ids = Array.from({ length: 400 }, (_, i) => `wh_${String(i).padStart(26, "0")}`);
    busA.publish({ type: "outbox.ready", webhookIds: ids });
    await until(seenB, (s) => s.length >= 1);
    expect(seenB).toEqual([{ type: "outbox.ready" }]);
  });

  test("the first node's key seals the verifier; the same key passes on another node, another key is refused", async () => {
    expect(await secretKeyMismatch(a, new Sealer(Buffer.from(KEY_1, "hex")))).toBeNull();
    expect(await secretKeyMismatch(b, new Sealer(Buffer.from(KEY_1, "hex")))).toBeNull();
    const refused = await secretKeyMismatch(b, new Sealer(Buffer.from(KEY_2, "hex")));
    expect(refused).toContain("INBOXD_SECRET_KEY does not match");
  });
});

describe("SQLite: the instance key's verifier", () => {
  test("a data directory opened with one key refuses another", async () => {
    const dir = mkdtempSync(join(tmpdir(), "inboxd-secret-"));
    try {
      const s = openSqliteStorage(dir);
      expect(s.signals).toBeUndefined();
      expect(await secretKeyMismatch(s, new Sealer(Buffer.from(KEY_1, "hex")))).toBeNull();
      expect(await secretKeyMismatch(s, new Sealer(Buffer.from(KEY_1, "hex")))).toBeNull();
      expect(await secretKeyMismatch(s, new Sealer(Buffer.from(KEY_2, "hex")))).toContain("INBOXD_SECRET_KEY does not match");
      await s.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
