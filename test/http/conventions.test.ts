import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, ULID, type Instance } from "../support/harness";

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

  test("rate-limit headers are on every /v1 response, 401s included", async () => {
    const r = await inst.api("/v1/inboxes", { token: null });
    expect(r.status).toBe(401);
    for (const h of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) expect(r.headers.get(h)).not.toBeNull();
  });

  test("a body that is not JSON is a 400 in the envelope", async () => {
    const r = await json(inst.api("/v1/inboxes", { method: "POST", body: "{bad", headers: { "content-type": "application/json" } }));
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("invalid_body");
    expect(r.body.request_id).toMatch(ULID);
  });
});
