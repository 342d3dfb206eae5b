// Webhooks: registration, Standard Webhooks signatures (verified independently), payload fields,
// filters, ordering per inbox, the test send and the delivery log, against a real receiver.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, ULID, type Instance } from "../support/harness";
import { createInbox, sendMail, transport } from "../support/mail";
import { Receiver, verifyStandardWebhook, registerWebhook } from "../support/webhook-receiver";

let inst: Instance;
let rx: Receiver;

beforeAll(async () => {
  rx = await Receiver.start();
  inst = await startInboxd({ INBOXD_SWEEP_INTERVAL_MS: "200" });
});
afterAll(async () => {
  rx.stop();
  await inst.stop();
  inst.cleanup();
});

async function send(to: string, subject: string, extra: Record<string, unknown> = {}) {
  const t = transport(inst);
  try {
    await t.sendMail({ from: "Alice Sender <alice@example.com>", to, subject, text: `body of ${subject}`, ...extra });
  } finally {
    t.close();
  }
}

describe("registration", () => {
  test("create shows the whsec_ secret once; show, list and update never do", async () => {
    const wh = await registerWebhook(inst, {
      url: rx.url("/crud"),
      event_types: ["message.received", "inbox.expiring"],
      description: "ci",
    });
    expect(wh.id).toMatch(ULID);
    expect(wh.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(wh.secret.slice(6), "base64").length).toBeGreaterThanOrEqual(24);
    expect(wh).toMatchObject({ url: rx.url("/crud"), enabled: true, inbox_id: null, description: "ci" });
    expect(wh.event_types).toEqual(["message.received", "inbox.expiring"]);

    const shown = await json(inst.api(`/v1/webhooks/${wh.id}`));
    expect(shown.status).toBe(200);
    expect(shown.body.data.secret).toBeUndefined();
    const list = await json(inst.api("/v1/webhooks?limit=100"));
    expect(list.body.data.some((w: any) => w.id === wh.id && w.secret === undefined)).toBe(true);
    expect(list.body.meta).toMatchObject({ limit: 100, has_more: false });

    const upd = await json(
      inst.api(`/v1/webhooks/${wh.id}`, { method: "PATCH", json: { enabled: false, event_types: ["inbox.expired"] } }),
    );
    expect(upd.status).toBe(200);
    expect(upd.body.data).toMatchObject({ enabled: false, event_types: ["inbox.expired"] });
    expect(upd.body.data.secret).toBeUndefined();

    const del = await inst.api(`/v1/webhooks/${wh.id}`, { method: "DELETE" });
    expect(del.status).toBe(204);
    expect((await inst.api(`/v1/webhooks/${wh.id}`)).status).toBe(404);
  });

  test("invalid input is 422, an inbox the project lacks 404; scopes are enforced", async () => {
    const invalid = [
      { url: "not a url" },
      { url: "ftp://127.0.0.1/x" },
      { url: "http://user:pw@127.0.0.1/x" },
      { url: rx.url("/x"), event_types: ["message.exploded"] },
      { url: rx.url("/x"), event_types: [] },
    ];
    for (const body of invalid) {
      const r = await json(inst.api("/v1/webhooks", { method: "POST", json: body }));
      expect([body, r.status, r.body.code]).toEqual([body, 422, "validation_error"]);
    }
    const unknownInbox = { url: rx.url("/x"), inbox_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV" };
    const r = await json(inst.api("/v1/webhooks", { method: "POST", json: unknownInbox }));
    expect([r.status, r.body.code]).toEqual([404, "not_found"]);
    const k = await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "ro", scopes: ["webhooks:read"] } }));
    const ro = k.body.data.secret;
    expect((await json(inst.api("/v1/webhooks", { token: ro }))).status).toBe(200);
    const w = await json(inst.api("/v1/webhooks", { method: "POST", json: { url: rx.url("/x") }, token: ro }));
    expect(w.status).toBe(403);
    expect(w.body.code).toBe("insufficient_scope");
  });

  test("Idempotency-Key replays the create (same secret, one webhook)", async () => {
    const headers = { "idempotency-key": "wh-create-1" };
    const a = await json(inst.api("/v1/webhooks", { method: "POST", json: { url: rx.url("/idem") }, headers }));
    const b = await json(inst.api("/v1/webhooks", { method: "POST", json: { url: rx.url("/idem") }, headers }));
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.body.data.id).toBe(a.body.data.id);
    await inst.api(`/v1/webhooks/${a.body.data.id}`, { method: "DELETE" });
  });
});

