// Persistent mailboxes on custom domains and the contract's inbox-create rules about domain_id,
// local_part and ttl_seconds, each by name; SMTP delivery to a persistent mailbox and to a domain's
// catch-all inbox. Real server, real DNS lookups against the test's responder, real SMTP client.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import nodemailer from "nodemailer";
import { json, login, startInboxd, ULID, type Instance } from "../support/harness";
import { startTestDns, type TestDns } from "../support/dns-server";

const PUBLIC_HOST = "mx.inboxd-lab.test";
let inst: Instance;
let dns: TestDns;
let slug: string;
let verified: { id: string; domain: string };
let pending: { id: string; domain: string };

const createInbox = (body: Record<string, unknown>, init: { token?: string; project?: string } = {}) =>
  json(inst.api("/v1/inboxes", { method: "POST", json: body, ...init }));

beforeAll(async () => {
  dns = await startTestDns();
  inst = await startInboxd({
    INBOXD_PLAN: "business",
    // Domain routing on its own: without the instance's catch-all, an unknown address is refused.
    INBOXD_CATCH_ALL: "off",
    INBOXD_PUBLIC_HOST: PUBLIC_HOST,
    INBOXD_DNS_SERVERS: `127.0.0.1:${dns.port}`,
  });
  slug = (await json(inst.api("/v1/usage"))).body.data.project.slug;
  const v = (await json(inst.api("/v1/domains", { method: "POST", json: { domain: "mail.acme-lab.example" } }))).body.data;
  dns.publishDomain(v);
  const vr = await json(inst.api(`/v1/domains/${v.id}/verify`, { method: "POST" }));
  if (vr.body.data.status !== "verified") throw new Error(`setup: domain not verified: ${JSON.stringify(vr.body)}`);
  verified = { id: v.id, domain: v.domain };
  const p = (await json(inst.api("/v1/domains", { method: "POST", json: { domain: "pending.acme-lab.example" } }))).body.data;
  pending = { id: p.id, domain: p.domain };
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
  await dns.close();
});

