// The contract's inbox operations and rules, through real HTTP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, login, startInboxd, ULID, type Instance } from "../support/harness";

let inst: Instance;
let project: any;

beforeAll(async () => {
  inst = await startInboxd({ INBOXD_MAIL_DOMAIN: "mail.test" });
  project = (await json(inst.api("/v1/projects"))).body.data[0];
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const create = (body: unknown, init: Record<string, any> = {}) => json(inst.api("/v1/inboxes", { method: "POST", json: body, ...init }));

describe("inboxes", () => {
  test("create with no body gives a disposable inbox with a generated address on the project's shared subdomain", async () => {
    const r = await json(inst.api("/v1/inboxes", { method: "POST" }));
    expect(r.status).toBe(201);
    const i = r.body.data;
    expect(i.id).toMatch(ULID);
    expect(i.address).toEndWith(`@${project.slug}.mail.test`);
    expect(i).toMatchObject({ type: "disposable", status: "active", message_count: 0, unread_count: 0, name: null, watched: false });
    expect(i.retention_days).toBe(3);
    expect(i.pop3).toEqual({ host: "localhost", port: inst.ports.pop3! });
    expect(i.imap).toEqual({ host: "localhost", port: inst.ports.imap! });
    expect(i.storage.inbox).toEqual({ used_bytes: 0, quota_bytes: 50 * 1024 * 1024, state: "normal" });
    expect(i.storage.team.quota_bytes).toBe(250 * 1024 * 1024);
    expect(Date.parse(i.expires_at)).toBeGreaterThan(Date.now());
  });

  test("generated addresses are name-based when a name is given", async () => {
    const r = await create({ name: "Checkout Flow" });
    expect(r.body.data.address).toStartWith("checkout-flow-");
    expect(r.body.data.name).toBe("Checkout Flow");
  });

  test("ttl_seconds at create is 60..2592000; outside is 422", async () => {
    for (const ttl of [59, 2592001, 0, -5]) {
      const r = await create({ ttl_seconds: ttl });
      expect(r.status).toBe(422);
      expect(r.body.code).toBe("validation_error");
    }
    const ok = await create({ ttl_seconds: 60 });
    expect(ok.status).toBe(201);
    const exp = Date.parse(ok.body.data.expires_at) - Date.now();
    expect(exp).toBeGreaterThan(50_000);
    expect(exp).toBeLessThanOrEqual(60_000);
  });

  test("ttl_seconds together with domain_id is 422", async () => {
    const r = await create({ ttl_seconds: 600, domain_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV", local_part: "x" });
    expect(r.status).toBe(422);
  });

  test("local_part alone claims the address on the shared subdomain; a second claim is 422 address_taken", async () => {
    const a = await create({ local_part: "signup" });
    expect(a.status).toBe(201);
    expect(a.body.data.address).toBe(`signup@${project.slug}.mail.test`);
    const b = await create({ local_part: "signup" });
    expect(b.status).toBe(422);
    expect(b.body.code).toBe("address_taken");
  });

  test("local_part is at most 64 characters; name at most 100", async () => {
    expect((await create({ local_part: "a".repeat(65) })).status).toBe(422);
    expect((await create({ local_part: "b".repeat(64) })).status).toBe(201);
    expect((await create({ name: "n".repeat(101) })).status).toBe(422);
  });

  test("watch: true from an API key is 422; from a device it watches the new inbox", async () => {
    const r = await create({ watch: true });
    expect(r.status).toBe(422);
    const token = await login(inst);
    const d = await create({ watch: true }, { token, project: project.id });
    expect(d.status).toBe(201);
    expect(d.body.data.watched).toBe(true);
    const shown = await json(inst.api(`/v1/inboxes/${d.body.data.id}`, { token, project: project.id }));
    expect(shown.body.data.watched).toBe(true);
    const byKey = await json(inst.api(`/v1/inboxes/${d.body.data.id}`));
    expect(byKey.body.data.watched).toBe(false);
  });

  test("show, list (newest first, cursor pagination) and delete", async () => {
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) ids.push((await create({ name: `page-${n}` })).body.data.id);
    const p1 = await json(inst.api("/v1/inboxes?limit=2"));
    expect(p1.status).toBe(200);
    expect(p1.body.data.length).toBe(2);
    expect(p1.body.meta).toMatchObject({ limit: 2, has_more: true });
    expect(p1.body.data[0].id).toBe(ids[2]);
    expect(p1.body.data[1].id).toBe(ids[1]);
    expect(p1.body.links.next).toBe(ids[1]);
    const p2 = await json(inst.api(`/v1/inboxes?limit=2&cursor=${p1.body.links.next}`));
    expect(p2.body.data[0].id).toBe(ids[0]);
    const one = await json(inst.api(`/v1/inboxes/${ids[0]}`));
    expect(one.body.data.name).toBe("page-0");
    const del = await inst.api(`/v1/inboxes/${ids[0]}`, { method: "DELETE" });
    expect(del.status).toBe(204);
    expect(await del.text()).toBe("");
    expect((await json(inst.api(`/v1/inboxes/${ids[0]}`))).status).toBe(404);
    expect((await inst.api(`/v1/inboxes/${ids[0]}`, { method: "DELETE" })).status).toBe(404);
  });

  test("limit outside 1..100 or not an integer is 422 validation_error, never clamped", async () => {
    for (const l of ["0", "101", "1.5", "abc", "-1"]) {
      const r = await json(inst.api(`/v1/inboxes?limit=${l}`));
      expect(r.status).toBe(422);
      expect(r.body.code).toBe("validation_error");
    }
    expect((await inst.api("/v1/inboxes?limit=100")).status).toBe(200);
    expect((await json(inst.api("/v1/inboxes"))).body.meta.limit).toBe(50);
  });

  test("update needs name or ttl_seconds (empty body 422); ttl counts from now and is clamped to the plan ceiling", async () => {
    const i = (await create({ ttl_seconds: 3600 })).body.data;
    const empty = await json(inst.api(`/v1/inboxes/${i.id}`, { method: "PATCH", json: {} }));
    expect(empty.status).toBe(422);
    const renamed = await json(inst.api(`/v1/inboxes/${i.id}`, { method: "PATCH", json: { name: "renamed" } }));
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.name).toBe("renamed");
    expect(renamed.body.data.expires_at).toBe(i.expires_at);
    const shorter = await json(inst.api(`/v1/inboxes/${i.id}`, { method: "PATCH", json: { ttl_seconds: 120 } }));
    const left = Date.parse(shorter.body.data.expires_at) - Date.now();
    expect(left).toBeGreaterThan(100_000);
    expect(left).toBeLessThanOrEqual(120_000);
    // Free plan ceiling: 3 days.
    const huge = await json(inst.api(`/v1/inboxes/${i.id}`, { method: "PATCH", json: { ttl_seconds: 90 * 86400 } }));
    expect(huge.status).toBe(200);
    const clamp = Date.parse(huge.body.data.expires_at) - Date.now();
    expect(clamp).toBeLessThanOrEqual(3 * 86400_000);
    expect(clamp).toBeGreaterThan(3 * 86400_000 - 60_000);
    expect((await json(inst.api(`/v1/inboxes/${i.id}`, { method: "PATCH", json: { ttl_seconds: 0 } }))).status).toBe(422);
  });

  test("credentials: username is the address, the password is stable, the ports are the inbox's blocks", async () => {
    const i = (await create({})).body.data;
    const c1 = await json(inst.api(`/v1/inboxes/${i.id}/credentials`));
    expect(c1.status).toBe(200);
    expect(c1.body.data.username).toBe(i.address);
    expect(c1.body.data.password.length).toBeGreaterThanOrEqual(16);
    expect(c1.body.data.pop3).toEqual(i.pop3);
    expect(c1.body.data.imap).toEqual(i.imap);
    const c2 = await json(inst.api(`/v1/inboxes/${i.id}/credentials`));
    expect(c2.body.data.password).toBe(c1.body.data.password);
  });

  test("mark-read requires last_read_ulid and echoes it", async () => {
    const i = (await create({})).body.data;
    const bad = await json(inst.api(`/v1/inboxes/${i.id}/mark-read`, { method: "POST", json: {} }));
    expect(bad.status).toBe(422);
    const id = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
    const ok = await json(inst.api(`/v1/inboxes/${i.id}/mark-read`, { method: "POST", json: { last_read_ulid: id } }));
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual({ last_read_ulid: id });
  });

  test("watch and unwatch: device principals only (API key 403), idempotent", async () => {
    const i = (await create({})).body.data;
    const byKey = await json(inst.api(`/v1/inboxes/${i.id}/watch`, { method: "PUT" }));
    expect(byKey.status).toBe(403);
    expect(byKey.body.code).toBe("principal_not_permitted");
    const token = await login(inst);
    for (let n = 0; n < 2; n++) {
      const w = await json(inst.api(`/v1/inboxes/${i.id}/watch`, { method: "PUT", token, project: project.id }));
      expect(w.status).toBe(200);
    }
    expect((await json(inst.api(`/v1/inboxes/${i.id}`, { token, project: project.id }))).body.data.watched).toBe(true);
    for (let n = 0; n < 2; n++) {
      const u = await json(inst.api(`/v1/inboxes/${i.id}/watch`, { method: "DELETE", token, project: project.id }));
      expect(u.status).toBe(200);
    }
    expect((await json(inst.api(`/v1/inboxes/${i.id}`, { token, project: project.id }))).body.data.watched).toBe(false);
    expect((await json(inst.api(`/v1/inboxes/${i.id}/watch`, { method: "DELETE" }))).status).toBe(403);
  });

  test("Idempotency-Key: same key and body replays; different body is 422 idempotency_key_reused; over 255 is 422", async () => {
    const headers = { "idempotency-key": "create-inbox-1" };
    const a = await create({ name: "idem" }, { headers });
    const b = await create({ name: "idem" }, { headers });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.data.id).toBe(a.body.data.id);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    const c = await create({ name: "other" }, { headers });
    expect(c.status).toBe(422);
    expect(c.body.code).toBe("idempotency_key_reused");
    const d = await create({ name: "idem" }, { headers: { "idempotency-key": "k".repeat(256) } });
    expect(d.status).toBe(422);
    expect(d.body.code).toBe("validation_error");
  });

  test("Idempotency-Key: eight parallel retries with one key make one inbox, the others replay it", async () => {
    const headers = { "idempotency-key": "parallel-inbox-1" };
    const all = await Promise.all(Array.from({ length: 8 }, () => create({ name: "parallel" }, { headers })));
    expect(all.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(all.map((r) => r.body.data.id)).size).toBe(1);
    expect(all.filter((r) => r.headers.get("idempotent-replayed") === "true")).toHaveLength(7);
    // A different body with that key, sent with them, is still refused.
    const [same, other] = await Promise.all([create({ name: "parallel" }, { headers }), create({ name: "changed" }, { headers })]);
    expect([same.status, same.body.data?.id, other.status, other.body.code]).toEqual([
      201,
      all[0]!.body.data.id,
      422,
      "idempotency_key_reused",
    ]);
  });

  test("usage reports real counts against the plan's quotas", async () => {
    const before = (await json(inst.api("/v1/usage"))).body.data;
    await create({});
    const r = await json(inst.api("/v1/usage"));
    expect(r.status).toBe(200);
    const u = r.body.data;
    expect(u.project).toEqual({ id: project.id, slug: project.slug });
    expect(u.plan).toEqual({ slug: "free", name: "Free" });
    expect(u.quotas.concurrent_inboxes).toBe(25);
    expect(u.quotas.retention_days).toBe(3);
    expect(u.usage.concurrent_inboxes).toBe(before.usage.concurrent_inboxes + 1);
    expect(u.storage.team).toMatchObject({ used_bytes: 0, state: "normal" });
    expect(u.storage.team.quota_bytes).toBeGreaterThanOrEqual(1);
    expect(u.trial.days).toBe(14);
  });

  test("the free plan's 25 concurrent inboxes are enforced", async () => {
    const n = (await json(inst.api("/v1/usage"))).body.data.usage.concurrent_inboxes;
    for (let k = n; k < 25; k++) expect((await create({})).status).toBe(201);
    const over = await create({});
    expect(over.status).toBe(422);
    expect(over.body.code).toBe("plan_limit_exceeded");
  });
});
