// Authentication, project selection and tenancy rules of the contract, plus the user plane.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addUser, ADMIN_EMAIL, json, login, startInboxd, ULID, type Instance } from "../support/harness";

let inst: Instance;
let project: any;
let ownerToken: string;

beforeAll(async () => {
  inst = await startInboxd();
  project = (await json(inst.api("/v1/projects"))).body.data[0];
  ownerToken = await login(inst);
  await addUser(inst, "member@a.test", "member-pass-1", "member");
  await addUser(inst, "other@b.test", "other-pass-12", "owner", "Team B");
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

describe("credentials", () => {
  test("no or bad credentials: 401 unauthorized", async () => {
    for (const token of [null, "isk_live_nope", "isd_nope", "garbage"]) {
      const r = await json(inst.api("/v1/inboxes", { token }));
      expect(r.status).toBe(401);
      expect(r.body.code).toBe("unauthorized");
    }
  });

  test("log in: wrong password is 401 invalid_credentials; right one returns the token once", async () => {
    const bad = await json(
      inst.api("/v1/devices", { method: "POST", token: null, json: { email: ADMIN_EMAIL, password: "wrong", name: "x" } }),
    );
    expect(bad.status).toBe(401);
    expect(bad.body.code).toBe("invalid_credentials");
    const r = await json(
      inst.api("/v1/devices", {
        method: "POST",
        token: null,
        json: { email: ADMIN_EMAIL, password: "admin-password-123", name: "ci box" },
      }),
    );
    expect(r.status).toBe(201);
    expect(r.body.data.token).toStartWith("isd_");
    expect(r.body.data.id).toMatch(ULID);
    const list = await json(inst.api("/v1/devices", { token: r.body.data.token }));
    const me = list.body.data.find((d: any) => d.id === r.body.data.id);
    expect(me.name).toBe("ci box");
    expect(me.token).toBeUndefined();
  });

  test("log out deletes the device session; its token stops working", async () => {
    const token = await login(inst);
    const devices = await json(inst.api("/v1/devices", { token }));
    const current = devices.body.data.find((d: any) => d.current);
    const del = await inst.api(`/v1/devices/${current.id}`, { method: "DELETE", token });
    expect(del.status).toBe(204);
    expect((await inst.api("/v1/me", { token })).status).toBe(401);
  });

  test("GET /v1/me describes the user, team and role", async () => {
    const r = await json(inst.api("/v1/me", { token: ownerToken }));
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ email: ADMIN_EMAIL, role: "owner", team: { name: "default" } });
    expect(r.body.data.id).toMatch(ULID);
  });
});