describe("inbox create: domain_id, local_part, ttl_seconds", () => {
  test("domain_id with local_part gives a persistent mailbox with expires_at null", async () => {
    const r = await createInbox({ domain_id: verified.id, local_part: "Support", name: "Support desk" });
    expect(r.status).toBe(201);
    expect(r.body.data.id).toMatch(ULID);
    expect(r.body.data.address).toBe(`support@${verified.domain}`);
    expect(r.body.data.type).toBe("persistent");
    expect(r.body.data.expires_at).toBeNull();
    expect(r.body.data.name).toBe("Support desk");
    const shown = await json(inst.api(`/v1/inboxes/${r.body.data.id}`));
    expect(shown.body.data.expires_at).toBeNull();
  });

  test("domain_id requires local_part (422)", async () => {
    const r = await createInbox({ domain_id: verified.id });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("validation_error");
    expect(r.body.details.field).toBe("local_part");
  });

  test("ttl_seconds together with domain_id is 422", async () => {
    const r = await createInbox({ domain_id: verified.id, local_part: "ttl", ttl_seconds: 3600 });
    expect(r.status).toBe(422);
    expect(r.body.details.field).toBe("ttl_seconds");
    // Even a value that is legal on its own.
    expect((await createInbox({ domain_id: verified.id, local_part: "ttl2", ttl_seconds: 60 })).status).toBe(422);
  });

  test("an unknown domain_id is 404; a domain of another project is 404 too", async () => {
    const r = await createInbox({ domain_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV", local_part: "x" });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("not_found");
    const token = await login(inst);
    const other = (await json(inst.api("/v1/projects", { method: "POST", token, json: { name: "Mailbox tenancy" } }))).body.data.id;
    const cross = await createInbox({ domain_id: verified.id, local_part: "intruder" }, { token, project: other });
    expect(cross.status).toBe(404);
  });

  test("a domain that is not verified takes no mailboxes: 422 domain_not_verified", async () => {
    const r = await createInbox({ domain_id: pending.id, local_part: "early" });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("domain_not_verified");
    expect(r.body.details).toMatchObject({ domain_id: pending.id, status: "pending" });
  });

  test("a local_part in use on the domain is 422 address_taken", async () => {
    expect((await createInbox({ domain_id: verified.id, local_part: "dup" })).status).toBe(201);
    const r = await createInbox({ domain_id: verified.id, local_part: "DUP" });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("address_taken");
  });

  test("local_part alone claims that address on the project's shared subdomain, with a lifetime", async () => {
    const r = await createInbox({ local_part: "claimed" });
    expect(r.status).toBe(201);
    expect(r.body.data.address).toBe(`claimed@${slug}.inboxd.test`);
    expect(r.body.data.type).toBe("disposable");
    expect(Date.parse(r.body.data.expires_at)).toBeGreaterThan(Date.now());
  });

  test("local_part alone is 422 address_taken when that shared address is in use", async () => {
    expect((await createInbox({ local_part: "busy" })).status).toBe(201);
    const r = await createInbox({ local_part: "busy" });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("address_taken");
    // The same local part on the custom domain is another address, and free.
    expect((await createInbox({ domain_id: verified.id, local_part: "busy" })).status).toBe(201);
  });

  test("local_part omitted without a domain gives a generated, name-based address", async () => {
    const r = await createInbox({ name: "Signup Flow" });
    expect(r.status).toBe(201);
    expect(r.body.data.address).toMatch(new RegExp(`^signup-flow-[a-z0-9]+@${slug}\\.inboxd\\.test$`));
  });

  test("local_part over 64 characters is 422", async () => {
    const r = await createInbox({ domain_id: verified.id, local_part: "a".repeat(65) });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("validation_error");
    expect((await createInbox({ local_part: "b".repeat(65) })).status).toBe(422);
    expect((await createInbox({ domain_id: verified.id, local_part: "c".repeat(64) })).status).toBe(201);
  });

  test("name is at most 100 characters (422 beyond), on a persistent mailbox too", async () => {
    expect((await createInbox({ domain_id: verified.id, local_part: "named", name: "n".repeat(101) })).status).toBe(422);
    expect((await createInbox({ domain_id: verified.id, local_part: "named", name: "n".repeat(100) })).status).toBe(201);
  });

  test("ttl_seconds without a domain stays within 60..2592000", async () => {
    expect((await createInbox({ ttl_seconds: 59 })).status).toBe(422);
    expect((await createInbox({ ttl_seconds: 2_592_001 })).status).toBe(422);
    expect((await createInbox({ ttl_seconds: 60 })).status).toBe(201);
  });
});

describe("inbox update on a persistent mailbox", () => {
  test("PATCH ttl_seconds on a persistent mailbox is 422; the name can change", async () => {
    const box = (await createInbox({ domain_id: verified.id, local_part: "patchme" })).body.data;
    const r = await json(inst.api(`/v1/inboxes/${box.id}`, { method: "PATCH", json: { ttl_seconds: 3600 } }));
    expect(r.status).toBe(422);
    expect(r.body.details.field).toBe("ttl_seconds");
    const n = await json(inst.api(`/v1/inboxes/${box.id}`, { method: "PATCH", json: { name: "Renamed" } }));
    expect(n.status).toBe(200);
    expect(n.body.data.name).toBe("Renamed");
    expect(n.body.data.expires_at).toBeNull();
  });
});

describe("SMTP", () => {
  const transport = () =>
    nodemailer.createTransport({ host: "127.0.0.1", port: inst.ports.smtp!, secure: false, tls: { rejectUnauthorized: false } });

  /** Subjects read from the stored raw bytes (independent of the parser's projections). */
  async function subjectsOf(inboxId: string, want = 1): Promise<string[]> {
    const msgs = await messagesOf(inboxId, want);
    const out: string[] = [];
    for (const m of msgs) {
      const raw = await (await inst.api(`/v1/messages/${m.id}/raw`)).text();
      out.push(/^Subject: (.*)$/m.exec(raw)?.[1]?.trim() ?? "");
    }
    return out;
  }

  async function messagesOf(inboxId: string, want = 1) {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const r = await json(inst.api(`/v1/inboxes/${inboxId}/messages`));
      if (r.body.data.length >= want || Date.now() > deadline) return r.body.data as any[];
      await Bun.sleep(100);
    }
  }

  test("mail to a persistent mailbox is accepted and stored", async () => {
    const box = (await createInbox({ domain_id: verified.id, local_part: "orders" })).body.data;
    const info = await transport().sendMail({
      from: "shop@sender.example",
      to: `Orders <ORDERS@${verified.domain.toUpperCase()}>`,
      subject: "Order 1234 confirmed",
      text: "Your code is 834201",
    });
    expect(info.accepted.length).toBe(1);
    expect(await subjectsOf(box.id)).toEqual(["Order 1234 confirmed"]);
  });

  test("catch-all: unknown local parts land in the designated inbox; without it they are refused", async () => {
    const catchAll = (await createInbox({ domain_id: verified.id, local_part: "everything-else" })).body.data;
    const known = (await createInbox({ domain_id: verified.id, local_part: "known" })).body.data;
    const set = await json(inst.api(`/v1/domains/${verified.id}/catch-all`, { method: "POST", json: { inbox_id: catchAll.id } }));
    expect(set.status).toBe(200);
    expect(set.body.data.catch_all_inbox_id).toBe(catchAll.id);

    await transport().sendMail({
      from: "a@sender.example",
      to: `nobody-${Date.now()}@${verified.domain}`,
      subject: "to the void",
      text: "x",
    });
    await transport().sendMail({ from: "a@sender.example", to: `known@${verified.domain}`, subject: "to known", text: "x" });
    expect(await subjectsOf(catchAll.id)).toEqual(["to the void"]);
    expect(await subjectsOf(known.id)).toEqual(["to known"]);

    const cleared = await json(inst.api(`/v1/domains/${verified.id}/catch-all`, { method: "POST", json: { inbox_id: null } }));
    expect(cleared.body.data.catch_all_inbox_id).toBeNull();
    const refused = await transport()
      .sendMail({ from: "a@sender.example", to: `nobody-else@${verified.domain}`, subject: "refused", text: "x" })
      .then(
        () => null,
        (e) => e,
      );
    expect(refused).not.toBeNull();
    expect(String(refused.responseCode ?? refused.message)).toContain("550");
  });

  test("catch-all inbox must be an inbox of the project (404 otherwise); it can be set at create", async () => {
    const r = await json(
      inst.api(`/v1/domains/${verified.id}/catch-all`, { method: "POST", json: { inbox_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV" } }),
    );
    expect(r.status).toBe(404);
    const target = (await createInbox({ local_part: "catcher" })).body.data;
    const d = await json(
      inst.api("/v1/domains", { method: "POST", json: { domain: "catch.acme-lab.example", catch_all_inbox_id: target.id } }),
    );
    expect(d.status).toBe(201);
    expect(d.body.data.catch_all_inbox_id).toBe(target.id);
    // An unverified domain's catch-all receives nothing: its mail is refused.
    const refused = await transport()
      .sendMail({ from: "a@sender.example", to: "x@catch.acme-lab.example", subject: "early", text: "x" })
      .then(
        () => null,
        (e) => e,
      );
    expect(refused).not.toBeNull();
  });

  test("deleting the catch-all inbox clears the domain's catch-all", async () => {
    const box = (await createInbox({ domain_id: verified.id, local_part: "short-lived-catcher" })).body.data;
    const set = await json(inst.api(`/v1/domains/${verified.id}/catch-all`, { method: "POST", json: { inbox_id: box.id } }));
    expect([set.status, set.body.data.catch_all_inbox_id]).toEqual([200, box.id]);
    expect((await inst.api(`/v1/inboxes/${box.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await json(inst.api(`/v1/domains/${verified.id}`))).body.data.catch_all_inbox_id).toBeNull();
  });
});

describe("domain delete with mailboxes", () => {
  test("409 domain_in_use while persistent mailboxes use it; ?force=true deletes them with the domain", async () => {
    const d = (await json(inst.api("/v1/domains", { method: "POST", json: { domain: "busy.acme-lab.example" } }))).body.data;
    dns.publishDomain(d);
    expect((await json(inst.api(`/v1/domains/${d.id}/verify`, { method: "POST" }))).body.data.status).toBe("verified");
    const box = (await createInbox({ domain_id: d.id, local_part: "stays" })).body.data;

    const refused = await json(inst.api(`/v1/domains/${d.id}`, { method: "DELETE" }));
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("domain_in_use");
    expect(refused.body.details.inbox_ids).toEqual([box.id]);
    expect((await json(inst.api(`/v1/inboxes/${box.id}`))).status).toBe(200);

    const forced = await inst.api(`/v1/domains/${d.id}?force=true`, { method: "DELETE" });
    expect(forced.status).toBe(204);
    expect((await json(inst.api(`/v1/inboxes/${box.id}`))).status).toBe(404);
    expect((await json(inst.api(`/v1/domains/${d.id}`))).status).toBe(404);
  });
});
