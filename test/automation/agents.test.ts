import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, login, startInboxd, ULID, type Instance } from "../support/harness";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd();
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const create = (body: unknown, token?: string) => json(inst.api("/v1/agents", { method: "POST", json: body, token }));
const keyWith = async (scopes: string[]) =>
  (await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "k", scopes } }))).body.data.secret as string;

describe("agents", () => {
  test("every project has a Standard-preset agent, also projects created later", async () => {
    const list = await json(inst.api("/v1/agents"));
    expect(list.status).toBe(200);
    const std = list.body.data.filter((a: any) => a.preset === "standard");
    expect(std).toHaveLength(1);
    expect(std[0]).toMatchObject({ name: "Standard" });
    expect(std[0].id).toMatch(ULID);
    expect(std[0].permissions).toContain("inboxes:write");
    expect(std[0].permissions).toContain("messages:read");

    const device = await login(inst);
    const p = await json(inst.api("/v1/projects", { method: "POST", token: device, json: { name: "Second" } }));
    expect(p.status).toBe(201);
    const other = await json(inst.api("/v1/agents", { token: device, project: p.body.data.id }));
    expect(other.body.data.filter((a: any) => a.preset === "standard")).toHaveLength(1);
    expect(other.body.data[0].id).not.toBe(std[0].id);
    // Cross-project: the other project's agent is not visible from here.
    expect((await json(inst.api(`/v1/agents/${other.body.data[0].id}`))).status).toBe(404);
  });

  test("create, show, update, list newest first; revoke is 204 and the agent is gone", async () => {
    const c = await create({
      name: "ci bot",
      description: "runs smoke tests",
      permissions: ["runs:write", "inboxes:read", "inboxes:read"],
    });
    expect(c.status).toBe(201);
    const a = c.body.data;
    expect(a).toMatchObject({ name: "ci bot", description: "runs smoke tests", permissions: ["inboxes:read", "runs:write"] });
    expect(typeof a.created_at).toBe("string");
    expect(typeof a.updated_at).toBe("string");
    expect((await json(inst.api(`/v1/agents/${a.id}`))).body.data).toEqual(a);

    const u = await json(inst.api(`/v1/agents/${a.id}`, { method: "PATCH", json: { permissions: ["messages:read"], name: "ci bot 2" } }));
    expect(u.status).toBe(200);
    expect(u.body.data).toMatchObject({ name: "ci bot 2", description: "runs smoke tests", permissions: ["messages:read"] });

    const list = await json(inst.api("/v1/agents?limit=1"));
    expect(list.body.data[0].id).toBe(a.id);
    expect(list.body.meta.has_more).toBe(true);
    expect(list.body.links.next).toBe(a.id);

    const d = await inst.api(`/v1/agents/${a.id}`, { method: "DELETE" });
    expect(d.status).toBe(204);
    expect(await d.text()).toBe("");
    expect((await json(inst.api(`/v1/agents/${a.id}`))).status).toBe(404);
    expect((await inst.api(`/v1/agents/${a.id}`, { method: "DELETE" })).status).toBe(404);
    const after = await json(inst.api("/v1/agents?limit=100"));
    expect(after.body.data.map((x: any) => x.id)).not.toContain(a.id);
  });

  test("the Standard agent cannot be revoked (409 invalid_state) but can be narrowed", async () => {
    const std = (await json(inst.api("/v1/agents"))).body.data.find((a: any) => a.preset === "standard");
    const d = await json(inst.api(`/v1/agents/${std.id}`, { method: "DELETE" }));
    expect(d.status).toBe(409);
    expect(d.body.code).toBe("invalid_state");
    const narrowed = await json(inst.api(`/v1/agents/${std.id}`, { method: "PATCH", json: { permissions: ["runs:read"] } }));
    expect(narrowed.body.data.permissions).toEqual(["runs:read"]);
    await json(inst.api(`/v1/agents/${std.id}`, { method: "PATCH", json: { permissions: std.permissions } }));
  });

  test("validation: unknown permission 422, missing name or permissions 422, name too long 422", async () => {
    const bad = await create({ name: "x", permissions: ["inboxes:fly"] });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe("validation_error");
    expect((await create({ permissions: [] })).status).toBe(422);
    expect((await create({ name: "x" })).status).toBe(422);
    expect((await create({ name: "x".repeat(101), permissions: [] })).status).toBe(422);
  });

  test("permissions beyond the caller's scopes are 403 scope_escalation, on create and update", async () => {
    const k = await keyWith(["agents:write", "agents:read", "inboxes:read"]);
    const esc = await create({ name: "wide", permissions: ["inboxes:write"] }, k);
    expect(esc.status).toBe(403);
    expect(esc.body.code).toBe("scope_escalation");
    expect((await create({ name: "star", permissions: ["*"] }, k)).body.code).toBe("scope_escalation");
    const ok = await create({ name: "narrow", permissions: ["inboxes:read"] }, k);
    expect(ok.status).toBe(201);
    const up = await json(
      inst.api(`/v1/agents/${ok.body.data.id}`, { method: "PATCH", token: k, json: { permissions: ["messages:write"] } }),
    );
    expect(up.status).toBe(403);
    expect(up.body.code).toBe("scope_escalation");
  });

  test("scopes: agents:read to read, agents:write to change (403 insufficient_scope)", async () => {
    const reader = await keyWith(["agents:read"]);
    expect((await json(inst.api("/v1/agents", { token: reader }))).status).toBe(200);
    const w = await create({ name: "nope", permissions: [] }, reader);
    expect(w.status).toBe(403);
    expect(w.body.code).toBe("insufficient_scope");
    const none = await keyWith(["inboxes:read"]);
    expect((await json(inst.api("/v1/agents", { token: none }))).body.code).toBe("insufficient_scope");
  });

  test("Idempotency-Key replays the created agent", async () => {
    const send = () =>
      json(inst.api("/v1/agents", { method: "POST", headers: { "idempotency-key": "agent-1" }, json: { name: "idem", permissions: [] } }));
    const a = await send();
    const b = await send();
    expect(b.status).toBe(201);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.body.data.id).toBe(a.body.data.id);
  });
});
