// Custom domains over HTTP against a real server whose DNS lookups go to a responder this test
// controls (test/support/dns-server.ts): create and normalise, records, verify pending → failed → verified,
// the scheduler's re-check, delete rules, scopes, tenancy, and the DKIM key sealed at rest.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { withDatabase } from "../support/database-rows";
import { createPublicKey } from "node:crypto";
import { json, login, startInboxd, ULID, type Instance } from "../support/harness";
import { startTestDns, type TestDns } from "../support/dns-server";

const PUBLIC_HOST = "mx.inboxd-lab.test";
let inst: Instance;
let dns: TestDns;

beforeAll(async () => {
  dns = await startTestDns();
  inst = await startInboxd({
    INBOXD_PLAN: "business",
    INBOXD_PUBLIC_HOST: PUBLIC_HOST,
    INBOXD_DNS_SERVERS: `127.0.0.1:${dns.port}`,
    INBOXD_DOMAIN_CHECK_INTERVAL: "1",
  });
});
// The Business plan allows 10 custom domains per team: every test starts from none.
afterEach(async () => {
  const list = await json(inst.api("/v1/domains?limit=100"));
  for (const d of list.body.data) await inst.api(`/v1/domains/${d.id}?force=true`, { method: "DELETE" });
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
  await dns.close();
});

const create = (domain: string, extra: Record<string, unknown> = {}) =>
  json(inst.api("/v1/domains", { method: "POST", json: { domain, ...extra } }));
const show = (id: string) => json(inst.api(`/v1/domains/${id}`));
const verify = (id: string) => json(inst.api(`/v1/domains/${id}/verify`, { method: "POST" }));
const del = (id: string, q = "") => inst.api(`/v1/domains/${id}${q}`, { method: "DELETE" });
const rec = (d: any, key: string) => d.records.find((r: any) => r.key === key);

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await Bun.sleep(200);
  }
}

describe("create", () => {
  test("normalises the name (case, trailing dot) and answers 201 with the domain resource", async () => {
    const r = await create("Shop.Example.COM.");
    expect(r.status).toBe(201);
    const d = r.body.data;
    expect(d.id).toMatch(ULID);
    expect(d.domain).toBe("shop.example.com");
    expect(d.mode).toBe("normal");
    expect(d.status).toBe("pending");
    expect(d.verified_at).toBeNull();
    expect(d.last_checked_at).toBeNull();
    expect(typeof d.dkim.selector).toBe("string");
    expect(d.project.id).toMatch(ULID);
    expect(typeof d.project.slug).toBe("string");
    expect(Date.parse(d.created_at)).not.toBeNaN();
  });

  test("an internationalised name is stored as punycode", async () => {
    const r = await create("Bücher.Example");
    expect(r.status).toBe(201);
    expect(r.body.data.domain).toBe("xn--bcher-kva.example");
  });

  test("records: MX to the public host, SPF, DKIM with an RSA-2048 key, DMARC and the ownership token", async () => {
    const d = (await create("records.example.net")).body.data;
    expect(d.records.map((r: any) => r.key).sort()).toEqual(["dkim", "dmarc", "mx", "ownership", "spf"]);
    for (const r of d.records) {
      expect(Object.keys(r).sort()).toEqual(["host", "key", "priority", "required", "status", "type", "value"]);
      expect(r.status).toBe("pending");
      expect(Number.isInteger(r.priority)).toBe(true);
    }
    expect(rec(d, "mx")).toMatchObject({ type: "MX", host: "records.example.net", value: PUBLIC_HOST, priority: 10, required: true });
    expect(rec(d, "spf")).toMatchObject({ type: "TXT", host: "records.example.net" });
    expect(rec(d, "spf").value).toStartWith("v=spf1 ");
    expect(rec(d, "dmarc")).toMatchObject({ type: "TXT", host: "_dmarc.records.example.net" });
    expect(rec(d, "dmarc").value).toStartWith("v=DMARC1;");
    expect(rec(d, "ownership")).toMatchObject({ type: "TXT", host: "_inboxd.records.example.net", required: true });
    const dkim = rec(d, "dkim");
    expect(dkim.host).toBe(`${d.dkim.selector}._domainkey.records.example.net`);
    const m = /^v=DKIM1; k=rsa; p=([A-Za-z0-9+/=]+)$/.exec(dkim.value);
    expect(m).not.toBeNull();
    const key = createPublicKey({ key: Buffer.from(m![1]!, "base64"), format: "der", type: "spki" });
    expect(key.asymmetricKeyType).toBe("rsa");
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    // Each domain has its own key and token.
    const other = (await create("records2.example.net")).body.data;
    expect(rec(other, "dkim").value).not.toBe(dkim.value);
    expect(rec(other, "ownership").value).not.toBe(rec(d, "ownership").value);
  });

  test("the DKIM private key is encrypted at rest", async () => {
    const d = (await create("sealed.example.org")).body.data;
    const row = (await withDatabase(inst.dataDir, (db) => db.get("SELECT dkim_private_key_enc FROM domains WHERE id = ?", [d.id]))) as {
      dkim_private_key_enc: string;
    };
    expect(row.dkim_private_key_enc).toStartWith("v1.");
    expect(row.dkim_private_key_enc).not.toContain("PRIVATE KEY");
    expect(Buffer.from(row.dkim_private_key_enc.split(".")[3]!, "base64url").toString("latin1")).not.toContain("PRIVATE");
  });

  test.each([
    ["an IPv4 literal", "192.0.2.10"],
    ["an IPv6 literal", "[2001:db8::1]"],
    ["a shorthand IPv4 the URL parser accepts", "127.1"],
    ["a single label", "localhost"],
    ["the shared mail domain", "inboxd.test"],
    ["a subdomain of the shared mail domain", "default.inboxd.test"],
    ["a URL", "https://example.com/"],
    ["an address", "me@example.com"],
    ["a wildcard", "*.example.com"],
    ["an empty string", "  "],
    ["a label over 63 characters", `${"a".repeat(64)}.example.com`],
    ["a label with an underscore", "bad_label.example.com"],
    ["a leading hyphen", "-bad.example.com"],
  ])("refuses %s with 422 validation_error", async (_what, domain) => {
    const r = await create(domain);
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("validation_error");
    expect(r.body.details.field).toBe("domain");
  });

  test("a name already registered is 422 domain_taken, whatever its spelling", async () => {
    expect((await create("taken.example.com")).status).toBe(201);
    const r = await create("TAKEN.example.com.");
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("domain_taken");
  });

  test("Idempotency-Key replays the create", async () => {
    const h = { "idempotency-key": "dom-create-1" };
    const a = await json(inst.api("/v1/domains", { method: "POST", json: { domain: "idem.example.com" }, headers: h }));
    const b = await json(inst.api("/v1/domains", { method: "POST", json: { domain: "idem.example.com" }, headers: h }));
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.body.data.id).toBe(a.body.data.id);
  });
});

