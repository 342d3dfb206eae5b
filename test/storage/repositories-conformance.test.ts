// The repository contract (src/storage/<capability>.ts), asserted once and run against both
// engines: SQLite (openSqliteStorage) and PostgreSQL (openPostgresStorage, a real server this
// file starts). Tenancy, domains and events here (automation: automation-conformance.test.ts):
// what is written reads back the same, lists keep their order and pages, updates and deletes
// report what they did, a transaction that throws leaves nothing, a savepoint that throws undoes
// only its own writes, and claims made at once by two callers never overlap.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { inboxRecord, T0, webhookRecord } from "../support/storage-records";
import type { DomainRecord } from "../../src/storage/domains";
import type { AlertRecord, EventRecord } from "../../src/storage/events";
import type { InboxRecord } from "../../src/storage/mail";
import type { ApiKeyRecord, ProjectRecord, TeamRecord, UserRecord } from "../../src/storage/tenancy";
import { type Engine, storageEngines } from "../support/storage-engines";

const ENGINES = storageEngines();

const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

const team = (id: string, name = `team ${id}`): TeamRecord => ({ id, name, plan: "free", usedBytes: 0, createdAt: T0 });
const user = (id: string, teamId: string, createdAt = T0): UserRecord => ({
  id,
  teamId,
  email: `${id}@example.test`,
  name: `User ${id}`,
  passwordHash: `hash-${id}`,
  role: "owner",
  createdAt,
});
const project = (id: string, teamId: string): ProjectRecord => ({
  id,
  teamId,
  slug: `slug-${id}`,
  name: `Project ${id}`,
  environment: "live",
  settings: { retentionDays: 7, nested: { on: true } },
  createdAt: T0,
});
const apiKey = (id: string, projectId: string): ApiKeyRecord => ({
  id,
  projectId,
  name: `key ${id}`,
  environment: "live",
  secretHash: `secret-${id}`,
  lastFour: id.slice(-4),
  scopes: ["inboxes:read", "messages:read"],
  lastUsedAt: null,
  expiresAt: null,
  revokedAt: null,
  createdAt: T0,
});
const domain = (id: string, projectId: string, name: string, patch: Partial<DomainRecord> = {}): DomainRecord => ({
  id,
  project_id: projectId,
  domain: name,
  mode: "normal",
  status: "pending",
  dkim_selector: "inboxd1",
  dkim_private_key_enc: "enc",
  dkim_public_key: "pub",
  ownership_token: `tok-${id}`,
  catch_all_inbox_id: null,
  verified_at: null,
  last_checked_at: null,
  failure_reason: null,
  record_status: "{}",
  check_claimed_until: null,
  created_at: T0,
  ...patch,
});

