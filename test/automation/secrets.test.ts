import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { withDatabase } from "../support/database-rows";
import { json, login, startInboxd, ULID, type Instance } from "../support/harness";

const VALUE = "very-secret-value-4d1f9a";
let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd();
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const create = (body: unknown, token?: string) => json(inst.api("/v1/scenario-secrets", { method: "POST", json: body, token }));

describe("scenario secrets", () => {
  test("create returns metadata only: version 1, the reference string, never the value", async () => {
    const r = await create({ name: "API_TOKEN", value: VALUE });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      name: "API_TOKEN",
      version: 1,
      reference: "${secrets.API_TOKEN}",
      last_used_at: null,
      rotated_at: null,
    });
    expect(r.body.data.id).toMatch(ULID);
    expect(Object.keys(r.body.data).sort()).toEqual([
      "created_at",
      "id",
      "last_used_at",
      "name",
      "reference",
      "rotated_at",
      "updated_at",
      "version",
    ]);
    expect(JSON.stringify(r.body)).not.toContain(VALUE);
  });

  test("list and show never carry the value; the value is encrypted at rest", async () => {
    const list = await json(inst.api("/v1/scenario-secrets"));
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: any) => s.name)).toContain("API_TOKEN");
    const id = list.body.data.find((s: any) => s.name === "API_TOKEN").id;
    const one = await json(inst.api(`/v1/scenario-secrets/${id}`));
    expect(one.body.data.name).toBe("API_TOKEN");
    expect(JSON.stringify(list.body) + JSON.stringify(one.body)).not.toContain(VALUE);
    const row = (await withDatabase(inst.dataDir, (db) => db.get("SELECT value_enc FROM scenario_secrets WHERE id = ?", [id]))) as {
      value_enc: string;
    };
    expect(row.value_enc.startsWith("v1.")).toBe(true);
    expect(row.value_enc).not.toContain(VALUE);
    expect(Buffer.from(row.value_enc.split(".")[3]!, "base64url").toString("utf8")).not.toContain(VALUE);
    expect(inst.output()).not.toContain(VALUE);
  });

  test("rotate increments version and sets rotated_at; the new value is what runs use", async () => {
    const id = (await create({ name: "ROTATING", value: "first-value-aaaa" })).body.data.id;
    const r1 = await json(inst.api(`/v1/scenario-secrets/${id}/rotate`, { method: "POST", json: { value: "second-value-bbbb" } }));
    expect(r1.status).toBe(200);
    expect(r1.body.data.version).toBe(2);
    expect(r1.body.data.rotated_at).not.toBeNull();
    const r2 = await json(inst.api(`/v1/scenario-secrets/${id}/rotate`, { method: "POST", json: { value: "third-value-cccc" } }));
    expect(r2.body.data.version).toBe(3);
    expect(JSON.stringify(r2.body)).not.toContain("third-value-cccc");
    expect((await json(inst.api(`/v1/scenario-secrets/${id}/rotate`, { method: "POST", json: { value: "" } }))).status).toBe(422);
    expect((await json(inst.api(`/v1/scenario-secrets/${id}/rotate`, { method: "POST", json: {} }))).status).toBe(422);

    // A run sees the current value (checked inside the run, never shown) and marks the secret used.
    const agent = (await json(inst.api("/v1/agents"))).body.data.find((a: any) => a.preset === "standard").id;
    const sc = (
      await json(
        inst.api("/v1/scenarios", {
          method: "POST",
          json: {
            name: "secret check",
            draft_definition: { schema_version: 1, steps: [{ type: "assert", value: "${secrets.ROTATING}", equals: "third-value-cccc" }] },
          },
        }),
      )
    ).body.data;
    expect((await json(inst.api(`/v1/scenarios/${sc.id}/publish`, { method: "POST" }))).status).toBe(201);
    const run = await json(inst.api("/v1/runs?wait=20", { method: "POST", json: { agent_id: agent, scenario_id: sc.id } }));
    expect(run.body.data.status).toBe("succeeded");
    expect((await json(inst.api(`/v1/scenario-secrets/${id}`))).body.data.last_used_at).not.toBeNull();
  });

  test("a failing assertion on a secret does not reveal it in failed_assertions, errors or events", async () => {
    const agent = (await json(inst.api("/v1/agents"))).body.data.find((a: any) => a.preset === "standard").id;
    const sc = (
      await json(
        inst.api("/v1/scenarios", {
          method: "POST",
          json: {
            name: "leak check",
            draft_definition: { schema_version: 1, steps: [{ type: "assert", value: "${secrets.API_TOKEN}", equals: "wrong" }] },
          },
        }),
      )
    ).body.data;
    await json(inst.api(`/v1/scenarios/${sc.id}/publish`, { method: "POST" }));
    const run = (await json(inst.api("/v1/runs?wait=20", { method: "POST", json: { agent_id: agent, scenario_id: sc.id } }))).body.data;
    expect(run.status).toBe("failed");
    expect(run.failed_assertions).toHaveLength(1);
    const events = await json(inst.api(`/v1/runs/${run.id}/events?limit=100`));
    expect(JSON.stringify(run) + JSON.stringify(events.body)).not.toContain(VALUE);
    expect(JSON.stringify(run.failed_assertions)).toContain("[redacted]");
  });

  test("names: duplicate is 409 secret_exists; invalid name or empty value is 422", async () => {
    const dup = await create({ name: "API_TOKEN", value: "x" });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("secret_exists");
    for (const name of ["has-dash", "1LEADING", "", "x".repeat(65), "with space"]) {
      expect((await create({ name, value: "v" })).status).toBe(422);
    }
    expect((await create({ name: "EMPTY", value: "" })).status).toBe(422);
    expect((await create({ name: "NOVALUE" })).status).toBe(422);
  });

  test("delete is 204, then 404; another project's secret is 404; scopes secrets:read / secrets:write", async () => {
    const id = (await create({ name: "DOOMED", value: "v" })).body.data.id;
    const device = await login(inst);
    const p = (await json(inst.api("/v1/projects", { method: "POST", token: device, json: { name: "Elsewhere" } }))).body.data;
    expect((await json(inst.api(`/v1/scenario-secrets/${id}`, { token: device, project: p.id }))).status).toBe(404);
    expect((await inst.api(`/v1/scenario-secrets/${id}`, { method: "DELETE", token: device, project: p.id })).status).toBe(404);
    const reader = (await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "r", scopes: ["secrets:read"] } }))).body.data
      .secret;
    expect((await json(inst.api("/v1/scenario-secrets", { token: reader }))).status).toBe(200);
    const w = await json(inst.api(`/v1/scenario-secrets/${id}/rotate`, { method: "POST", token: reader, json: { value: "x" } }));
    expect(w.status).toBe(403);
    expect(w.body.code).toBe("insufficient_scope");
    const d = await inst.api(`/v1/scenario-secrets/${id}`, { method: "DELETE" });
    expect(d.status).toBe(204);
    expect((await json(inst.api(`/v1/scenario-secrets/${id}`))).status).toBe(404);
    expect((await json(inst.api(`/v1/scenario-secrets/${id}/rotate`, { method: "POST", json: { value: "x" } }))).status).toBe(404);
  });
});
