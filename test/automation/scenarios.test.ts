import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, login, startInboxd, ULID, type Instance } from "../support/harness";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd();
  await json(inst.api("/v1/scenario-secrets", { method: "POST", json: { name: "TOKEN", value: "tok-value-123" } }));
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const GOOD = {
  schema_version: 1,
  steps: [
    { id: "inbox", type: "inbox.create" },
    {
      id: "call",
      type: "http.request",
      method: "POST",
      url: "https://app.example.com/signup",
      headers: { authorization: "Bearer ${secrets.TOKEN}" },
      json: { email: "${steps.inbox.address}" },
    },
    { id: "mail", type: "message.wait", inbox: "${steps.inbox.id}", subject: "Welcome", timeout_seconds: 30 },
    { id: "link", type: "message.extract", message: "${steps.mail.id}", extract: "link", pattern: "verify" },
    { type: "assert", value: "${steps.link.value}", matches: "^https://" },
  ],
};

const create = (body: unknown) => json(inst.api("/v1/scenarios", { method: "POST", json: body }));
const patch = (id: string, body: unknown, ifMatch?: string) =>
  json(inst.api(`/v1/scenarios/${id}`, { method: "PATCH", json: body, headers: ifMatch === undefined ? {} : { "if-match": ifMatch } }));
const validate = (id: string, definition?: unknown) =>
  json(inst.api(`/v1/scenarios/${id}/validate`, { method: "POST", json: definition === undefined ? {} : { definition } }));

