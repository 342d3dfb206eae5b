import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, ULID, type Instance } from "../support/harness";
import { fieldOf, pointerOf } from "../../src/http/validation-details";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd();
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

describe("common rules", () => {
  test("errors use the envelope with request_id, also for unknown paths (404) and wrong methods (405)", async () => {
    const r404 = await json(inst.api("/v1/no-such-thing"));
    expect(r404.status).toBe(404);
    expect(r404.body).toMatchObject({ code: "not_found", details: {} });
    expect(r404.body.request_id).toMatch(ULID);
    const r405 = await json(inst.api("/v1/inboxes", { method: "PUT" }));
    expect(r405.status).toBe(405);
    expect(r405.body.code).toBe("method_not_allowed");
    expect(r405.headers.get("allow")).toContain("GET");
  });

  test("rate-limit headers are on every /v1 response: success, client errors and 401s", async () => {
    const answers = [
      [200, await inst.api("/v1/inboxes")],
      [201, await inst.api("/v1/inboxes", { method: "POST", json: {} })],
      [404, await inst.api("/v1/inboxes/01ARZ3NDEKTSV4RRFFQ69G5FAV")],
      [422, await inst.api("/v1/inboxes?limit=0")],
      [405, await inst.api("/v1/inboxes", { method: "PUT" })],
      [401, await inst.api("/v1/inboxes", { token: null })],
    ] as const;
    for (const [status, r] of answers) {
      const headers = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"].map((h) => [h, r.headers.get(h) !== null]);
      expect([r.status, ...headers]).toEqual([status, ...headers.map(([h]) => [h, true])]);
    }
  });

  test("a body nested thousands deep is a 400 in the envelope, on routes with schemas; a control character in the search's q", async () => {
    const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
    for (const [method, path, body] of [
      ["POST", "/v1/agents", `{"name":${deep(10_000)}}`],
      ["PUT", "/v1/smtp/chaos", deep(30_000)],
      ["POST", "/v1/inboxes", `{"name":"x","watch":${deep(100_000)}}`],
    ] as const) {
      const r = await json(inst.api(path, { method, body, headers: { "content-type": "application/json" } }));
      expect([path, r.status, r.body.code, r.body.message]).toEqual([
        path,
        400,
        "invalid_body",
        "the request body nests arrays and objects deeper than 64 levels",
      ]);
    }
    // Within the limit, the schema still judges it (422).
    const shallow = await json(inst.api("/v1/agents", { method: "POST", json: { name: [[[[]]]] } }));
    expect([shallow.status, shallow.body.code]).toEqual([422, "validation_error"]);
    // A control character in q (a NUL ended the full-text engine's string: a 500) is a 422 naming its position.
    const inbox = (await json(inst.api("/v1/inboxes", { method: "POST", json: {} }))).body.data;
    for (const path of [`/v1/inboxes/${inbox.id}/messages`, "/v1/messages", `/v1/inboxes/${inbox.id}/messages/latest`]) {
      const r = await json(inst.api(`${path}?q=${encodeURIComponent('a\u0000 from:"b\u0001"')}`));
      expect([path, r.status, r.body.code, r.body.details.position]).toEqual([path, 422, "validation_error", 1]);
    }
  });

  test("integer query parameters take decimal digits only (0x10, +1, 1e1 are 422 like abc, never coerced)", async () => {
    const inbox = (await json(inst.api("/v1/inboxes", { method: "POST", json: {} }))).body.data;
    const words = await json(inst.api("/v1/inboxes?limit=abc"));
    expect([words.status, words.body.code, words.body.details.field]).toEqual([422, "validation_error", "limit"]);
    for (const [path, name, value] of [
      ["/v1/inboxes", "limit", "0x10"],
      ["/v1/inboxes", "limit", "+1"],
      ["/v1/inboxes", "limit", " 1"],
      ["/v1/inboxes", "limit", "1e1"],
      ["/v1/messages", "wait", "0x10"],
      ["/v1/messages", "min", "0x2"],
      [`/v1/inboxes/${inbox.id}/messages/latest`, "wait", "0x1"],
    ] as const) {
      const r = await json(inst.api(`${path}?${new URLSearchParams({ [name]: value })}`));
      expect([path, value, r.status, r.body.code, r.body.details.field]).toEqual([path, value, 422, "validation_error", name]);
    }
    expect((await inst.api("/v1/inboxes?limit=10")).status).toBe(200);
  });

  test("an error quotes a refused value cut short: a megabyte sent is not a megabyte answered", async () => {
    const big = "x".repeat(1024 * 1024);
    for (const [path, method, body] of [
      ["/v1/http-origins", "POST", { origin: big }],
      ["/v1/api-keys", "POST", { name: "k", scopes: [big] }],
      ["/v1/agents", "POST", { name: "a", permissions: [big, `${big}y`] }],
      [`/v1/runs?status=${big.slice(0, 10_000)}`, "GET", undefined],
    ] as const) {
      const r = await inst.api(path, { method, json: body });
      const text = await r.text();
      expect([path.slice(0, 30), r.status, JSON.parse(text).code]).toEqual([path.slice(0, 30), 422, "validation_error"]);
      expect(text.length).toBeLessThan(2000);
    }
  });

  test("a body that is not JSON is a 400 in the envelope", async () => {
    const r = await json(inst.api("/v1/inboxes", { method: "POST", body: "{bad", headers: { "content-type": "application/json" } }));
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("invalid_body");
    expect(r.body.request_id).toMatch(ULID);
  });

  test("a JSON body that is not an object is a 422 (an optional body may be left out); media types are case-insensitive", async () => {
    const count = async () => (await json(inst.api("/v1/usage"))).body.data.usage.concurrent_inboxes;
    const before = await count();
    for (const body of ["[]", "null", '"x"', "42"]) {
      const r = await json(inst.api("/v1/inboxes", { method: "POST", body, headers: { "content-type": "application/json" } }));
      expect([body, r.status, r.body.code, r.body.message]).toEqual([
        body,
        422,
        "validation_error",
        "the request body must be a JSON object",
      ]);
    }
    expect(await count()).toBe(before);
    const empty = await inst.api("/v1/inboxes", { method: "POST" });
    expect(empty.status).toBe(201);
    const id = (await empty.json()).data.id;
    const mixed = await json(
      inst.api(`/v1/inboxes/${id}`, {
        method: "PATCH",
        body: JSON.stringify({ name: "Mixed case" }),
        headers: { "content-type": "Application/JSON; Charset=UTF-8" },
      }),
    );
    expect([mixed.status, mixed.body.data?.name]).toEqual([200, "Mixed case"]);
    const other = await json(inst.api(`/v1/inboxes/${id}`, { method: "PATCH", body: "name=x", headers: { "content-type": "Text/CSV" } }));
    expect([other.status, other.body.code, other.body.message]).toEqual([
      415,
      "unsupported_media_type",
      "content type Text/CSV is not accepted; send application/json",
    ]);
  });

  test("a validation_error names the field and lists the problems the same way, whether the route's schema or a service's rule refused", async () => {
    const inbox = (await json(inst.api("/v1/inboxes", { method: "POST", json: {} }))).body.data;
    const put = (body: unknown) => json(inst.api(`/v1/inboxes/${inbox.id}/chaos`, { method: "PUT", json: body }));

    // The schema: a union of literals names its values, not "'string', 'string'".
    const literal = await put({ rules: [{ stage: "nope", code: 450 }] });
    expect(literal.status).toBe(422);
    expect(literal.body.code).toBe("validation_error");
    expect(literal.body.details).toMatchObject({
      in: "body",
      field: "rules[0].stage",
      errors: [{ path: "/rules/0/stage", message: 'must be one of "rcpt", "data"' }],
    });
    expect(literal.body.message).toBe('invalid body: /rules/0/stage must be one of "rcpt", "data"');

    // A missing member is reported once for its path, as missing.
    const missing = await put({ rules: [{ code: 450 }] });
    expect(missing.body.details.field).toBe("rules[0].stage");
    expect(missing.body.details.errors).toHaveLength(1);
    expect(missing.body.details.errors[0].message).toContain("missing");

    // Elysia's coercing integer is a union too (a numeric string or an integer).
    const limit = await json(inst.api("/v1/inboxes?limit=abc"));
    expect(limit.status).toBe(422);
    expect(limit.body.details).toMatchObject({ in: "query", field: "limit", errors: [{ path: "/limit", message: "must be an integer" }] });
    // A nullable field says what it takes, and a value of the right type that breaks the rule is told the rule.
    for (const [path, body, message] of [
      ["/v1/inboxes", { ttl_seconds: 1.5 }, "must be an integer, or null"],
      ["/v1/inboxes", { ttl_seconds: "abc" }, "must be an integer, or null"],
      ["/v1/inboxes", { ttl_seconds: true }, "must be an integer, or null"],
      ["/v1/api-keys", { name: "x", expires_at: "tomorrow" }, "must be a date-time string, or null"],
    ] as const) {
      const r = await json(inst.api(path, { method: "POST", json: body }));
      const field = Object.keys(body).at(-1)!;
      expect([field, r.status, r.body.details?.errors?.[0]]).toEqual([field, 422, { path: `/${field}`, message }]);
    }
    // Out of range, Elysia's check after the conversion names no parameter: the one holding the number is named.
    for (const [query, field] of [
      ["limit=500", "limit"],
      ["limit=0&q=hello", "limit"],
    ] as const) {
      const r = await json(inst.api(`/v1/inboxes/${inbox.id}/messages?${query}`));
      expect(r.status).toBe(422);
      expect(r.body.details).toMatchObject({ in: "query", field, errors: [{ path: `/${field}` }] });
      expect(r.body.message).toStartWith(`invalid query: /${field} `);
    }
    const wait = await json(inst.api(`/v1/inboxes/${inbox.id}/messages/latest?wait=61`));
    expect(wait.body.details).toMatchObject({ in: "query", field: "wait" });

    // The service's rule (mail/chaos.ts) names the field; the envelope adds the same list.
    const rule = await put({ rules: [{ stage: "rcpt", code: 700 }] });
    expect(rule.status).toBe(422);
    expect(rule.body.details.field).toBe("rules[0].code");
    expect(rule.body.details.errors).toEqual([{ path: "/rules/0/code", message: rule.body.message }]);

    // A problem in a header is not a field: it keeps its own key and gains no pointer.
    const header = await json(inst.api("/v1/inboxes", { headers: { "x-service-agent-session": "not-a-ulid" } }));
    expect(header.status).toBe(422);
    expect(header.body.details).toEqual({ header: "X-Service-Agent-Session" });
  });
});

describe("field names and JSON pointers", () => {
  test("convert both ways for the names services use", () => {
    for (const [field, pointer] of [
      ["rules[0].stage", "/rules/0/stage"],
      ["limit", "/limit"],
      ["settings.watch_alerts", "/settings/watch_alerts"],
      ["a[2][3].b", "/a/2/3/b"],
      ["", ""],
    ] as const) {
      expect(pointerOf(field)).toBe(pointer);
      expect(fieldOf(pointer)).toBe(field);
    }
    expect(fieldOf("/a~1b/c~0d")).toBe("a/b.c~d");
  });
});
