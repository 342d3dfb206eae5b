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

const create = (body: unknown, token?: string) => json(inst.api("/v1/http-origins", { method: "POST", json: body, token }));

describe("HTTP origins", () => {
  test("an origin is parsed into scheme, host, port and is_wildcard, in normal form", async () => {
    const cases: [string, Record<string, unknown>][] = [
      [
        "https://App.Example.com",
        { origin: "https://app.example.com", scheme: "https", host: "app.example.com", port: 443, is_wildcard: false },
      ],
      ["http://localhost:3000", { origin: "http://localhost:3000", scheme: "http", host: "localhost", port: 3000, is_wildcard: false }],
      ["https://*.example.com", { origin: "https://*.example.com", scheme: "https", host: "example.com", port: 443, is_wildcard: true }],
      ["http://127.0.0.1:80/", { origin: "http://127.0.0.1", scheme: "http", host: "127.0.0.1", port: 80, is_wildcard: false }],
      ["https://api.example.org:8443", { origin: "https://api.example.org:8443", port: 8443 }],
    ];
    for (const [input, expected] of cases) {
      const r = await create({ origin: input });
      expect(r.status).toBe(201);
      expect(r.body.data).toMatchObject({ ...expected, description: null, last_used_at: null });
      expect(r.body.data.id).toMatch(ULID);
    }
  });

  test("invalid origins are 422 validation_error", async () => {
    for (const bad of [
      "ftp://example.com",
      "example.com",
      "https://example.com/path",
      "https://user:pw@example.com",
      "https://*.com",
      "https://*.1.2.3.4",
      "http://exa mple.com",
      "https://example.com:99999",
      "https://example.com?q=1",
    ]) {
      const r = await create({ origin: bad });
      expect(r.status).toBe(422);
      expect(r.body.code).toBe("validation_error");
    }
    expect((await create({})).status).toBe(422);
  });

  test("the same origin twice (in any spelling) is 409 origin_exists", async () => {
    expect((await create({ origin: "https://dup.example.com" })).status).toBe(201);
    const again = await create({ origin: "HTTPS://dup.example.com:443/" });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("origin_exists");
  });

  test("show, update description (null allowed), list newest first, delete 204 then 404", async () => {
    const c = (await create({ origin: "https://crud.example.com", description: "staging app" })).body.data;
    expect(c.description).toBe("staging app");
    expect((await json(inst.api(`/v1/http-origins/${c.id}`))).body.data).toEqual(c);
    const u = await json(inst.api(`/v1/http-origins/${c.id}`, { method: "PATCH", json: { description: "renamed" } }));
    expect(u.status).toBe(200);
    expect(u.body.data).toMatchObject({ origin: "https://crud.example.com", description: "renamed" });
    const n = await json(inst.api(`/v1/http-origins/${c.id}`, { method: "PATCH", json: { description: null } }));
    expect(n.body.data.description).toBeNull();
    expect((await json(inst.api(`/v1/http-origins/${c.id}`, { method: "PATCH", json: {} }))).status).toBe(422);
    const list = await json(inst.api("/v1/http-origins?limit=100"));
    expect(list.body.data[0].id).toBe(c.id);
    const ids = list.body.data.map((o: any) => o.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    const d = await inst.api(`/v1/http-origins/${c.id}`, { method: "DELETE" });
    expect(d.status).toBe(204);
    expect((await json(inst.api(`/v1/http-origins/${c.id}`))).status).toBe(404);
    expect((await inst.api(`/v1/http-origins/${c.id}`, { method: "DELETE" })).status).toBe(404);
  });

  test("another project's origin is 404; scopes origins:read / origins:write", async () => {
    const mine = (await create({ origin: "https://tenant.example.com" })).body.data;
    const device = await login(inst);
    const p = (await json(inst.api("/v1/projects", { method: "POST", token: device, json: { name: "Other" } }))).body.data;
    expect((await json(inst.api(`/v1/http-origins/${mine.id}`, { token: device, project: p.id }))).status).toBe(404);
    expect((await json(inst.api("/v1/http-origins", { token: device, project: p.id }))).body.data).toEqual([]);
    const reader = (await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "r", scopes: ["origins:read"] } }))).body.data
      .secret;
    expect((await json(inst.api("/v1/http-origins", { token: reader }))).status).toBe(200);
    const w = await create({ origin: "https://x.example.com" }, reader);
    expect(w.status).toBe(403);
    expect(w.body.code).toBe("insufficient_scope");
  });

  test("a wildcard origin admits subdomains at run time, and last_used_at records the use", async () => {
    // The run's http.request step reaches 127.0.0.1 through an exact origin; a wildcard entry for
    // a name that does not resolve is only matched, never called, so it stays unused.
    const app = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ pong: true }) });
    try {
      const o = (await create({ origin: `http://127.0.0.1:${app.port}` })).body.data;
      const wild = (await create({ origin: "https://*.wild.example.com" })).body.data;
      const agent = (await json(inst.api("/v1/agents"))).body.data.find((a: any) => a.preset === "standard").id;
      const sc = (
        await json(
          inst.api("/v1/scenarios", {
            method: "POST",
            json: {
              name: "ping",
              draft_definition: {
                schema_version: 1,
                steps: [
                  { id: "p", type: "http.request", url: `http://127.0.0.1:${app.port}/ping` },
                  { type: "assert", value: "${steps.p.body.pong}", equals: true },
                ],
              },
            },
          }),
        )
      ).body.data;
      await json(inst.api(`/v1/scenarios/${sc.id}/publish`, { method: "POST" }));
      const run = await json(inst.api("/v1/runs?wait=20", { method: "POST", json: { agent_id: agent, scenario_id: sc.id } }));
      expect(run.body.data.status).toBe("succeeded");
      expect((await json(inst.api(`/v1/http-origins/${o.id}`))).body.data.last_used_at).not.toBeNull();
      expect((await json(inst.api(`/v1/http-origins/${wild.id}`))).body.data.last_used_at).toBeNull();
    } finally {
      app.stop(true);
    }
  });
});
