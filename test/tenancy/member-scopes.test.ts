// A member's device session holds every named scope but not '*' (tenancy/auth.ts scopesOfRole), so
// the API-key rules of the contract keep a member from minting a '*' key or from rotating a key
// that holds '*' (and so taking its secret); owners and admins keep '*'.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addUser, json, login, startInboxd, type Instance } from "../support/harness";

let inst: Instance;
let owner: string, admin: string, member: string, project: string;
beforeAll(async () => {
  inst = await startInboxd();
  await addUser(inst, "admin@a.test", "admin-pass-1", "admin");
  await addUser(inst, "member@a.test", "member-pass-1", "member");
  [owner, admin, member] = await Promise.all([
    login(inst),
    login(inst, "admin@a.test", "admin-pass-1"),
    login(inst, "member@a.test", "member-pass-1"),
  ]);
  project = (await json(inst.api("/v1/projects", { token: owner }))).body.data[0].id;
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const mint = (token: string, body: Record<string, unknown>) =>
  json(inst.api("/v1/api-keys", { method: "POST", token, project, json: { name: "k", ...body } }));

describe("scopes of a device session follow the user's role", () => {
  test("a member asking for '*' gets 403 scope_escalation in the envelope; nothing is created", async () => {
    const before = (await json(inst.api("/v1/api-keys?limit=100"))).body.data.length;
    const r = await mint(member, { scopes: ["*"] });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: "scope_escalation", details: { scope: "*" } });
    expect(typeof r.body.request_id).toBe("string");
    expect((await json(inst.api("/v1/api-keys?limit=100"))).body.data.length).toBe(before);
  });

  test("a member omitting scopes gets its own set: every named scope, not '*'", async () => {
    const r = await mint(member, {});
    expect(r.status).toBe(201);
    expect(r.body.data.scopes).not.toContain("*");
    expect(r.body.data.scopes).toContain("inboxes:write");
    expect(r.body.data.scopes.length).toBeGreaterThan(10);
    // The key does what a member does, and no more: it cannot mint a '*' key either.
    const again = await mint(r.body.data.secret, { scopes: ["*"] });
    expect(again.status).toBe(403);
    expect(again.body.code).toBe("scope_escalation");
  });

  test("a member may mint a narrower key and use the project", async () => {
    const r = await mint(member, { scopes: ["inboxes:read", "inboxes:write"] });
    expect(r.status).toBe(201);
    expect((await inst.api("/v1/inboxes", { token: r.body.data.secret })).status).toBe(200);
    expect((await json(inst.api("/v1/inboxes", { method: "POST", token: member, project, json: {} }))).status).toBe(201);
  });

  test("a member cannot rotate a '*' key (its new secret would be the member's); revoking stays allowed", async () => {
    const star = await mint(owner, { scopes: ["*"] });
    expect(star.status).toBe(201);
    const rot = await json(inst.api(`/v1/api-keys/${star.body.data.id}/rotate`, { method: "POST", token: member, project }));
    expect(rot.status).toBe(403);
    expect(rot.body.code).toBe("scope_escalation");
    expect((await inst.api("/v1/inboxes", { token: star.body.data.secret })).status).toBe(200);
    const rev = await json(inst.api(`/v1/api-keys/${star.body.data.id}/revoke`, { method: "POST", token: member, project }));
    expect(rev.status).toBe(200);
  });

  test("owners and admins still mint '*' keys", async () => {
    for (const token of [owner, admin]) {
      const r = await mint(token, { scopes: ["*"] });
      expect(r.status).toBe(201);
      expect(r.body.data.scopes).toEqual(["*"]);
    }
  });
});