describe("delivery", () => {
  test("a received message is delivered signed, with the parsed message and working attachment links", async () => {
    const inbox = await createInbox(inst);
    const wh = await registerWebhook(inst, { url: rx.url("/msg"), inbox_id: inbox.id });
    const attachment = Buffer.from("col1,col2\n1,2\n");
    await send(inbox.address, "Your code", {
      text: "Your verification code is 481516. Visit https://example.com/verify?t=abc to finish.",
      html: '<p>Your verification code is <b>481516</b>. <a href="https://example.com/verify?t=abc">Verify</a></p>',
      attachments: [{ filename: "data.csv", content: attachment, contentType: "text/csv" }],
    });
    const [got] = await rx.waitFor((g) => {
      const m = g.filter((x) => x.path === "/msg");
      return m.length ? m : null;
    });
    expect(got!.headers["content-type"]).toStartWith("application/json");
    expect(got!.headers["webhook-id"]).toMatch(ULID);
    expect(got!.headers["webhook-timestamp"]).toMatch(/^\d+$/);
    expect(got!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(await verifyStandardWebhook(wh.secret, got!.headers, got!.body)).toBe(true);
    // A tampered body or another secret does not verify.
    expect(await verifyStandardWebhook(wh.secret, got!.headers, got!.body + " ")).toBe(false);
    const other = await registerWebhook(inst, { url: rx.url("/unused"), enabled: false });
    expect(await verifyStandardWebhook(other.secret, got!.headers, got!.body)).toBe(false);

    const p = got!.json;
    expect(p.type).toBe("message.received");
    expect(Date.parse(p.timestamp)).toBeGreaterThan(0);
    const d = p.data;
    expect(d.id).toMatch(ULID);
    expect(d.inbox_id).toBe(inbox.id);
    expect(d.inbox_address).toBe(inbox.address);
    expect(d.subject).toBe("Your code");
    expect(d.from).toEqual({ email: "alice@example.com", name: "Alice Sender" });
    expect(d.to.map((a: any) => a.email)).toEqual([inbox.address]);
    expect(d.text).toContain("481516");
    expect(d.html).toContain("<b>481516</b>");
    expect(d.codes).toContain("481516");
    // Links carry their anchor text; the URL from the text body takes the text of the HTML anchor.
    expect(d.links).toEqual([{ url: "https://example.com/verify?t=abc", text: "Verify" }]);
    expect(d.attachments).toHaveLength(1);
    const a = d.attachments[0];
    expect(a).toMatchObject({ filename: "data.csv", size_bytes: attachment.length });
    expect(a.id).toMatch(ULID);
    expect(a.sha256).toBe(new Bun.CryptoHasher("sha256").update(attachment).digest("hex"));
    expect(a.download_url).toBe(`http://localhost:${inst.ports.http}/v1/messages/${d.id}/attachments/${a.id}`);
    const path = new URL(a.download_url).pathname;
    const dl = await inst.api(path);
    expect(dl.status).toBe(200);
    expect(Buffer.from(await dl.arrayBuffer()).equals(attachment)).toBe(true);
    // The message the payload names is the stored one.
    const m = await json(inst.api(`/v1/messages/${d.id}`));
    expect(m.status).toBe(200);
    expect(m.body.data.subject).toBe("Your code");
  });

  test("filters: another inbox's message, a disabled webhook and an unsubscribed type deliver nothing", async () => {
    const a = await createInbox(inst);
    const b = await createInbox(inst);
    await registerWebhook(inst, { url: rx.url("/only-a"), inbox_id: a.id });
    await registerWebhook(inst, { url: rx.url("/disabled"), inbox_id: a.id, enabled: false });
    await registerWebhook(inst, { url: rx.url("/expiring-only"), inbox_id: a.id, event_types: ["inbox.expiring"] });
    await send(b.address, "to b");
    await send(a.address, "to a");
    await rx.waitFor((g) => g.some((x) => x.path === "/only-a"));
    // b's message was committed first; had it matched, it would have arrived first.
    await Bun.sleep(300);
    expect(rx.of("/only-a").map((x) => x.json.data.subject)).toEqual(["to a"]);
    expect(rx.of("/disabled")).toHaveLength(0);
    expect(rx.of("/expiring-only")).toHaveLength(0);
  });

  test("deliveries for one inbox go out concurrently; `sequence` numbers them in the order they were written", async () => {
    const inbox = await createInbox(inst);
    await registerWebhook(inst, { url: rx.url("/ordered"), inbox_id: inbox.id });
    rx.on("/ordered", () => ({ status: 200, delayMs: 300 }));
    const t = transport(inst, { pool: true, maxConnections: 1 });
    const subjects = Array.from({ length: 8 }, (_, i) => `ordered ${i}`);
    try {
      for (const s of subjects) await t.sendMail({ from: "a@example.com", to: inbox.address, subject: s, text: s });
    } finally {
      t.close();
    }
    await rx.waitFor((g) => g.filter((x) => x.path === "/ordered").length >= subjects.length);
    const got = rx.of("/ordered");
    // A slow receiver no longer serialises one inbox's deliveries.
    expect(rx.maxConcurrent.get("/ordered")).toBeGreaterThan(1);
    // The receiver restores the order from `sequence`: 1..8 for this webhook, in sending order.
    const bySeq = [...got].sort((a, b) => a.json.sequence - b.json.sequence);
    expect(bySeq.map((x) => x.json.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(bySeq.map((x) => x.json.data.subject)).toEqual(subjects);
    const ids = new Set(got.map((x) => x.headers["webhook-id"]));
    expect(ids.size).toBe(subjects.length);
  });

  test("different inboxes are delivered in parallel, at most 8 at a time to one webhook", async () => {
    const inboxes = await Promise.all(Array.from({ length: 12 }, () => createInbox(inst)));
    await registerWebhook(inst, { url: rx.url("/parallel") });
    rx.on("/parallel", () => ({ status: 200, delayMs: 600 }));
    await Promise.all(inboxes.map((i) => send(i.address, `parallel ${i.id}`)));
    await rx.waitFor((g) => g.filter((x) => x.path === "/parallel").length >= 12);
    expect(new Set(rx.of("/parallel").map((x) => x.json.data.inbox_id))).toEqual(new Set(inboxes.map((i) => i.id)));
    expect(rx.maxConcurrent.get("/parallel")).toBeGreaterThan(1);
    expect(rx.maxConcurrent.get("/parallel")).toBeLessThanOrEqual(8);
  });

  test("the test operation sends a signed sample now and logs it with the deliveries", async () => {
    const wh = await registerWebhook(inst, { url: rx.url("/sample") });
    rx.on("/sample", () => ({ status: 202, body: "thanks, sample received" }));
    const r = await json(inst.api(`/v1/webhooks/${wh.id}/test`, { method: "POST", json: { event_type: "message.received" } }));
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ status: "succeeded", attempt_count: 1, event_type: "message.received" });
    expect(r.body.data.attempts[0]).toMatchObject({ attempt: 1, status_code: 202, ok: true, response_excerpt: "thanks, sample received" });
    const got = rx.of("/sample");
    expect(got).toHaveLength(1);
    expect(await verifyStandardWebhook(wh.secret, got[0]!.headers, got[0]!.body)).toBe(true);
    expect(got[0]!.json).toMatchObject({ type: "message.received", data: { test: true } });
    expect(got[0]!.headers["webhook-id"]).toBe(r.body.data.id);

    const log = await json(inst.api(`/v1/webhooks/${wh.id}/deliveries`));
    expect(log.status).toBe(200);
    expect(log.body.data[0].id).toBe(r.body.data.id);
    expect(log.body.data[0].attempts[0].duration_ms).toBeGreaterThanOrEqual(0);
    expect(log.body.meta).toMatchObject({ limit: 50, has_more: false });

    // A failing receiver: still 200 from the test operation, with the failure in the record.
    rx.on("/sample", () => ({ status: 500, body: "boom" }));
    const f = await json(inst.api(`/v1/webhooks/${wh.id}/test`, { method: "POST" }));
    expect(f.status).toBe(200);
    expect(f.body.data).toMatchObject({ status: "failed", attempt_count: 1, last_status_code: 500 });
    expect(f.body.data.attempts[0]).toMatchObject({ ok: false, status_code: 500, response_excerpt: "boom" });
    const failed = await json(inst.api(`/v1/webhooks/${wh.id}/deliveries?status=failed`));
    expect(failed.body.data.map((d: any) => d.id)).toEqual([f.body.data.id]);
    expect((await json(inst.api(`/v1/webhooks/${wh.id}/deliveries?status=bogus`))).status).toBe(422);
    expect((await json(inst.api(`/v1/webhooks/${wh.id}/deliveries?limit=0`))).status).toBe(422);
    // The sample has every field a real message.received has, so a receiver built on it reads real ones.
    const inbox = await createInbox(inst);
    await registerWebhook(inst, { url: rx.url("/real"), inbox_id: inbox.id });
    await sendMail(inst, { from: "a@example.com", to: inbox.address, subject: "real", text: "hi" });
    const [real] = await rx.waitFor((g) => {
      const f = g.filter((x) => x.path === "/real");
      return f.length ? f : null;
    });
    const keys = (o: object) => Object.keys(o).sort();
    expect(keys(got[0]!.json.data).filter((k) => k !== "test")).toEqual(keys(real!.json.data));
    expect(keys(got[0]!.json.data.envelope)).toEqual(keys(real!.json.data.envelope));
  });

  test("rotating the secret signs with both secrets for a while", async () => {
    const wh = await registerWebhook(inst, { url: rx.url("/rotate") });
    const r = await json(inst.api(`/v1/webhooks/${wh.id}/rotate-secret`, { method: "POST" }));
    expect(r.status).toBe(200);
    expect(r.body.data.secret).toMatch(/^whsec_/);
    expect(r.body.data.secret).not.toBe(wh.secret);
    await json(inst.api(`/v1/webhooks/${wh.id}/test`, { method: "POST" }));
    const [got] = rx.of("/rotate");
    expect(got!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(await verifyStandardWebhook(r.body.data.secret, got!.headers, got!.body)).toBe(true);
    expect(await verifyStandardWebhook(wh.secret, got!.headers, got!.body)).toBe(true);
  });

  test("inbox.expiring and inbox.expired reach subscribed webhooks", async () => {
    const inbox = await createInbox(inst);
    await registerWebhook(inst, { url: rx.url("/expiry"), inbox_id: inbox.id, event_types: ["inbox.expiring", "inbox.expired"] });
    await Bun.sleep(1000);
    const p = await json(inst.api(`/v1/inboxes/${inbox.id}`, { method: "PATCH", json: { ttl_seconds: 4 } }));
    expect(p.status).toBe(200);
    await rx.waitFor((g) => g.filter((x) => x.path === "/expiry").length >= 2, 10_000);
    const [expiring, expired] = rx.of("/expiry").map((x) => x.json);
    expect(expiring).toMatchObject({ type: "inbox.expiring", data: { inbox_id: inbox.id, address: inbox.address } });
    expect(expired).toMatchObject({ type: "inbox.expired", data: { inbox_id: inbox.id, address: inbox.address } });
  });
});

describe("isolation and tenancy", () => {
  test("another project's webhook is 404", async () => {
    const { addUser, login } = await import("../support/harness");
    await addUser(inst, "other@example.com", "other-password-1", "owner", "other-team");
    const tok = await login(inst, "other@example.com", "other-password-1");
    const projects = await json(inst.api("/v1/projects", { token: tok }));
    const pid = projects.body.data[0].id;
    const mine = await registerWebhook(inst, { url: rx.url("/tenant") });
    for (const [method, path] of [
      ["GET", `/v1/webhooks/${mine.id}`],
      ["PATCH", `/v1/webhooks/${mine.id}`],
      ["DELETE", `/v1/webhooks/${mine.id}`],
      ["GET", `/v1/webhooks/${mine.id}/deliveries`],
      ["POST", `/v1/webhooks/${mine.id}/test`],
    ] as const) {
      const r = await json(inst.api(path, { method, token: tok, project: pid, json: method === "PATCH" ? { enabled: false } : undefined }));
      expect([method, path, r.status]).toEqual([method, path, 404]);
    }
    const theirs = await json(inst.api("/v1/webhooks", { token: tok, project: pid }));
    expect(theirs.body.data).toEqual([]);
  });
});

describe("HTTP origins", () => {
  test("when the project lists origins, a webhook URL must match one (checked at registration and at send)", async () => {
    const { addUser, login } = await import("../support/harness");
    await addUser(inst, "origins@example.com", "origins-password-1", "owner", "origins-team");
    const tok = await login(inst, "origins@example.com", "origins-password-1");
    const pid = (await json(inst.api("/v1/projects", { token: tok }))).body.data[0].id;
    const as = (path: string, method = "GET", body?: unknown) => json(inst.api(path, { method, token: tok, project: pid, json: body }));

    // Empty list: anything goes (private targets included).
    const before = await as("/v1/webhooks", "POST", { url: rx.url("/origins") });
    expect(before.status).toBe(201);

    const o1 = await as("/v1/http-origins", "POST", { origin: "https://*.example.com" });
    expect(o1.status).toBe(201);
    const denied = await as("/v1/webhooks", "POST", { url: rx.url("/origins") });
    expect(denied.status).toBe(422);
    expect(denied.body.code).toBe("origin_not_allowed");
    expect((await as(`/v1/webhooks/${before.body.data.id}`, "PATCH", { url: rx.url("/origins2") })).body.code).toBe("origin_not_allowed");
    // Wildcards cover subdomains (not the apex); scheme and port must match.
    expect((await as("/v1/webhooks", "POST", { url: "https://hooks.example.com/in" })).status).toBe(201);
    expect((await as("/v1/webhooks", "POST", { url: "https://example.com/in" })).body.code).toBe("origin_not_allowed");
    expect((await as("/v1/webhooks", "POST", { url: "http://hooks.example.com/in" })).body.code).toBe("origin_not_allowed");
    expect((await as("/v1/webhooks", "POST", { url: "https://hooks.example.com:8443/in" })).body.code).toBe("origin_not_allowed");

    // The webhook registered before the list existed is refused at send time, and logged as such.
    const t = await as(`/v1/webhooks/${before.body.data.id}/test`, "POST");
    expect(t.status).toBe(200);
    expect(t.body.data.status).toBe("failed");
    expect(t.body.data.attempts[0].error).toStartWith("origin_not_allowed");
    expect(rx.of("/origins")).toHaveLength(0);

    const o2 = await as("/v1/http-origins", "POST", { origin: `http://127.0.0.1:${rx.server.port}` });
    expect(o2.status).toBe(201);
    expect((await as("/v1/webhooks", "POST", { url: rx.url("/origins") })).status).toBe(201);
    const ok = await as(`/v1/webhooks/${before.body.data.id}/test`, "POST");
    expect(ok.body.data.status).toBe("succeeded");
    expect(rx.of("/origins")).toHaveLength(1);
  });
});