describe("list and show", () => {
  test("list is a collection, newest first, with cursor pagination", async () => {
    for (const n of ["l1", "l2", "l3"]) expect((await create(`${n}.example.com`)).status).toBe(201);
    const page1 = await json(inst.api("/v1/domains?limit=2"));
    expect(page1.status).toBe(200);
    expect(page1.body.meta).toMatchObject({ limit: 2, has_more: true });
    expect(page1.body.data).toHaveLength(2);
    expect(page1.body.data[0].id > page1.body.data[1].id).toBe(true);
    const next = page1.body.links.next;
    expect(next).toMatch(ULID);
    const page2 = await json(inst.api(`/v1/domains?limit=2&cursor=${next}`));
    expect(page2.body.data[0].id < page1.body.data[1].id).toBe(true);
    expect((await json(inst.api("/v1/domains?limit=0"))).body.code).toBe("validation_error");
    expect((await json(inst.api("/v1/domains?limit=101"))).status).toBe(422);
  });

  test("show answers {data}; an unknown id is 404", async () => {
    const d = (await create("show.example.com")).body.data;
    const r = await show(d.id);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(d);
    const missing = await show("01ARZ3NDEKTSV4RRFFQ69G5FAV");
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("not_found");
  });

  test("another project of the same team sees none of this project's domains (404, empty list)", async () => {
    const d = (await create("tenancy.example.com")).body.data;
    const token = await login(inst);
    const p = await json(inst.api("/v1/projects", { method: "POST", token, json: { name: "Other domains project" } }));
    expect(p.status).toBe(201);
    const other = p.body.data.id;
    expect((await json(inst.api(`/v1/domains/${d.id}`, { token, project: other }))).status).toBe(404);
    expect((await json(inst.api(`/v1/domains/${d.id}/verify`, { method: "POST", token, project: other }))).status).toBe(404);
    expect((await inst.api(`/v1/domains/${d.id}`, { method: "DELETE", token, project: other })).status).toBe(404);
    const list = await json(inst.api("/v1/domains", { token, project: other }));
    expect(list.body.data).toEqual([]);
  });

  test("scopes: domains:read lists and shows; writing needs domains:write", async () => {
    const key = await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "domains reader", scopes: ["domains:read"] } }));
    expect(key.status).toBe(201);
    const token = key.body.data.secret;
    expect((await json(inst.api("/v1/domains", { token }))).status).toBe(200);
    const w = await json(inst.api("/v1/domains", { method: "POST", token, json: { domain: "scoped.example.com" } }));
    expect(w.status).toBe(403);
    expect(w.body.code).toBe("insufficient_scope");
    const none = await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "no domains", scopes: ["inboxes:read"] } }));
    expect((await json(inst.api("/v1/domains", { token: none.body.data.secret }))).status).toBe(403);
  });
});

