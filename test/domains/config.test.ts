// Domains under deployment settings: the plan's custom-domain limit (Free: none, Business: 10),
// INBOXD_DOMAIN_VERIFY=off for air-gapped labs, INBOXD_DNS_SERVERS validation, and the routes'
// presence in the OpenAPI document.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, type Instance } from "../support/harness";

describe("Free plan", () => {
  let inst: Instance;
  beforeAll(async () => {
    inst = await startInboxd({ INBOXD_PLAN: "free" });
  });
  afterAll(async () => {
    await inst.stop();
    inst.cleanup();
  });

  test("includes no custom domains: create is 422 plan_limit_exceeded", async () => {
    const r = await json(inst.api("/v1/domains", { method: "POST", json: { domain: "free.example.com" } }));
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("plan_limit_exceeded");
    expect(r.body.details).toMatchObject({ limit: "custom_domains", quota: 0, used: 0 });
    expect((await json(inst.api("/v1/domains"))).body.data).toEqual([]);
  });

  test("the domain routes are in the OpenAPI document", async () => {
    const doc = (await json(inst.api("/openapi.json", { token: null }))).body;
    for (const p of ["/v1/domains", "/v1/domains/{id}", "/v1/domains/{id}/verify", "/v1/domains/{id}/catch-all"]) {
      expect(Object.keys(doc.paths)).toContain(p);
    }
    expect(Object.keys(doc.paths["/v1/domains/{id}"])).toEqual(expect.arrayContaining(["get", "delete"]));
  });
});

describe("Business plan with INBOXD_DOMAIN_VERIFY=off", () => {
  let inst: Instance;
  beforeAll(async () => {
    inst = await startInboxd({ INBOXD_PLAN: "business", INBOXD_DOMAIN_VERIFY: "off" });
  });
  afterAll(async () => {
    await inst.stop();
    inst.cleanup();
  });

  test("a domain is verified at create, records are 'skipped', and verify leaves it so", async () => {
    const r = await json(inst.api("/v1/domains", { method: "POST", json: { domain: "lab.internal.example" } }));
    expect(r.status).toBe(201);
    const d = r.body.data;
    expect(d.status).toBe("verified");
    expect(Date.parse(d.verified_at)).not.toBeNaN();
    expect(d.records.length).toBeGreaterThanOrEqual(2); // mx and ownership at least
    for (const rec of d.records) expect(rec.status).toBe("skipped");
    const v = await json(inst.api(`/v1/domains/${d.id}/verify`, { method: "POST" }));
    expect(v.body.data.status).toBe("verified");
    const box = await json(inst.api("/v1/inboxes", { method: "POST", json: { domain_id: d.id, local_part: "qa" } }));
    expect(box.status).toBe(201);
    expect(box.body.data.address).toBe("qa@lab.internal.example");
    expect(box.body.data.expires_at).toBeNull();
  });

  test("allows 10 custom domains per team; the 11th is 422 plan_limit_exceeded; usage counts them", async () => {
    const have = (await json(inst.api("/v1/domains?limit=100"))).body.data.length;
    for (let i = have; i < 10; i++) {
      const r = await json(inst.api("/v1/domains", { method: "POST", json: { domain: `d${i}.limit.example` } }));
      expect(r.status).toBe(201);
    }
    const over = await json(inst.api("/v1/domains", { method: "POST", json: { domain: "eleven.limit.example" } }));
    expect(over.status).toBe(422);
    expect(over.body.code).toBe("plan_limit_exceeded");
    expect(over.body.details).toMatchObject({ limit: "custom_domains", quota: 10, used: 10 });
    const usage = (await json(inst.api("/v1/usage"))).body.data;
    expect(usage.quotas.custom_domains).toBe(10);
    expect(usage.usage.custom_domains).toBe(10);
    // Deleting one frees a slot.
    const first = (await json(inst.api("/v1/domains?limit=1"))).body.data[0];
    expect((await inst.api(`/v1/domains/${first.id}?force=true`, { method: "DELETE" })).status).toBe(204);
    expect((await json(inst.api("/v1/domains", { method: "POST", json: { domain: "eleven.limit.example" } }))).status).toBe(201);
  }, 60_000);
});

describe("INBOXD_DNS_SERVERS", () => {
  test.each(["not-an-ip", "127.0.0.1:99999", "1.2.3.4:", "::1:53x", "[1.2.3.4]:53"])("refuses %p at start-up", async (value) => {
    const err = await startInboxd({ INBOXD_DNS_SERVERS: value }).then(
      async (i) => {
        await i.stop();
        i.cleanup();
        return null;
      },
      (e) => String(e),
    );
    expect(err).toContain("INBOXD_DNS_SERVERS");
  });

  test("accepts addresses with and without a port", async () => {
    const inst = await startInboxd({ INBOXD_DNS_SERVERS: "127.0.0.1:5353, 192.0.2.1, ::1, [::1]:5353" });
    try {
      expect((await json(inst.api("/v1/domains"))).status).toBe(200);
    } finally {
      await inst.stop();
      inst.cleanup();
    }
  });
});
