// Two nodes on one PostgreSQL database (two openPostgresStorage, each with its own pool, bus and
// services) racing for the same periodic work, which must be done exactly once:
// - alert coalescing: both nodes raise the same user's alert while the other's transaction is still
//   open; one alert counted twice comes out (before alerts.raise, the second node's INSERT failed on
//   the unique index alerts_coalesce and its whole transaction, an ingest say, was lost);
// - the expiry sweep on both nodes at once: every expired inbox announced once (inbox.expired),
//   every expired message deleted and announced once (message.deleted), the expiring inbox once.
// The services are the real ones (events/build.ts, mail/expiry.ts) on a context holding what they
// read (storage, bus, the webhook attempts setting); no listener, no webhook is involved.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { buildEventServices, eventExpiryHooks } from "../../src/events/build";
import { newId } from "../../src/lib/ids";
import { type BusEvent, LocalBus } from "../../src/lib/bus";
import { ExpiryService } from "../../src/mail/expiry";
import { MailRemoval } from "../../src/mail/removal";
import type { AppContext } from "../../src/runtime/context";
import { sha256Hex, type Storage } from "../../src/storage";
import { openPostgresStorage } from "../../src/storage/postgres";
import { type PostgresServer, postgresBinDir, postgresRequired, startPostgres } from "../support/postgres";
import { inboxRecord, messageRecord, T0 } from "../support/storage-records";

const HOUR = 3600_000;

/** One node: its storage, its own bus (what it publishes) and the services under test. */
function node(storage: Storage) {
  const bus = new LocalBus();
  const heard: BusEvent[] = [];
  bus.subscribe((e) => heard.push(e));
  const ctx = { storage, bus, config: { webhookMaxAttempts: 3 }, workerId: newId() } as unknown as AppContext;
  // The webhook service's inbox and origin services serve its routes, not the fan-out used here.
  const events = buildEventServices(ctx, null as never, null as never);
  const expiry = new ExpiryService(ctx, new MailRemoval(ctx), eventExpiryHooks(events));
  return { ctx, storage, heard, events, expiry };
}