for (const engine of ENGINES) {
  describe.skipIf(!engine.available)(`repositories on ${engine.name}`, () => {
    let s: Engine;

    beforeAll(async () => {
      s = await engine.open();
      await s.teams.insert(team("tm_a"));
      await s.teams.insert(team("tm_b"));
      await s.users.insert(user("us_a1", "tm_a", at(1)));
      await s.users.insert(user("us_a0", "tm_a", at(1)));
      await s.users.insert(user("us_b1", "tm_b", at(0)));
      for (const id of ["pr_a1", "pr_a2", "pr_a3"]) await s.projects.insert(project(id, "tm_a"));
      await s.projects.insert(project("pr_b1", "tm_b"));
    });

    afterAll(async () => {
      await s?.close();
      await engine.stop();
    });

    test("check answers for reads and writes", async () => {
      await expect(s.check(false)).resolves.toBeUndefined();
      await expect(s.check(true)).resolves.toBeUndefined();
    });

    test("teams: insert, read by id and name, any", async () => {
      expect(await s.teams.any()).toBe(true);
      expect(await s.teams.byId("tm_a")).toEqual(team("tm_a"));
      expect(await s.teams.byName("team tm_b")).toEqual(team("tm_b"));
      expect(await s.teams.byId("tm_none")).toBeNull();
      await expect(s.teams.insert(team("tm_c", "team tm_a"))).rejects.toThrow();
    });

    test("users: read back, oldest first with id as tie-break, password change", async () => {
      expect(await s.users.byEmail("us_a1@example.test")).toEqual(user("us_a1", "tm_a", at(1)));
      expect((await s.users.all()).map((u) => u.id)).toEqual(["us_b1", "us_a0", "us_a1"]);
      await s.users.setPasswordHash("us_a1", "new-hash");
      expect((await s.users.byId("us_a1"))!.passwordHash).toBe("new-hash");
    });

    test("projects: settings round-trip as JSON, pages newest first, filters, update", async () => {
      expect(await s.projects.byId("pr_a1")).toEqual(project("pr_a1", "tm_a"));
      expect(await s.projects.withPlan("pr_b1")).toEqual({ project: project("pr_b1", "tm_b"), plan: "free" });
      expect(await s.projects.slugTaken("slug-pr_a2")).toBe(true);
      expect(await s.projects.slugTaken("slug-none")).toBe(false);
      expect((await s.projects.firstOfTeamNamed("team tm_a"))!.id).toBe("pr_a1");
      const ids = async (only: string | null, before: string | null, limit: number) =>
        (await s.projects.listForTeam("tm_a", only, before, limit)).map((p) => p.id);
      expect(await ids(null, null, 10)).toEqual(["pr_a3", "pr_a2", "pr_a1"]);
      expect(await ids(null, "pr_a3", 1)).toEqual(["pr_a2"]);
      expect(await ids("pr_a2", null, 10)).toEqual(["pr_a2"]);
      expect(await ids("pr_b1", null, 10)).toEqual([]);
      await s.projects.update("pr_a3", { name: "Renamed", settings: { a: [1, 2] } });
      const p = await s.projects.byId("pr_a3");
      expect([p!.name, p!.settings]).toEqual(["Renamed", { a: [1, 2] }]);
    });

    test("device sessions: lookup by token with the user, pages, touch, expiry and deletes count rows", async () => {
      for (const [id, created] of [
        ["ds_1", at(0)],
        ["ds_2", at(10)],
        ["ds_3", at(20)],
      ] as const) {
        await s.devices.insert({ id, userId: "us_b1", name: id, tokenHash: `th-${id}`, createdAt: created, lastSeenAt: null });
      }
      const found = await s.devices.byTokenHash("th-ds_2");
      expect([found!.session.id, found!.user.id]).toEqual(["ds_2", "us_b1"]);
      expect(await s.devices.byTokenHash("th-none")).toBeNull();
      expect((await s.devices.listForUser("us_b1", null, 2)).map((d) => d.id)).toEqual(["ds_3", "ds_2"]);
      expect((await s.devices.listForUser("us_b1", "ds_2", 5)).map((d) => d.id)).toEqual(["ds_1"]);
      await s.devices.touch("ds_1", at(30));
      // ds_1 was seen at 30 (not idle), ds_2 idle since 10, ds_3 idle since 20: idle before 15 drops ds_2 only.
      expect(await s.devices.deleteExpiredForUser("us_b1", at(15), at(-1))).toBe(1);
      expect(await s.devices.deleteForUser("us_a1", "ds_1")).toBe(false);
      expect(await s.devices.deleteForUser("us_b1", "ds_1")).toBe(true);
      expect(await s.devices.deleteAllForUser("us_b1")).toBe(1);
      expect(await s.devices.listForUser("us_b1", null, 10)).toEqual([]);
    });

    test("sign-in tokens: consumed once, never after expiry", async () => {
      await s.signinTokens.insert({ tokenHash: "st_1", userId: "us_a0", createdAt: at(0), expiresAt: at(15) });
      await s.signinTokens.insert({ tokenHash: "st_2", userId: "us_a0", createdAt: at(0), expiresAt: at(5) });
      expect(await s.signinTokens.consume("st_2", at(5))).toBeNull();
      expect(await s.signinTokens.consume("st_1", at(10))).toBe("us_a0");
      expect(await s.signinTokens.consume("st_1", at(10))).toBeNull();
    });

    test("API keys: scopes round-trip, pages, revoke, rotate, touch", async () => {
      for (const id of ["ak_0001", "ak_0002", "ak_0003"]) await s.apiKeys.insert(apiKey(id, "pr_a1"));
      expect(await s.apiKeys.bySecretHash("secret-ak_0002")).toEqual({ key: apiKey("ak_0002", "pr_a1"), teamId: "tm_a" });
      expect(await s.apiKeys.inProject("pr_a2", "ak_0002")).toBeNull();
      expect((await s.apiKeys.listInProject("pr_a1", null, 2)).map((k) => k.id)).toEqual(["ak_0003", "ak_0002"]);
      expect((await s.apiKeys.listInProject("pr_a1", "ak_0002", 2)).map((k) => k.id)).toEqual(["ak_0001"]);
      await s.apiKeys.revoke("ak_0001", at(1));
      await s.apiKeys.replaceSecret("ak_0002", "secret-rotated", "ated");
      await s.apiKeys.touch("ak_0003", at(2));
      expect(await s.apiKeys.secretHashExists("secret-ak_0002")).toBe(false);
      expect(await s.apiKeys.secretHashExists("secret-rotated")).toBe(true);
      const k = await s.apiKeys.inProject("pr_a1", "ak_0001");
      expect(k!.revokedAt).toBe(at(1));
      expect((await s.apiKeys.inProject("pr_a1", "ak_0003"))!.lastUsedAt).toBe(at(2));
    });

    test("idempotency keys: found only after `since`, put replaces, prune counts", async () => {
      const rec = {
        principalId: "p1",
        route: "POST /v1/inboxes",
        key: "k1",
        bodyHash: "h1",
        status: 201,
        body: '{"id":1}',
        createdAt: at(0),
      };
      await s.idempotencyKeys.put(rec);
      expect(await s.idempotencyKeys.find("p1", "POST /v1/inboxes", "k1", at(-1))).toEqual(rec);
      expect(await s.idempotencyKeys.find("p1", "POST /v1/inboxes", "k1", at(0))).toBeNull();
      await s.idempotencyKeys.put({ ...rec, status: 200, body: '{"id":2}', createdAt: at(5) });
      expect((await s.idempotencyKeys.find("p1", "POST /v1/inboxes", "k1", at(-1)))!.body).toBe('{"id":2}');
      await s.idempotencyKeys.put({ ...rec, key: "k2", createdAt: at(1) });
      expect(await s.idempotencyKeys.prune(at(1))).toBe(1);
      expect(await s.idempotencyKeys.prune(at(1))).toBe(0);
    });

    test("usage: the real counts of a team and project", async () => {
      const u = await s.usage.counts("tm_a", "pr_a1");
      expect(u).toEqual({
        teamUsedBytes: 0,
        teamCreatedAt: T0,
        teamInboxes: 0,
        projectInboxes: 0,
        projectMessages: 0,
        teamMembers: 2,
        projectStorageBytes: 0,
        teamCustomDomains: 0,
        projectApiKeys: 2, // three made, one revoked
      });
      expect(await s.usage.counts("tm_none", "pr_a1")).toBeNull();
    });

    test("a transaction commits all its writes together, and a throw leaves none", async () => {
      await s.transaction(async (tx) => {
        await tx.teams.insert(team("tm_tx1"));
        await tx.users.insert(user("us_tx1", "tm_tx1"));
      });
      expect((await s.users.byId("us_tx1"))!.teamId).toBe("tm_tx1");
      const boom = new Error("boom");
      await expect(
        s.transaction(async (tx) => {
          await tx.teams.insert(team("tm_tx2"));
          await tx.users.insert(user("us_tx2", "tm_tx2"));
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(await s.teams.byId("tm_tx2")).toBeNull();
      expect(await s.users.byId("us_tx2")).toBeNull();
      // A failing statement aborts the whole transaction too (the duplicate team name).
      await expect(
        s.transaction(async (tx) => {
          await tx.teams.insert(team("tm_tx3"));
          await tx.teams.insert(team("tm_tx4", "team tm_tx3"));
        }),
      ).rejects.toThrow();
      expect(await s.teams.byId("tm_tx3")).toBeNull();
    });

    test("a savepoint that throws undoes only its own writes; the transaction goes on and commits", async () => {
      const result = await s.transaction(async (tx) => {
        await tx.teams.insert(team("tm_sp1"));
        const inner = await tx
          .savepoint(async (sp) => {
            await sp.teams.insert(team("tm_sp2"));
            throw new Error("undo me");
          })
          .catch((e: Error) => e.message);
        const kept = await tx.savepoint(async (sp) => {
          await sp.teams.insert(team("tm_sp3"));
          return "kept";
        });
        // The transaction's own repositories see its uncommitted writes.
        return [inner, kept, (await tx.teams.byId("tm_sp3"))?.id];
      });
      expect(result).toEqual(["undo me", "kept", "tm_sp3"]);
      expect((await s.teams.byId("tm_sp1"))?.id).toBe("tm_sp1");
      expect(await s.teams.byId("tm_sp2")).toBeNull();
      expect((await s.teams.byId("tm_sp3"))?.id).toBe("tm_sp3");
    });

    const event = (id: string, projectId: string, userId: string | null, minute: number): EventRecord => ({
      id,
      projectId,
      type: "message.received",
      inboxId: null,
      userId,
      data: JSON.stringify({ id }),
      occurredAt: at(minute),
      messageId: null,
    });

    test("event log: seqs grow, after() pages oldest first and hides other users' events, byId, prune by age", async () => {
      const base = await s.eventLog.lastSeq("pr_a1");
      expect(base).toBe(0);
      const seqs: number[] = [];
      seqs.push(await s.eventLog.append(event("ev_1", "pr_a1", null, 1)));
      seqs.push(await s.eventLog.append(event("ev_2", "pr_a1", "us_a0", 2)));
      seqs.push(await s.eventLog.append(event("ev_3", "pr_a2", null, 3)));
      seqs.push(await s.eventLog.append(event("ev_4", "pr_a1", "us_a1", 4)));
      expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
      expect(await s.eventLog.lastSeq("pr_a1")).toBe(seqs[3]);
      const ids = async (seq: number, userId: string | null, limit = 10) =>
        (await s.eventLog.after("pr_a1", seq, userId, limit)).map((e) => e.id);
      expect(await ids(0, null)).toEqual(["ev_1"]);
      expect(await ids(0, "us_a0")).toEqual(["ev_1", "ev_2"]);
      expect(await ids(seqs[0], "us_a1")).toEqual(["ev_4"]);
      expect(await ids(0, "us_a0", 1)).toEqual(["ev_1"]);
      expect(await s.eventLog.byId("ev_2")).toEqual({
        seq: seqs[1],
        id: "ev_2",
        type: "message.received",
        data: '{"id":"ev_2"}',
        occurred_at: at(2),
      });
      expect(await s.eventLog.byId("ev_none")).toBeNull();
      expect(await s.eventLog.prune(at(3), 1)).toBe(1);
      expect(await s.eventLog.prune(at(3), 10)).toBe(1);
      expect(await s.eventLog.prune(at(3), 10)).toBe(0);
      expect((await s.eventLog.after("pr_a1", 0, "us_a1", 10)).map((e) => e.id)).toEqual(["ev_4"]);
    });

    test("event log: appends to one project commit in seq order, so a reader never skips one", async () => {
      let openGate!: () => void;
      const gate = new Promise<void>((r) => {
        openGate = r;
      });
      let appended!: () => void;
      const firstAppended = new Promise<void>((r) => {
        appended = r;
      });
      const committed: string[] = [];
      const first = s.transaction(async (tx) => {
        const seq = await tx.eventLog.append(event("ev_first", "pr_b1", null, 10));
        appended();
        await gate;
        return seq;
      });
      // `first` has its seq and holds its transaction open.
      await firstAppended;
      const second = s
        .transaction((tx) => tx.eventLog.append(event("ev_second", "pr_b1", null, 11)))
        .then((seq) => {
          committed.push("second");
          return seq;
        });
      void first.then(() => committed.push("first"));
      let a: number;
      let b: number;
      try {
        // Give `second` every chance to commit ahead of `first` if the engine allowed it.
        await Bun.sleep(200);
        expect(committed).toEqual([]);
      } finally {
        openGate();
        [a, b] = await Promise.all([first, second]);
      }
      // Which commit's answer reaches this process first is up to two sockets; what matters is that
      // `second` could not commit while `first` held the lower seq open (checked above).
      expect(committed.sort()).toEqual(["first", "second"]);
      expect(b).toBeGreaterThan(a);
      expect((await s.eventLog.after("pr_b1", 0, null, 10)).map((e) => e.id)).toEqual(["ev_first", "ev_second"]);
    });

    test("Transaction.appendEvent: in the order made, with the transaction; a failed savepoint's or transaction's events are gone", async () => {
      const base = await s.eventLog.lastSeq("pr_b1");
      const made = (id: string, minute: number) => ({
        ...event(id, "pr_b1", null, minute),
        data: JSON.stringify({ id, subject: "a\u0000b" }),
      });
      await s.transaction(async (tx) => {
        await tx.appendEvent(made("ev_tx1", 20));
        await tx.savepoint(async (sp) => sp.appendEvent(made("ev_tx2", 21)));
        await tx
          .savepoint(async (sp) => {
            await sp.appendEvent(made("ev_undone", 22));
            throw new Error("this delivery fails");
          })
          .catch(() => undefined);
        // Other projects' events in the same transaction (PostgreSQL locks each project once, in one order).
        await tx.appendEvent({ ...event("ev_other", "pr_b9", null, 23) });
        await tx.appendEvent(made("ev_tx3", 24));
      });
      await expect(
        s.transaction(async (tx) => {
          await tx.appendEvent(made("ev_rolled_back", 25));
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      const after = await s.eventLog.after("pr_b1", base, null, 10);
      expect(after.map((e) => e.id)).toEqual(["ev_tx1", "ev_tx2", "ev_tx3"]);
      expect(after.map((e) => e.occurred_at)).toEqual([at(20), at(21), at(24)]);
      // A NUL the subject carried survives as JSON's escape (the JSON text itself holds none).
      expect(JSON.parse(after[0]!.data).subject).toBe("a\u0000b");
      expect((await s.eventLog.after("pr_b9", 0, null, 10)).map((e) => e.id)).toEqual(["ev_other"]);
    });

    const MS = Date.parse(T0);

    test("webhooks: insert returns the stored row, pages, update, rotate, dispatch state, circuit, pause, delete", async () => {
      expect(await s.webhooks.insert(webhookRecord("wh_1", "pr_a1"))).toEqual(webhookRecord("wh_1", "pr_a1"));
      await s.webhooks.insert(webhookRecord("wh_2", "pr_a1"));
      await s.webhooks.insert(webhookRecord("wh_3", "pr_a1"));
      expect((await s.webhooks.listInProject("pr_a1", "wh_3", 10)).map((w) => w.id)).toEqual(["wh_2", "wh_1"]);
      expect(await s.webhooks.inProject("pr_a2", "wh_1")).toBeNull();
      await s.webhooks.update("wh_3", {
        url: "https://x.test/",
        event_types: "[]",
        inbox_id: "ib_x",
        description: "d",
        enabled: 0,
        updated_at: at(1),
      });
      expect((await s.webhooks.enabledInProject("pr_a1")).map((w) => w.id).sort()).toEqual(["wh_1", "wh_2"]);
      const rotated = await s.webhooks.rotateSecret("wh_1", "sealed2", "sealed", at(60), at(2));
      expect([rotated.secret_enc, rotated.previous_secret_enc, rotated.previous_expires_at]).toEqual(["sealed2", "sealed", at(60)]);
      expect(await s.webhooks.recordFailure("wh_1", at(3))).toBe(1);
      expect(await s.webhooks.recordFailure("wh_1", at(4))).toBe(2);
      await s.webhooks.setCircuit("wh_1", MS + 5_000);
      expect(await s.webhooks.dispatchState("wh_1")).toEqual({ id: "wh_1", consecutive_failures: 2, circuit_open_until: MS + 5_000 });
      await s.webhooks.recordSuccess("wh_1", at(5));
      expect(await s.webhooks.dispatchState("wh_1")).toEqual({ id: "wh_1", consecutive_failures: 0, circuit_open_until: 0 });
      await s.webhooks.setCircuit("wh_1", MS + 9_000, 7);
      expect((await s.webhooks.byId("wh_1"))!.consecutive_failures).toBe(7);
      expect((await s.webhooks.setPaused("pr_a1", "wh_1", true, at(6)))!.paused).toBe(1);
      expect(await s.webhooks.dispatchState("wh_1")).toBeNull();
      const resumed = await s.webhooks.setPaused("pr_a1", "wh_1", false, at(7));
      expect([resumed!.paused, resumed!.consecutive_failures, resumed!.circuit_open_until]).toEqual([0, 0, 0]);
      expect(await s.webhooks.setPaused("pr_a2", "wh_1", true, at(8))).toBeNull();
      expect((await s.webhooks.dispatchStates()).map((d) => d.id).sort()).toEqual(["wh_1", "wh_2"]);
      expect(await s.webhooks.deleteInProject("pr_a1", "wh_3")).toBe(true);
      expect(await s.webhooks.deleteInProject("pr_a1", "wh_3")).toBe(false);
    });

    test("webhook deliveries: per-webhook seq, claims only what is due, two claimers never share one, record is conditional", async () => {
      const rows = Array.from({ length: 10 }, (_, i) => ({
        id: `dl_${String(i).padStart(2, "0")}`,
        webhookId: "wh_2",
        projectId: "pr_a1",
        eventId: `ev_x${i}`,
        eventType: "message.received",
        orderKey: "",
        maxAttempts: 3,
        nextAttemptAt: MS + (i < 8 ? i : 60_000),
        createdAt: at(0),
      }));
      await s.webhookDeliveries.enqueue(rows.slice(0, 5));
      await s.webhookDeliveries.enqueue(rows.slice(5));
      const listed = await s.webhookDeliveries.listForWebhook("wh_2", "pending", "dl_99", 20);
      expect(listed.map((d) => [d.id, d.seq])).toEqual(rows.map((r, i) => [r.id, i + 1]).reverse());
      expect((await s.webhooks.byId("wh_2"))!.delivery_seq).toBe(10);
      expect(await s.webhookDeliveries.pendingCount("wh_2")).toBe(10);
      expect(await s.webhookDeliveries.nextDue("wh_2")).toBe(MS);
      const now = MS + 1_000;
      const [a, b] = await Promise.all([
        s.webhookDeliveries.claim("node-a", "wh_2", now, now + 30_000, 5),
        s.webhookDeliveries.claim("node-b", "wh_2", now, now + 30_000, 5),
      ]);
      const claimed = [...a, ...b].map((d) => d.id);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(claimed.sort()).toEqual(rows.slice(0, 8).map((r) => r.id));
      expect(a.map((d) => d.next_attempt_at)).toEqual([...a.map((d) => d.next_attempt_at)].sort((x, y) => x - y));
      expect(await s.webhookDeliveries.claim("node-c", "wh_2", now, now + 30_000, 5)).toEqual([]);
      // The earliest due is now the lapse of the claims.
      expect(await s.webhookDeliveries.nextDue("wh_2")).toBe(now + 30_000);
      const d0 = [...a, ...b].find((d) => d.id === "dl_00")!;
      const outcome = {
        attemptId: "at_1",
        attempt: 1,
        status: "succeeded" as const,
        nextAttemptAt: now,
        statusCode: 200,
        error: null,
        completedAt: at(1),
        ok: true,
        excerpt: "ok",
        startedAt: at(1),
        durationMs: 12,
      };
      expect(await s.webhookDeliveries.record({ id: "dl_00", claimed_by: "someone-else", attempts: 0 }, outcome)).toBe(false);
      expect(await s.webhookDeliveries.record({ id: d0.id, claimed_by: d0.claimed_by, attempts: d0.attempts }, outcome)).toBe(true);
      expect(await s.webhookDeliveries.record({ id: d0.id, claimed_by: d0.claimed_by, attempts: d0.attempts }, outcome)).toBe(false);
      expect(await s.webhookDeliveries.attempts("dl_00")).toEqual([
        { attempt: 1, started_at: at(1), duration_ms: 12, status_code: 200, ok: 1, error: null, response_excerpt: "ok" },
      ]);
      const done = await s.webhookDeliveries.inWebhook("pr_a1", "wh_2", "dl_00");
      expect([done!.status, done!.claimed_by, done!.claimed_until]).toEqual(["succeeded", null, 0]);
      // Release hands back only the releasing worker's claims.
      const mineA = a.map((d) => d.id);
      await s.webhookDeliveries.release("node-b", mineA);
      await s.webhookDeliveries.release("node-a", mineA);
      const again = await s.webhookDeliveries.claim("node-d", "wh_2", now, now + 30_000, 20);
      expect(again.map((d) => d.id).sort()).toEqual(mineA.filter((id) => id !== "dl_00").sort());
      // Paused webhook: nothing is claimed.
      await s.webhookDeliveries.release(
        "node-d",
        again.map((d) => d.id),
      );
      await s.webhooks.setPaused("pr_a1", "wh_2", true, at(2));
      expect(await s.webhookDeliveries.claim("node-e", "wh_2", now, now + 30_000, 20)).toEqual([]);
      await s.webhooks.setPaused("pr_a1", "wh_2", false, at(3));
      // Redeliver a finished one; then prune the finished ones.
      const re = await s.webhookDeliveries.redeliver("dl_00", now + 5);
      expect([re!.status, re!.max_attempts, re!.next_attempt_at, re!.completed_at]).toEqual(["pending", 2, now + 5, null]);
      expect(await s.webhookDeliveries.redeliver("dl_00", now + 5)).toBeNull();
      const test = await s.webhookDeliveries.insertClaimed({
        id: "dl_test",
        webhookId: "wh_2",
        projectId: "pr_a1",
        eventType: "webhook.test",
        orderKey: "",
        payload: "{}",
        maxAttempts: 1,
        nextAttemptAt: now,
        claimedUntil: now + 10_000,
        claimedBy: "node-a",
        createdAt: at(0),
      });
      expect([test.seq, test.claimed_until, test.payload, test.event_id]).toEqual([0, now + 10_000, "{}", null]);
      await s.webhookDeliveries.record(
        { id: "dl_test", claimed_by: "node-a", attempts: 0 },
        { ...outcome, attemptId: "at_2", status: "failed", completedAt: at(2) },
      );
      expect((await s.webhookDeliveries.listForWebhook("wh_2", "failed", "dl_zz", 10)).map((d) => d.id)).toEqual(["dl_test"]);
      expect(await s.webhookDeliveries.prune(at(3), 10)).toBe(1);
      expect(await s.webhookDeliveries.inWebhook("pr_a1", "wh_2", "dl_test")).toBeNull();
    });

    const alert = (id: string, userId: string, patch: Partial<AlertRecord> = {}): AlertRecord => ({
      id,
      project_id: "pr_a1",
      user_id: userId,
      type: "inbox.expiring",
      channel: "web",
      severity: "info",
      title: `alert ${id}`,
      detail: "d",
      resource_type: "inbox",
      resource_id: `ib_${id}`,
      inbox_id: `ib_${id}`,
      inbox_address: `${id}@example.test`,
      count: 1,
      occurred_at: at(0),
      read_at: null,
      ...patch,
    });

    test("alerts: raise creates or coalesces into the unread one, filters, unread count, read marks, team owners", async () => {
      expect(await s.alerts.insert(alert("al_1", "us_a0"))).toEqual(alert("al_1", "us_a0"));
      await s.alerts.insert(alert("al_2", "us_a0", { channel: "email", type: "quota" }));
      await s.alerts.insert(alert("al_3", "us_a1"));
      // Same user, type and resource as the unread al_1: bumps it; another user's: a new alert.
      const again = alert("al_4", "us_a0", {
        resource_id: "ib_al_1",
        inbox_id: "ib_x",
        inbox_address: "a@example.test",
        detail: "again",
        occurred_at: at(5),
      });
      const bumped = await s.alerts.raise(again);
      expect([bumped.created, bumped.row.id, bumped.row.count, bumped.row.detail, bumped.row.occurred_at, bumped.row.inbox_id]).toEqual([
        false,
        "al_1",
        2,
        "again",
        at(5),
        "ib_x",
      ]);
      expect(await s.alerts.raise(alert("al_5", "us_a1", { resource_id: "ib_al_1" }))).toEqual({
        created: true,
        row: alert("al_5", "us_a1", { resource_id: "ib_al_1" }),
      });
      expect((await s.alerts.setTitle("al_1", "New title")).title).toBe("New title");
      const list = async (f: { unread: boolean | null; channel: string | null; type: string | null }) =>
        (await s.alerts.list("us_a0", "pr_a1", f, "al_99", 10)).map((a) => a.id);
      expect(await list({ unread: null, channel: null, type: null })).toEqual(["al_2", "al_1"]);
      expect(await list({ unread: null, channel: "email", type: null })).toEqual(["al_2"]);
      expect(await list({ unread: null, channel: null, type: "inbox.expiring" })).toEqual(["al_1"]);
      expect(await s.alerts.unreadCount("us_a0", "pr_a1")).toBe(2);
      expect((await s.alerts.existing("us_a0", "pr_a1", ["al_1", "al_3", "al_none"])).sort()).toEqual(["al_1"]);
      await s.alerts.markRead("us_a0", "pr_a1", ["al_1", "al_3"], at(6));
      expect(await list({ unread: true, channel: null, type: null })).toEqual(["al_2"]);
      expect(await list({ unread: false, channel: null, type: null })).toEqual(["al_1"]);
      // A read alert no longer coalesces.
      const fresh = await s.alerts.raise(alert("al_6", "us_a0", { resource_id: "ib_al_1", occurred_at: at(7) }));
      expect([fresh.created, fresh.row.id, fresh.row.count]).toEqual([true, "al_6", 1]);
      await s.alerts.markAllRead("us_a0", "pr_a1", at(8));
      expect(await s.alerts.unreadCount("us_a0", "pr_a1")).toBe(0);
      expect(await s.alerts.unreadCount("us_a1", "pr_a1")).toBe(2);
      expect((await s.alerts.teamOwnerIds("tm_a")).sort()).toEqual(["us_a0", "us_a1"]);
    });

    test("domains: insert, read, pages, count per team, related claims, delete", async () => {
      await s.domains.insert(domain("dm_1", "pr_a1", "example.test"));
      await s.domains.insert(domain("dm_2", "pr_a1", "mail.example.test"));
      await s.domains.insert(domain("dm_3", "pr_b1", "example.test"));
      await s.domains.insert(domain("dm_4", "pr_a2", "other.test"));
      expect(await s.domains.inProject("pr_a1", "dm_1")).toEqual(domain("dm_1", "pr_a1", "example.test"));
      expect(await s.domains.inProject("pr_a2", "dm_1")).toBeNull();
      expect((await s.domains.listInProject("pr_a1", null, 10)).map((d) => d.id)).toEqual(["dm_2", "dm_1"]);
      expect((await s.domains.listInProject("pr_a1", "dm_2", 10)).map((d) => d.id)).toEqual(["dm_1"]);
      expect(await s.domains.countForTeam("tm_a")).toBe(3);
      await expect(s.domains.insert(domain("dm_dup", "pr_a1", "example.test"))).rejects.toThrow();
      const related = (await s.domains.related("example.test")).map((r) => `${r.domain}:${r.projectId}:${r.teamId}:${r.status}`).sort();
      expect(related).toEqual([
        "example.test:pr_a1:tm_a:pending",
        "example.test:pr_b1:tm_b:pending",
        "mail.example.test:pr_a1:tm_a:pending",
      ]);
      expect((await s.domains.related("deep.mail.example.test")).map((r) => r.domain).sort()).toEqual([
        "example.test",
        "example.test",
        "mail.example.test",
      ]);
      expect((await s.usage.counts("tm_a", "pr_a1"))!.teamCustomDomains).toBe(3);
      await s.domains.deleteInProject("pr_a2", "dm_4");
      expect(await s.domains.inProject("pr_a2", "dm_4")).toBeNull();
      expect(await s.domains.mailboxIds("pr_a1", "dm_1")).toEqual([]);
      expect(await s.domains.catchAllInbox("example.test")).toBeNull();
    });

    test("domains: the first claim verified wins the name; checks and failures are recorded", async () => {
      const check = { at: at(3), recordStatus: '{"mx":"ok"}' };
      expect(await s.domains.markVerified("dm_3", check)).toBe(true);
      expect(await s.domains.markVerified("dm_1", check)).toBe(false);
      expect((await s.domains.inProject("pr_a1", "dm_1"))!.status).toBe("pending");
      const v = await s.domains.inProject("pr_b1", "dm_3");
      expect([v!.status, v!.verified_at, v!.record_status]).toEqual(["verified", at(3), '{"mx":"ok"}']);
      await s.domains.recordCheck("dm_3", { at: at(4), recordStatus: "{}" });
      expect((await s.domains.inProject("pr_b1", "dm_3"))!.status).toBe("verified");
      await s.domains.markFailed("dm_1", check, "no MX");
      const f = await s.domains.inProject("pr_a1", "dm_1");
      expect([f!.status, f!.failure_reason, f!.last_checked_at]).toEqual(["failed", "no MX", at(3)]);
    });

    test("domains scheduler: claims never-checked first, never hands one domain to two workers, finish releases", async () => {
      const ids = Array.from({ length: 12 }, (_, i) => `dq_${String(i).padStart(2, "0")}`);
      for (const [i, id] of ids.entries()) {
        await s.domains.insert(domain(id, "pr_a3", `q${i}.test`, { last_checked_at: i < 4 ? null : at(i) }));
      }
      await s.domains.markFailed("dm_2", { at: at(5), recordStatus: "{}" }, "out of the way: only dq_* are pending now");
      const now = at(100);
      const ids4 = (rs: DomainRecord[]) => rs.map((r) => r.id).sort();
      // Never-checked first (the order RETURNING gives is no contract, the choice is).
      const firstFour = await s.domains.claimDue(at(110), at(99), now, 4);
      expect(ids4(firstFour)).toEqual(ids.slice(0, 4));
      expect(firstFour.every((r) => r.check_claimed_until === at(110))).toBe(true);
      // Two workers at once (two connections on PostgreSQL): disjoint claims covering every due domain.
      const [a, b] = await Promise.all([s.domains.claimDue(at(110), at(99), now, 6), s.domains.claimDue(at(110), at(99), now, 6)]);
      const all = [...a, ...b].map((r) => r.id);
      expect(new Set(all).size).toBe(all.length);
      expect(all.sort()).toEqual(ids.slice(4));
      // Claimed: nothing more is due until the claim lapses.
      expect(await s.domains.claimDue(at(110), at(99), now, 50)).toEqual([]);
      expect(await s.domains.finishClaimedCheck("dq_00", { at: now, recordStatus: "{}" }, { status: "verified", reason: null })).toBe(true);
      await s.domains.finishClaimedCheck("dq_01", { at: now, recordStatus: "{}" }, { status: "failed", reason: "no TXT" });
      await s.domains.finishClaimedCheck("dq_02", { at: now, recordStatus: '{"x":1}' }, { status: null, reason: null });
      const [v, f, p] = await Promise.all(["dq_00", "dq_01", "dq_02"].map((id) => s.domains.inProject("pr_a3", id)));
      expect([v!.status, v!.check_claimed_until]).toEqual(["verified", null]);
      expect([f!.status, f!.failure_reason]).toEqual(["failed", "no TXT"]);
      expect([p!.status, p!.record_status, p!.last_checked_at]).toEqual(["pending", '{"x":1}', now]);
      // A finished check applies only while pending: a verified domain stays verified.
      await s.domains.finishClaimedCheck("dq_00", { at: now, recordStatus: "{}" }, { status: "failed", reason: "late" });
      expect((await s.domains.inProject("pr_a3", "dq_00"))!.status).toBe("verified");
    });

    const inbox = inboxRecord;

    test("inboxes: read back, pages by type, the instance catch-all, partial update, count per team", async () => {
      await s.inboxes.insert(inbox("ib_1", "pr_a1"));
      await s.inboxes.insert(inbox("ib_2", "pr_a1", { type: "persistent", domainId: "dm_1", name: "Support" }));
      await s.inboxes.insert(inbox("ib_3", "pr_a1", { type: "catch_all" }));
      await s.inboxes.insert(inbox("ib_4", "pr_b1", { type: "persistent", domainId: "dm_3" }));
      await expect(s.inboxes.insert(inbox("ib_5", "pr_a2", { type: "catch_all", address: "other@example.test" }))).rejects.toThrow();
      expect(await s.inboxes.byId("ib_1")).toEqual(inbox("ib_1", "pr_a1"));
      expect((await s.inboxes.byAddress("ib_2@example.test"))!.name).toBe("Support");
      expect(await s.inboxes.inProject("pr_a2", "ib_1")).toBeNull();
      expect((await s.inboxes.catchAll())!.id).toBe("ib_3");
      const ids = async (type: InboxRecord["type"] | null, before: string | null = null) =>
        (await s.inboxes.listInProject("pr_a1", before, 10, type)).map((i) => i.id);
      expect(await ids(null)).toEqual(["ib_3", "ib_2", "ib_1"]);
      expect(await ids("persistent")).toEqual(["ib_2"]);
      expect(await ids("catch_all")).toEqual(["ib_3"]);
      expect(await ids(null, "ib_2")).toEqual(["ib_1"]);
      expect((await s.inboxes.listAll("ib_4", 2)).map((i) => i.id)).toEqual(["ib_3", "ib_2"]);
      expect(await s.inboxes.countForTeam("tm_a")).toBe(2);
      await s.inboxes.update("ib_1", { name: "Renamed" });
      await s.inboxes.update("ib_1", { expiresAt: at(60) });
      const u = await s.inboxes.byId("ib_1");
      expect([u!.name, u!.expiresAt, u!.expiringAlertedAt]).toEqual(["Renamed", at(60), null]);
      await s.inboxes.update("ib_1", { name: null });
      expect((await s.inboxes.byId("ib_1"))!.name).toBeNull();
      await s.inboxes.setPassword("ib_1", "sealed2");
      expect((await s.inboxes.byId("ib_1"))!.passwordEnc).toBe("sealed2");
      const usage = await s.usage.counts("tm_a", "pr_a1");
      expect([usage!.teamInboxes, usage!.projectInboxes]).toEqual([2, 3]);
    });

    test("inboxes: UIDs are handed out once each, in order, however many take at once", async () => {
      const taken = await Promise.all(Array.from({ length: 12 }, () => s.inboxes.takeUid("ib_2")));
      expect(taken.map((t) => t!.uid).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      const inTx = await s.transaction(async (tx) => [(await tx.inboxes.takeUid("ib_2"))!.uid, (await tx.inboxes.takeUid("ib_2"))!.uid]);
      expect(inTx).toEqual([13, 14]);
      // A rolled-back transaction gives its UID back.
      await expect(
        s.transaction(async (tx) => {
          await tx.inboxes.takeUid("ib_2");
          throw new Error("rollback");
        }),
      ).rejects.toThrow("rollback");
      const next = await s.inboxes.takeUid("ib_2");
      expect([next!.uid, next!.inbox.uidNext]).toEqual([15, 16]);
      expect(await s.inboxes.takeUid("ib_none")).toBeNull();
      expect(await s.inboxes.mailboxStatus("ib_2")).toEqual({
        uidValidity: 1_767_225_600,
        uidNext: 16,
        messages: 0,
        unseen: 0,
        maxUid: null,
      });
    });

    test("inbox watches: idempotent add, per device, per user; chaos rules replaced in order and cleared", async () => {
      for (const [id, userId] of [
        ["ds_w1", "us_a0"],
        ["ds_w2", "us_a0"],
        ["ds_w3", "us_a1"],
      ] as const) {
        await s.devices.insert({ id, userId, name: id, tokenHash: `th-${id}`, createdAt: T0, lastSeenAt: null });
      }
      const watch = (inboxId: string, deviceSessionId: string, userId: string) =>
        s.inboxWatches.add({ inboxId, deviceSessionId, userId, createdAt: T0 });
      await watch("ib_1", "ds_w1", "us_a0");
      await watch("ib_1", "ds_w1", "us_a0");
      await watch("ib_1", "ds_w2", "us_a0");
      await watch("ib_1", "ds_w3", "us_a1");
      await watch("ib_2", "ds_w1", "us_a0");
      expect((await s.inboxWatches.watchedAmong("ds_w1", ["ib_1", "ib_2", "ib_3"])).sort()).toEqual(["ib_1", "ib_2"]);
      expect(await s.inboxWatches.watchedAmong("ds_w1", [])).toEqual([]);
      expect((await s.inboxWatches.watcherUserIds("ib_1")).sort()).toEqual(["us_a0", "us_a1"]);
      await s.inboxWatches.remove("ib_1", "ds_w3");
      expect(await s.inboxWatches.watcherUserIds("ib_1")).toEqual(["us_a0"]);

      const rules = [
        { stage: "rcpt" as const, code: 451, message: null, rate: 0.25, delayMs: 0 },
        { stage: "data" as const, code: 554, message: "rejected by chaos", rate: 1, delayMs: 1500 },
      ];
      await s.transaction((tx) => tx.inboxChaos.replace("ib_2", rules, T0));
      expect(await s.inboxChaos.ofInbox("ib_2")).toEqual(rules);
      await s.transaction((tx) => tx.inboxChaos.replace("ib_2", [rules[1]], at(1)));
      expect(await s.inboxChaos.ofInbox("ib_2")).toEqual([rules[1]]);
      // A rule the CHECK refuses: the transaction rolls back, the old rules stay.
      await expect(s.transaction((tx) => tx.inboxChaos.replace("ib_2", [{ ...rules[0], code: 200 }], at(2)))).rejects.toThrow();
      expect(await s.inboxChaos.ofInbox("ib_2")).toEqual([rules[1]]);
      expect(await s.inboxChaos.clear("ib_2")).toBe(true);
      expect(await s.inboxChaos.clear("ib_2")).toBe(false);
      expect(await s.inboxChaos.ofInbox("ib_2")).toEqual([]);

      // The SMTP listeners' connect rules: instance-wide, in order, code null for a slow greeting.
      expect(await s.smtpChaos.list()).toEqual([]);
      const connect = [
        { stage: "connect" as const, code: null, message: null, rate: 0.5, delayMs: 2000 },
        { stage: "connect" as const, code: 421 as const, message: "4.3.2 busy", rate: 1, delayMs: 0 },
        { stage: "connect" as const, code: 554 as const, message: null, rate: 1, delayMs: 10 },
      ];
      await s.transaction((tx) => tx.smtpChaos.replace(connect, T0));
      expect(await s.smtpChaos.list()).toEqual(connect);
      await expect(s.transaction((tx) => tx.smtpChaos.replace([{ ...connect[1]!, code: 450 as 421 }], at(1)))).rejects.toThrow();
      expect(await s.smtpChaos.list()).toEqual(connect);
      await s.transaction((tx) => tx.smtpChaos.replace([connect[2]!], at(2)));
      expect(await s.smtpChaos.list()).toEqual([connect[2]]);
      await s.smtpChaos.clear();
      expect(await s.smtpChaos.list()).toEqual([]);
    });

    test("inboxes: expiry, expiring alerts claimed once, delete; domains see their mailboxes and catch-all", async () => {
      expect(await s.domains.mailboxIds("pr_a1", "dm_1")).toEqual(["ib_2"]);
      await s.domains.setCatchAll("pr_b1", "dm_3", "ib_4");
      expect((await s.domains.catchAllInbox("example.test"))!.id).toBe("ib_4");
      // Created at T0, expires at +60 min; lead 1 day: the window is a fifth of the lifetime (12 min).
      expect(await s.inboxes.claimExpiring(at(40), 1)).toEqual([]);
      const claimed = await s.inboxes.claimExpiring(at(50), 1);
      expect(claimed.map((i) => [i.id, i.expiringAlertedAt])).toEqual([["ib_1", at(50)]]);
      expect(await s.inboxes.claimExpiring(at(55), 1)).toEqual([]);
      expect(await s.inboxes.expired(at(59), 10)).toEqual([]);
      expect(await s.inboxes.expired(at(60), 10)).toEqual([
        { id: "ib_1", project_id: "pr_a1", address: "ib_1@example.test", expires_at: at(60) },
      ]);
      expect(await s.inboxes.deleteInProject("pr_a2", "ib_1")).toBeNull();
      expect(await s.inboxes.deleteInProject("pr_a1", "ib_1")).toEqual([]);
      expect(await s.inboxes.byId("ib_1")).toBeNull();
    });
  });
}
