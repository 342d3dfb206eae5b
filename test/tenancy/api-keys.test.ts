// The contract's API keys section, rule by rule, through real HTTP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, login, startInboxd, ULID, type Instance } from "../support/harness";
import { withDatabase } from "../support/database-rows";

let inst: Instance;
let projectId: string;

beforeAll(async () => {
  inst = await startInboxd();
  const p = await json(inst.api("/v1/projects"));
  projectId = p.body.data[0].id;
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const create = (json_: unknown, token?: string, headers?: Record<string, string>) =>
  json(inst.api("/v1/api-keys", { method: "POST", json: json_, token, headers }));

describe("API keys", () => {
  test("create returns the key with its secret once; show and list never do", async () => {
    const r = await create({ name: "ci", scopes: ["inboxes:read"] });
    expect(r.status).toBe(201);
    const k = r.body.data;
    expect(k.id).toMatch(ULID);
    expect(k).toMatchObject({
      name: "ci",
      environment: "live",
      scopes: ["inboxes:read"],
      revoked_at: null,
      expires_at: null,
      last_used_at: null,
    });
    expect(k.secret).toStartWith("isk_live_");
    expect(k.last_four).toBe(k.secret.slice(-4));
    expect(Date.parse(k.created_at)).not.toBeNaN();
    const shown = await json(inst.api(`/v1/api-keys/${k.id}`));
    expect(shown.status).toBe(200);
    expect(shown.body.data.secret).toBeUndefined();
    expect(shown.body.data.last_four).toBe(k.last_four);
    const list = await json(inst.api("/v1/api-keys"));
    expect(list.body.data.find((x: any) => x.id === k.id)).toBeDefined();
    expect(list.body.data.every((x: any) => x.secret === undefined)).toBe(true);
  });

  test("only a hash is stored: the secret does not appear in the database", async () => {
    const r = await create({ name: "hash-check" });
    const secret: string = r.body.data.secret;
    const rows = await withDatabase(inst.dataDir, (db) => db.all("SELECT * FROM api_keys"));
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(secret);
  });

  test("name is required and at most 100 characters", async () => {
    expect((await create({ scopes: ["inboxes:read"] })).status).toBe(422);
    const long = await create({ name: "x".repeat(101) });
    expect(long.status).toBe(422);
    expect(long.body.code).toBe("validation_error");
    expect((await create({ name: "x".repeat(100) })).status).toBe(201);
  });

  test("rule 1: requested scopes must be a subset of the caller's own (403 scope_escalation)", async () => {
    const narrow = (await create({ name: "narrow", scopes: ["keys:write", "keys:read", "inboxes:read"] })).body.data.secret;
    const ok = await create({ name: "sub", scopes: ["inboxes:read"] }, narrow);
    expect(ok.status).toBe(201);
    const bad = await create({ name: "wider", scopes: ["inboxes:write"] }, narrow);
    expect(bad.status).toBe(403);
    expect(bad.body.code).toBe("scope_escalation");
  });

  test("rule 2: '*' is mintable only by a '*' caller", async () => {
    const star = await create({ name: "star", scopes: ["*"] });
    expect(star.status).toBe(201);
    expect(star.body.data.scopes).toEqual(["*"]);
    const narrow = (await create({ name: "n2", scopes: ["keys:write"] })).body.data.secret;
    const r = await create({ name: "star2", scopes: ["*"] }, narrow);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("scope_escalation");
  });

  test("rule 3: omitted scopes grant the caller's own set ('*' for full access)", async () => {
    const full = await create({ name: "default-full" });
    expect(full.body.data.scopes).toEqual(["*"]);
    const narrow = (await create({ name: "n3", scopes: ["keys:write", "messages:read"] })).body.data.secret;
    const r = await create({ name: "default-narrow" }, narrow);
    expect(r.status).toBe(201);
    expect(r.body.data.scopes.sort()).toEqual(["keys:write", "messages:read"]);
  });

  test("unknown scopes are 422", async () => {
    const r = await create({ name: "bad", scopes: ["inboxes:admin"] });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("validation_error");
  });

  test("rule 4: rotate is refused with 403 scope_escalation when the target holds a scope the caller lacks", async () => {
    const target = (await create({ name: "target", scopes: ["inboxes:write", "keys:write"] })).body.data;
    const caller = (await create({ name: "rotator", scopes: ["keys:write"] })).body.data.secret;
    const r = await json(inst.api(`/v1/api-keys/${target.id}/rotate`, { method: "POST", token: caller }));
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("scope_escalation");
  });

  test("rotate issues a new secret shown once; the old one stops working", async () => {
    const k = (await create({ name: "rot", scopes: ["inboxes:read"] })).body.data;
    expect((await inst.api("/v1/inboxes", { token: k.secret })).status).toBe(200);
    const r = await json(inst.api(`/v1/api-keys/${k.id}/rotate`, { method: "POST" }));
    expect(r.status).toBe(200);
    expect(r.body.data.secret).toStartWith("isk_live_");
    expect(r.body.data.secret).not.toBe(k.secret);
    expect(r.body.data.last_four).toBe(r.body.data.secret.slice(-4));
    expect((await inst.api("/v1/inboxes", { token: k.secret })).status).toBe(401);
    expect((await inst.api("/v1/inboxes", { token: r.body.data.secret })).status).toBe(200);
  });

  test("rule 5: revoke is permitted regardless of the target's scopes; revoked keys are rejected", async () => {
    const target = (await create({ name: "wide", scopes: ["*"] })).body.data;
    const caller = (await create({ name: "revoker", scopes: ["keys:write"] })).body.data.secret;
    const r = await json(inst.api(`/v1/api-keys/${target.id}/revoke`, { method: "POST", token: caller }));
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ revoked: true });
    const after = await json(inst.api("/v1/inboxes", { token: target.secret }));
    expect(after.status).toBe(401);
    expect(after.body.code).toBe("unauthorized");
    const shown = await json(inst.api(`/v1/api-keys/${target.id}`));
    expect(shown.body.data.revoked_at).not.toBeNull();
  });

  test("expires_at is honoured: an expired key is rejected; a past expires_at is 422", async () => {
    const past = await create({ name: "past", expires_at: new Date(Date.now() - 1000).toISOString() });
    expect(past.status).toBe(422);
    const soon = (await create({ name: "soon", expires_at: new Date(Date.now() + 1500).toISOString() })).body.data;
    expect(soon.expires_at).not.toBeNull();
    expect((await inst.api("/v1/inboxes", { token: soon.secret })).status).toBe(200);
    await Bun.sleep(1700);
    expect((await inst.api("/v1/inboxes", { token: soon.secret })).status).toBe(401);
  });

  test("last_used_at is updated when the key is used", async () => {
    const k = (await create({ name: "used", scopes: ["inboxes:read", "keys:read"] })).body.data;
    expect(k.last_used_at).toBeNull();
    await inst.api("/v1/inboxes", { token: k.secret });
    const shown = await json(inst.api(`/v1/api-keys/${k.id}`));
    expect(shown.body.data.last_used_at).not.toBeNull();
  });

  test("a key without the route's scope gets 403 insufficient_scope", async () => {
    const k = (await create({ name: "ro", scopes: ["inboxes:read"] })).body.data.secret;
    const r = await json(inst.api("/v1/inboxes", { method: "POST", json: {}, token: k }));
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("insufficient_scope");
    const list = await json(inst.api("/v1/api-keys", { token: k }));
    expect(list.status).toBe(403);
  });

  test("a device session manages keys of the project it selects", async () => {
    const token = await login(inst);
    const r = await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "from-device" }, token, project: projectId }));
    expect(r.status).toBe(201);
    expect(r.body.data.scopes).toEqual(["*"]);
    const missing = await json(inst.api("/v1/api-keys", { token }));
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe("project_required");
  });

  test("a key of another project is 404 (never 403)", async () => {
    const token = await login(inst);
    const other = await json(inst.api("/v1/projects", { method: "POST", json: { name: "Other" }, token }));
    expect(other.status).toBe(201);
    const k = await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "other-key" }, token, project: other.body.data.id }));
    expect(k.status).toBe(201);
    const r = await json(inst.api(`/v1/api-keys/${k.body.data.id}`));
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("not_found");
    expect((await json(inst.api(`/v1/api-keys/${k.body.data.id}/revoke`, { method: "POST" }))).status).toBe(404);
  });
});