describe.skipIf(!postgresBinDir() && !postgresRequired)("two nodes, one PostgreSQL: periodic work done once", () => {
  let pg: PostgresServer;
  let sql: SQL;
  let a: ReturnType<typeof node>;
  let b: ReturnType<typeof node>;

  beforeAll(async () => {
    pg = await startPostgres();
    a = node(await openPostgresStorage(pg.url, { max: 4 }));
    b = node(await openPostgresStorage(pg.url, { max: 4 }));
    sql = new SQL(pg.url);
    const s = a.storage;
    await s.teams.insert({ id: "tm_j", name: "jobs", plan: "free", usedBytes: 0, createdAt: T0 });
    await s.users.insert({
      id: "us_j",
      teamId: "tm_j",
      email: "j@example.test",
      name: "J",
      passwordHash: "h",
      role: "owner",
      createdAt: T0,
    });
    await s.projects.insert({ id: "pr_j", teamId: "tm_j", slug: "jobs", name: "jobs", environment: "live", settings: {}, createdAt: T0 });
    await s.devices.insert({ id: "ds_j", userId: "us_j", name: "phone", tokenHash: "th-j", createdAt: T0, lastSeenAt: null });
  });

  afterAll(async () => {
    await sql?.close();
    await a?.storage.close();
    await b?.storage.close();
    await pg?.stop();
  });

  /** Until a statement of this database waits for a lock (the other node's open transaction). */
  async function someoneWaitsForALock(): Promise<void> {
    for (let i = 0; i < 500; i++) {
      const [r] =
        await sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
      if (r.n > 0) return;
      await Bun.sleep(10);
    }
    throw new Error("the second node never waited for the first one's lock");
  }

  test("the same alert raised on both nodes at once: one alert, counted twice, both transactions commit", async () => {
    const inbox = inboxRecord("ib_alert", "pr_j", { expiresAt: new Date(Date.now() + 3 * HOUR).toISOString() });
    await a.storage.inboxes.insert(inbox);
    await a.storage.inboxWatches.add({ inboxId: inbox.id, deviceSessionId: "ds_j", userId: "us_j", createdAt: T0 });

    let entered!: () => void;
    const inA = new Promise<void>((r) => {
      entered = r;
    });
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    // A raises and keeps its transaction open; B raises the same alert meanwhile and must wait for A.
    const first = a.storage.transaction(async (tx) => {
      await a.events.alerts.onInboxExpiring(inbox, tx);
      entered();
      await gate;
    });
    await inA;
    const second = b.storage.transaction((tx) => b.events.alerts.onInboxExpiring(inbox, tx));
    await someoneWaitsForALock();
    release();
    const outcome = await Promise.allSettled([first, second]);
    expect(outcome.map((o) => (o.status === "rejected" ? String(o.reason) : o.status))).toEqual(["fulfilled", "fulfilled"]);

    const alerts = await a.storage.alerts.list("us_j", "pr_j", { unread: null, channel: null, type: null }, "~", 10);
    expect(alerts.map((x) => [x.type, x.resource_id, x.count, x.read_at])).toEqual([["inbox.expiring", "ib_alert", 2, null]]);
    const events = await b.storage.eventLog.after("pr_j", 0, "us_j", 100);
    expect(events.filter((e) => e.type.startsWith("alert.")).map((e) => e.type)).toEqual(["alert.created", "alert.updated"]);
  });

  test("both nodes sweep at once: each expired inbox and message goes once, each expiring inbox is announced once", async () => {
    const past = new Date(Date.now() - HOUR).toISOString();
    const expired = Array.from({ length: 6 }, (_, i) => `ib_gone${i}`);
    for (const id of expired) await a.storage.inboxes.insert(inboxRecord(id, "pr_j", { expiresAt: past }));
    // Inside its expiring window (a day's lifetime, 30 minutes left), watched.
    const soon = inboxRecord("ib_soon", "pr_j", {
      expiresAt: new Date(Date.now() + HOUR / 2).toISOString(),
      createdAt: new Date(Date.now() - 23 * HOUR).toISOString(),
    });
    await a.storage.inboxes.insert(soon);
    await a.storage.inboxWatches.add({ inboxId: soon.id, deviceSessionId: "ds_j", userId: "us_j", createdAt: T0 });
    // Messages past their retention in an inbox that stays.
    await a.storage.inboxes.insert(inboxRecord("ib_keep", "pr_j", { type: "persistent" }));
    const retained = [];
    for (let i = 0; i < 4; i++) retained.push(await storeMessage(a.storage, "ib_keep", past));
    const before = await a.storage.eventLog.lastSeq("pr_j");
    a.heard.length = 0;
    b.heard.length = 0;

    const now = new Date().toISOString();
    const [ra, rb] = await Promise.all([a.expiry.sweep(now), b.expiry.sweep(now)]);

    expect(ra.inboxes + rb.inboxes).toBe(expired.length);
    expect(ra.messages + rb.messages).toBe(retained.length);
    expect(ra.expiring + rb.expiring).toBe(1);
    const events = await a.storage.eventLog.after("pr_j", before, "us_j", 500);
    const gone = events.filter((e) => e.type === "inbox.expired").map((e) => JSON.parse(e.data).inbox_id as string);
    expect(gone.sort()).toEqual(expired);
    expect(events.filter((e) => e.type === "inbox.expiring").map((e) => JSON.parse(e.data).inbox_id)).toEqual(["ib_soon"]);
    const heard = [...a.heard, ...b.heard];
    const deleted = heard.flatMap((e) => (e.type === "message.deleted" ? [e.messageId] : []));
    expect(deleted.sort()).toEqual(retained.sort());
    const inboxDeleted = heard.flatMap((e) => (e.type === "inbox.deleted" ? [e.inboxId] : []));
    expect(inboxDeleted.sort()).toEqual(expired);
    for (const id of expired) expect(await b.storage.inboxes.byId(id)).toBeNull();
  });

  test("an announcement that fails takes its change back: the next sweep makes both (no expiry without its event)", async () => {
    // A crash between the change and its announcement, as a failure inside the one transaction both share.
    const past = new Date(Date.now() - HOUR).toISOString();
    await a.storage.inboxes.insert(inboxRecord("ib_crash", "pr_j", { expiresAt: past }));
    const soon = inboxRecord("ib_crash_soon", "pr_j", {
      expiresAt: new Date(Date.now() + HOUR / 2).toISOString(),
      createdAt: new Date(Date.now() - 23 * HOUR).toISOString(),
    });
    await a.storage.inboxes.insert(soon);
    const before = await a.storage.eventLog.lastSeq("pr_j");
    const real = eventExpiryHooks(a.events);
    const failing = new ExpiryService(a.ctx, new MailRemoval(a.ctx), {
      inboxExpired: async (i, tx) => {
        await real.inboxExpired(i, tx);
        throw new Error("the process died here");
      },
      inboxExpiring: async (i, tx) => {
        await real.inboxExpiring(i, tx);
        throw new Error("the process died here");
      },
    });
    const now = new Date().toISOString();
    expect(await failing.sweep(now)).toMatchObject({ inboxes: 0, expiring: 0 });
    expect(await a.storage.inboxes.byId("ib_crash")).not.toBeNull();
    expect((await a.storage.eventLog.after("pr_j", before, "us_j", 100)).map((e) => e.type)).toEqual([]);
    expect(await a.expiry.sweep(now)).toMatchObject({ inboxes: 1, expiring: 1 });
    expect(await a.storage.inboxes.byId("ib_crash")).toBeNull();
    const events = await a.storage.eventLog.after("pr_j", before, "us_j", 100);
    expect(events.filter((e) => e.type.startsWith("inbox.expir")).map((e) => [e.type, JSON.parse(e.data).inbox_id])).toEqual([
      ["inbox.expired", "ib_crash"],
      ["inbox.expiring", "ib_crash_soon"],
    ]);
  });
});

/** Ingest's transaction, reduced: UID, inline blob, message row; returns the message id. */
function storeMessage(node: Storage, inboxId: string, expiresAt: string): Promise<string> {
  return node.transaction(async (tx) => {
    const { uid } = (await tx.inboxes.takeUid(inboxId))!;
    const id = newId();
    const raw = new TextEncoder().encode(`Subject: ${id}\r\n\r\nbody`);
    const key = sha256Hex(raw);
    await tx.putInlineBlob(key, raw);
    await tx.messages.insert(
      messageRecord({
        id,
        inbox_id: inboxId,
        project_id: "pr_j",
        uid,
        blob_key: key,
        size_bytes: raw.byteLength,
        logical_size_bytes: raw.byteLength,
        subject: id,
        expires_at: expiresAt,
      }),
    );
    return id;
  });
}