describe("scenarios", () => {
  test("create, show, list; a new scenario has draft_revision 1 and no current version", async () => {
    const c = await create({ name: "sign-up", description: "the happy path", draft_definition: GOOD });
    expect(c.status).toBe(201);
    const s = c.body.data;
    expect(s.id).toMatch(ULID);
    expect(s).toMatchObject({
      name: "sign-up",
      description: "the happy path",
      draft_definition: GOOD,
      draft_revision: 1,
      current_version: null,
      errors: [],
    });
    const shown = await json(inst.api(`/v1/scenarios/${s.id}`));
    expect(shown.body.data).toEqual(s);
    expect(shown.headers.get("etag")).toBe('"1"');
    const list = await json(inst.api("/v1/scenarios"));
    expect(list.body.data[0].id).toBe(s.id);
    const bare = await create({ name: "empty" });
    expect(bare.status).toBe(201);
    expect(bare.body.data.draft_definition).toEqual({ schema_version: 1, steps: [] });
    expect(bare.body.data.errors).toEqual([{ path: "/steps", code: "empty", message: expect.any(String) }]);
    expect((await create({})).status).toBe(422);
    expect((await create({ name: "x", draft_definition: [1] })).status).toBe(422);
  });

  test("update needs If-Match = draft_revision: 428 without, 412 precondition_failed on mismatch, increments on success", async () => {
    const s = (await create({ name: "editable", draft_definition: GOOD })).body.data;
    const none = await patch(s.id, { name: "x" });
    expect(none.status).toBe(428);
    expect(none.body.code).toBe("precondition_required");
    const stale = await patch(s.id, { name: "x" }, "7");
    expect(stale.status).toBe(412);
    expect(stale.body.code).toBe("precondition_failed");
    expect(stale.body.details.draft_revision).toBe(1);
    const ok = await patch(s.id, { name: "edited", description: "d2" }, "1");
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ name: "edited", description: "d2", draft_revision: 2, draft_definition: GOOD });
    expect(ok.headers.get("etag")).toBe('"2"');
    const quoted = await patch(s.id, { draft_definition: { ...GOOD, description: "v3" } }, '"2"');
    expect(quoted.body.data.draft_revision).toBe(3);
    // The loser of a race gets 412: both sent If-Match 3.
    const [a, b] = await Promise.all([patch(s.id, { name: "a" }, "3"), patch(s.id, { name: "b" }, "3")]);
    expect([a.status, b.status].sort()).toEqual([200, 412]);
    expect((await patch(s.id, { name: "x" }, "abc")).status).toBe(422);
  });

  test("validate returns the validation result: valid, required_permissions, has_test_mutations", async () => {
    const s = (await create({ name: "v", draft_definition: GOOD })).body.data;
    const r = await validate(s.id);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      valid: true,
      errors: [],
      required_permissions: ["inboxes:write", "messages:read", "secrets:read", "origins:read"],
      has_test_mutations: true,
    });
    const readOnly = await validate(s.id, {
      schema_version: 1,
      steps: [
        { id: "get", type: "http.request", url: "https://app.example.com/health" },
        { type: "assert", value: "${steps.get.status}", equals: 200 },
        { type: "sleep", seconds: 1 },
      ],
    });
    expect(readOnly.body.data).toEqual({ valid: true, errors: [], required_permissions: ["origins:read"], has_test_mutations: false });
  });

  test("validation errors carry JSON-pointer paths and codes", async () => {
    const s = (await create({ name: "bad" })).body.data;
    const r = await validate(s.id, {
      schema_version: 2,
      extra: true,
      steps: [
        { id: "a", type: "inbox.create", ttl_seconds: 5 },
        { id: "a", type: "teleport" },
        { type: "message.wait", timeout_seconds: "soon" },
        { type: "http.request", url: "ftp://x", method: "BREW", json: {}, body: "x" },
        { type: "assert", value: "${steps.later.value}" },
        { type: "message.extract", message: "${secrets.MISSING}", extract: "code", pattern: "(" },
        { type: "sleep", seconds: 1, approval: "yes" },
        { id: "later", type: "assert", value: "${inputs.nope}", exists: true },
        { type: "assert", value: "${env.HOME}", exists: true },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.data.valid).toBe(false);
    const got = r.body.data.errors.map((e: any) => `${e.path} ${e.code}`);
    for (const want of [
      "/schema_version unsupported_schema_version",
      "/extra unknown_field",
      "/steps/0/ttl_seconds out_of_range",
      "/steps/1/id duplicate_id",
      "/steps/1/type unknown_step_type",
      "/steps/2/timeout_seconds invalid_type",
      "/steps/2/inbox required",
      "/steps/3/url invalid_value",
      "/steps/3/method invalid_value",
      "/steps/3/body conflict",
      "/steps/4/value unknown_reference",
      "/steps/4 required",
      "/steps/5/message unknown_secret",
      "/steps/5/pattern invalid_pattern",
      "/steps/6/approval invalid_type",
      "/steps/7/value unknown_reference",
      "/steps/8/value unknown_reference",
    ]) {
      expect(got).toContain(want);
    }
    for (const e of r.body.data.errors) expect(typeof e.message).toBe("string");
    const notObject = await validate(s.id, [1, 2]);
    expect(notObject.body.data).toMatchObject({ valid: false, errors: [{ path: "", code: "invalid_type" }] });
  });

  test("publish: refused with 422 while invalid; versions 1, 2 with schema_version, definition_hash over canonical JSON, published_at; current_version set", async () => {
    const s = (await create({ name: "pub" })).body.data;
    const refused = await json(inst.api(`/v1/scenarios/${s.id}/publish`, { method: "POST" }));
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe("scenario_invalid");
    expect(refused.body.details.errors[0]).toMatchObject({ path: "/steps", code: "empty" });

    await patch(s.id, { draft_definition: GOOD }, "1");
    const v1 = await json(inst.api(`/v1/scenarios/${s.id}/publish`, { method: "POST" }));
    expect(v1.status).toBe(201);
    expect(v1.body.data).toMatchObject({
      version: 1,
      schema_version: 1,
      definition: GOOD,
      required_permissions: ["inboxes:write", "messages:read", "secrets:read", "origins:read"],
      has_test_mutations: true,
    });
    expect(v1.body.data.id).toMatch(ULID);
    expect(v1.body.data.definition_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(typeof v1.body.data.published_at).toBe("string");
    const shown = (await json(inst.api(`/v1/scenarios/${s.id}`))).body.data;
    expect(shown.current_version).toEqual({ id: v1.body.data.id, version: 1, published_at: v1.body.data.published_at });

    // The same definition with keys in another order hashes the same.
    const reordered = JSON.parse(
      JSON.stringify({ steps: GOOD.steps.map((st) => Object.fromEntries(Object.entries(st).reverse())), schema_version: 1 }),
    );
    await patch(s.id, { draft_definition: reordered }, "2");
    const v2 = await json(inst.api(`/v1/scenarios/${s.id}/publish`, { method: "POST" }));
    expect(v2.body.data.version).toBe(2);
    expect(v2.body.data.definition_hash).toBe(v1.body.data.definition_hash);
    await patch(s.id, { draft_definition: { ...GOOD, description: "changed" } }, "3");
    const v3 = await json(inst.api(`/v1/scenarios/${s.id}/publish`, { method: "POST" }));
    expect(v3.body.data.version).toBe(3);
    expect(v3.body.data.definition_hash).not.toBe(v1.body.data.definition_hash);
    expect((await json(inst.api(`/v1/scenarios/${s.id}`))).body.data.current_version.version).toBe(3);

    const list = await json(inst.api(`/v1/scenarios/${s.id}/versions`));
    expect(list.body.data.map((v: any) => v.version)).toEqual([3, 2, 1]);
    const page = await json(inst.api(`/v1/scenarios/${s.id}/versions?limit=2`));
    expect(page.body.links.next).toBe(page.body.data[1].id);
    // Published versions are immutable: editing the draft changed none of them.
    expect((await json(inst.api(`/v1/scenarios/${s.id}/versions/1`))).body.data).toEqual(v1.body.data);
    const one = await json(inst.api(`/v1/scenarios/${s.id}/versions/2`));
    expect(one.body.data).toEqual(v2.body.data);
    expect((await json(inst.api(`/v1/scenarios/${s.id}/versions/9`))).status).toBe(404);
    expect((await json(inst.api(`/v1/scenarios/${s.id}/versions/0`))).status).toBe(422);
    expect((await json(inst.api(`/v1/scenarios/${s.id}/versions/${v1.body.data.id}`))).status).toBe(422);
  });

  test("delete is 204; afterwards show, versions and publish are 404; another project's scenario is 404", async () => {
    const s = (await create({ name: "doomed", draft_definition: GOOD })).body.data;
    const device = await login(inst);
    const p = (await json(inst.api("/v1/projects", { method: "POST", token: device, json: { name: "Other" } }))).body.data;
    expect((await json(inst.api(`/v1/scenarios/${s.id}`, { token: device, project: p.id }))).status).toBe(404);
    expect((await json(inst.api(`/v1/scenarios/${s.id}/publish`, { method: "POST", token: device, project: p.id }))).status).toBe(404);
    const d = await inst.api(`/v1/scenarios/${s.id}`, { method: "DELETE" });
    expect(d.status).toBe(204);
    expect((await json(inst.api(`/v1/scenarios/${s.id}`))).status).toBe(404);
    expect((await json(inst.api(`/v1/scenarios/${s.id}/versions`))).status).toBe(404);
    expect((await json(inst.api(`/v1/scenarios/${s.id}/publish`, { method: "POST" }))).status).toBe(404);
    expect((await inst.api(`/v1/scenarios/${s.id}`, { method: "DELETE" })).status).toBe(404);
  });

  test("the JSON Schema of the definition language is served", async () => {
    const r = await json(inst.api("/v1/scenarios/schema"));
    expect(r.status).toBe(200);
    const schema = r.body.data;
    expect(schema.$schema).toContain("json-schema.org");
    expect(schema.required).toEqual(["schema_version", "steps"]);
    const kinds = schema.properties.steps.items.oneOf.map((s: any) => s.properties.type.const);
    expect(kinds).toEqual([
      "inbox.create",
      "inbox.delete",
      "message.wait",
      "message.extract",
      "message.check",
      "http.request",
      "assert",
      "sleep",
    ]);
  });

  test("scopes: scenarios:read reads and validates, scenarios:write changes and publishes", async () => {
    const s = (await create({ name: "scoped", draft_definition: GOOD })).body.data;
    const reader = (await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "r", scopes: ["scenarios:read"] } }))).body.data
      .secret;
    expect((await json(inst.api(`/v1/scenarios/${s.id}`, { token: reader }))).status).toBe(200);
    expect((await json(inst.api(`/v1/scenarios/${s.id}/validate`, { method: "POST", token: reader, json: {} }))).status).toBe(200);
    const pub = await json(inst.api(`/v1/scenarios/${s.id}/publish`, { method: "POST", token: reader }));
    expect(pub.status).toBe(403);
    expect(pub.body.code).toBe("insufficient_scope");
    expect((await json(inst.api("/v1/scenarios", { method: "POST", token: reader, json: { name: "n" } }))).status).toBe(403);
  });
});