describe("verification", () => {
  test("pending → failed (nothing published) → verified once every required record matches", async () => {
    const d = (await create("walk.example.com")).body.data;
    expect(d.status).toBe("pending");

    const failed = await verify(d.id);
    expect(failed.status).toBe(200);
    expect(failed.body.data.status).toBe("failed");
    expect(failed.body.data.verified_at).toBeNull();
    expect(Date.parse(failed.body.data.last_checked_at)).not.toBeNaN();
    expect(failed.body.data.failure_reason).toContain("mx");
    expect(failed.body.data.failure_reason).toContain("ownership");
    expect(failed.body.data.records.length).toBeGreaterThanOrEqual(2); // mx and ownership at least
    for (const r of failed.body.data.records) expect(r.status).toBe("missing");

    dns.publishDomain(d);
    const ok = await verify(d.id);
    expect(ok.body.data.status).toBe("verified");
    expect(Date.parse(ok.body.data.verified_at)).not.toBeNaN();
    expect(ok.body.data.failure_reason).toBeNull();
    // Every record, the DKIM one split into 255-byte strings on the wire included, matches.
    expect(ok.body.data.records.map((r: any) => r.key)).toEqual(failed.body.data.records.map((r: any) => r.key));
    for (const r of ok.body.data.records) expect(r).toMatchObject({ status: "valid" });
    expect((await show(d.id)).body.data.status).toBe("verified");
  });

  test("wrong values are reported per record and fail the domain with the reason", async () => {
    const d = (await create("wrong.example.com")).body.data;
    dns.set("wrong.example.com", { type: "MX", priority: 10, exchange: "mx.elsewhere.example" }, { type: "TXT", value: "v=spf1 -all" });
    dns.set(`_inboxd.wrong.example.com`, { type: "TXT", value: "inboxd-verification=not-the-token" });
    dns.set(`_dmarc.wrong.example.com`, { type: "TXT", value: "v=DMARC1; p=reject" });
    const r = (await verify(d.id)).body.data;
    expect(r.status).toBe("failed");
    expect(rec(r, "mx").status).toBe("invalid");
    expect(rec(r, "ownership").status).toBe("invalid");
    expect(rec(r, "spf").status).toBe("invalid");
    expect(rec(r, "dmarc").status).toBe("valid");
    expect(rec(r, "dkim").status).toBe("missing");
    expect(r.failure_reason).toContain("mx.elsewhere.example");
  });

  test("only the required records (MX and ownership) decide: optional ones may be missing", async () => {
    const d = (await create("minimal.example.com")).body.data;
    dns.set("minimal.example.com", { type: "MX", priority: 10, exchange: `${PUBLIC_HOST}.` });
    dns.set("_inboxd.minimal.example.com", { type: "TXT", value: rec(d, "ownership").value });
    const r = (await verify(d.id)).body.data;
    expect(r.status).toBe("verified");
    expect(rec(r, "spf").status).toBe("missing");
    expect(rec(r, "dkim").status).toBe("missing");
  });

  test("the scheduler re-checks a pending domain by itself: stays pending while records are missing, then verifies", async () => {
    const d = (await create("sched.example.com")).body.data;
    const checked = await until(
      () => show(d.id),
      (r) => r.body.data.last_checked_at !== null,
    );
    expect(checked.body.data.status).toBe("pending");
    expect(rec(checked.body.data, "mx").status).toBe("missing");
    expect(checked.body.data.verified_at).toBeNull();

    dns.publishDomain(d);
    const done = await until(
      () => show(d.id),
      (r) => r.body.data.status === "verified",
    );
    expect(done.body.data.status).toBe("verified");
    expect(done.body.data.verified_at).not.toBeNull();
    expect(dns.queries.some((q) => q.name === "_inboxd.sched.example.com")).toBe(true);
  }, 60_000);

  test("a verified domain stays verified when records drift; verify refreshes the per-record status", async () => {
    const d = (await create("drift.example.com")).body.data;
    dns.publishDomain(d);
    expect((await verify(d.id)).body.data.status).toBe("verified");
    dns.zone.delete("_inboxd.drift.example.com");
    const again = (await verify(d.id)).body.data;
    expect(again.status).toBe("verified");
    expect(rec(again, "ownership").status).toBe("missing");
  });
});

describe("delete", () => {
  test("204, then the domain is gone (404) and its name can be registered again", async () => {
    const d = (await create("gone.example.com")).body.data;
    const r = await del(d.id);
    expect(r.status).toBe(204);
    expect(await r.text()).toBe("");
    expect((await show(d.id)).status).toBe(404);
    expect((await del(d.id)).status).toBe(404);
    expect((await create("gone.example.com")).status).toBe(201);
  });
});