describe("project selection", () => {
  test("a device session must send X-Service-Project: 400 project_required", async () => {
    const r = await json(inst.api("/v1/inboxes", { token: ownerToken }));
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("project_required");
    const ok = await json(inst.api("/v1/inboxes", { token: ownerToken, project: project.id }));
    expect(ok.status).toBe(200);
  });

  test("a project the user is not a member of gives 404 not_found (never 403)", async () => {
    const otherToken = await login(inst, "other@b.test", "other-pass-12");
    const r = await json(inst.api("/v1/inboxes", { token: otherToken, project: project.id }));
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("not_found");
    const junk = await json(inst.api("/v1/inboxes", { token: otherToken, project: "not-a-ulid" }));
    expect(junk.status).toBe(404);
  });

  test("an API key may omit the header; a contradicting value is 400 project_mismatch", async () => {
    expect((await inst.api("/v1/inboxes")).status).toBe(200);
    expect((await inst.api("/v1/inboxes", { project: project.id })).status).toBe(200);
    const r = await json(inst.api("/v1/inboxes", { project: "01ARZ3NDEKTSV4RRFFQ69G5FAV" }));
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("project_mismatch");
  });

  test("user-plane routes take no project header", async () => {
    expect((await inst.api("/v1/me", { token: ownerToken })).status).toBe(200);
    expect((await inst.api("/v1/projects", { token: ownerToken })).status).toBe(200);
    expect((await inst.api("/v1/devices", { token: ownerToken })).status).toBe(200);
  });

  test("GET /v1/projects tells which project ULID to send; another team's projects are invisible", async () => {
    const mine = await json(inst.api("/v1/projects", { token: ownerToken }));
    expect(mine.body.data.map((p: any) => p.id)).toContain(project.id);
    expect(mine.body.data[0]).toMatchObject({ environment: "live", settings: { "api_keys.agent_access_enabled": true } });
    const otherToken = await login(inst, "other@b.test", "other-pass-12");
    const theirs = await json(inst.api("/v1/projects", { token: otherToken }));
    expect(theirs.body.data.length).toBe(1);
    expect(theirs.body.data[0].team.name).toBe("Team B");
    expect(theirs.body.data.map((p: any) => p.id)).not.toContain(project.id);
  });

  test("cross-tenant resources are 404", async () => {
    const inbox = (await json(inst.api("/v1/inboxes", { method: "POST", json: {} }))).body.data;
    const otherToken = await login(inst, "other@b.test", "other-pass-12");
    const theirProject = (await json(inst.api("/v1/projects", { token: otherToken }))).body.data[0].id;
    const r = await json(inst.api(`/v1/inboxes/${inbox.id}`, { token: otherToken, project: theirProject }));
    expect(r.status).toBe(404);
    expect((await inst.api(`/v1/inboxes/${inbox.id}`, { method: "DELETE", token: otherToken, project: theirProject })).status).toBe(404);
    expect((await inst.api(`/v1/inboxes/${inbox.id}`)).status).toBe(200);
  });

  test("creating a project needs an owner or admin; a member gets 403", async () => {
    const memberToken = await login(inst, "member@a.test", "member-pass-1");
    const r = await json(inst.api("/v1/projects", { method: "POST", token: memberToken, json: { name: "Nope" } }));
    expect(r.status).toBe(403);
    const ok = await json(
      inst.api("/v1/projects", { method: "POST", token: ownerToken, json: { name: "Staging App", slug: "staging-app" } }),
    );
    expect(ok.status).toBe(201);
    expect(ok.body.data).toMatchObject({ slug: "staging-app", environment: "live", role: "owner" });
    const dup = await json(inst.api("/v1/projects", { method: "POST", token: ownerToken, json: { name: "x", slug: "staging-app" } }));
    expect(dup.status).toBe(422);
  });

  test("PATCH /v1/projects/{id} changes settings (owner or admin)", async () => {
    const r = await json(
      inst.api(`/v1/projects/${project.id}`, {
        method: "PATCH",
        token: ownerToken,
        json: { settings: { "api_keys.agent_access_enabled": false } },
      }),
    );
    expect(r.status).toBe(200);
    expect(r.body.data.settings["api_keys.agent_access_enabled"]).toBe(false);
    const back = await json(
      inst.api(`/v1/projects/${project.id}`, {
        method: "PATCH",
        token: ownerToken,
        json: { settings: { "api_keys.agent_access_enabled": true } },
      }),
    );
    expect(back.body.data.settings["api_keys.agent_access_enabled"]).toBe(true);
    const unknown = await json(
      inst.api(`/v1/projects/${project.id}`, { method: "PATCH", token: ownerToken, json: { settings: { nope: true } } }),
    );
    expect(unknown.status).toBe(422);
  });
});

describe("operations", () => {
  test("/healthz needs no auth; /openapi.json covers the routes; /metrics counts requests", async () => {
    const h = await json(fetch(`${inst.url}/healthz`));
    expect(h.status).toBe(200);
    const doc = await json(fetch(`${inst.url}/openapi.json`));
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toStartWith("3.");
    for (const p of ["/v1/inboxes", "/v1/inboxes/{id}", "/v1/api-keys/{id}/rotate", "/v1/devices", "/v1/usage"]) {
      expect(Object.keys(doc.body.paths)).toContain(p);
    }
    const m = await (await fetch(`${inst.url}/metrics`)).text();
    expect(m).toContain("inboxd_http_requests_total{");
    expect(m).toContain("inboxd_http_request_duration_seconds_bucket{");
    const docs = await fetch(`${inst.url}/docs`);
    expect(docs.status).toBe(200);
    // The reference UI (Swagger UI, served from the binary) reads the document the page points it at.
    expect(await docs.text()).toContain("/docs/init.js");
    expect(await (await fetch(`${inst.url}/docs/init.js`)).text()).toContain("/openapi.json");
  });
});
