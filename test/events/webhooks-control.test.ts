// Operator controls and endpoint health: redelivery, pause/resume, and the circuit breaker that
// stops trying an endpoint that keeps failing (then probes it on schedule).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, type Instance } from "../support/harness";
import { createInbox, transport } from "../support/mail";
import { Receiver, registerWebhook } from "../support/webhook-receiver";

// Retries far apart, so that only the circuit (and not a delivery's own retry) explains a try.
const ENV = { INBOXD_WEBHOOK_TIMEOUT_MS: "2000", INBOXD_WEBHOOK_BACKOFF_BASE_MS: "60000" };
let inst: Instance;
let rx: Receiver;

beforeAll(async () => {
  rx = await Receiver.start();
  inst = await startInboxd(ENV);
});
afterAll(async () => {
  rx.stop();
  await inst.stop();
  inst.cleanup();
});

async function send(to: string, subjects: string[]) {
  const t = transport(inst);
  try {
    for (const s of subjects) await t.sendMail({ from: "a@example.com", to, subject: s, text: s });
  } finally {
    t.close();
  }
}

async function webhook(id: string) {
  const r = await json(inst.api(`/v1/webhooks/${id}`));
  expect(r.status).toBe(200);
  return r.body.data;
}

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

describe("webhook controls", () => {
  test("a new webhook is healthy; redeliver sends a finished delivery again with the same webhook-id", async () => {
    const inbox = await createInbox(inst);
    const wh = await registerWebhook(inst, { url: rx.url("/again"), inbox_id: inbox.id });
    expect(wh.health).toEqual({
      state: "healthy",
      consecutive_failures: 0,
      circuit_open_until: null,
      last_success_at: null,
      last_failure_at: null,
    });
    rx.on("/again", () => ({ status: 200 }));
    await send(inbox.address, ["again"]);
    const [first] = await rx.waitFor((g) => {
      const a = g.filter((x) => x.path === "/again");
      return a.length >= 1 ? a : null;
    });
    const d = await until("the delivery to succeed", async () => {
      const r = await json(inst.api(`/v1/webhooks/${wh.id}/deliveries`));
      return r.body.data.find((x: any) => x.status === "succeeded");
    });
    expect((await webhook(wh.id)).health.last_success_at).toBeString();

    const r = await json(inst.api(`/v1/webhooks/${wh.id}/deliveries/${d.id}/redeliver`, { method: "POST" }));
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: d.id, status: "pending", max_attempts: 2 });
    const both = await rx.waitFor((g) => {
      const a = g.filter((x) => x.path === "/again");
      return a.length >= 2 ? a : null;
    });
    expect(both[1]!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(both[1]!.body).toBe(first!.body);
    const done = await until("the redelivery to be recorded", async () => {
      const x = await json(inst.api(`/v1/webhooks/${wh.id}/deliveries`));
      const row = x.body.data.find((y: any) => y.id === d.id);
      return row.status === "succeeded" ? row : null;
    });
    expect(done.attempt_count).toBe(2);
    expect(done.attempts.map((a: any) => a.ok)).toEqual([true, true]);
  });

  test("redeliver: 409 while pending, 404 for an unknown delivery or another webhook's", async () => {
    const inbox = await createInbox(inst);
    const wh = await registerWebhook(inst, { url: rx.url("/held"), inbox_id: inbox.id });
    const other = await registerWebhook(inst, { url: rx.url("/held-other") });
    await json(inst.api(`/v1/webhooks/${wh.id}/pause`, { method: "POST" }));
    await send(inbox.address, ["held"]);
    const d = await until("a pending delivery", async () => {
      const r = await json(inst.api(`/v1/webhooks/${wh.id}/deliveries`));
      return r.body.data[0];
    });
    const pending = await json(inst.api(`/v1/webhooks/${wh.id}/deliveries/${d.id}/redeliver`, { method: "POST" }));
    expect(pending.status).toBe(409);
    expect(pending.body.code).toBe("delivery_pending");
    const unknown = await json(inst.api(`/v1/webhooks/${wh.id}/deliveries/01ARZ3NDEKTSV4RRFFQ69G5FAV/redeliver`, { method: "POST" }));
    expect(unknown.status).toBe(404);
    const crossed = await json(inst.api(`/v1/webhooks/${other.id}/deliveries/${d.id}/redeliver`, { method: "POST" }));
    expect(crossed.status).toBe(404);
    const bad = await json(inst.api(`/v1/webhooks/${wh.id}/deliveries/not-an-id/redeliver`, { method: "POST" }));
    expect(bad.status).toBe(422);
    expect(bad.body).toHaveProperty("request_id");
  });

  test("pause queues without sending; resume sends what queued", async () => {
    const inbox = await createInbox(inst);
    const wh = await registerWebhook(inst, { url: rx.url("/paused"), inbox_id: inbox.id });
    rx.on("/paused", () => ({ status: 200 }));
    const p = await json(inst.api(`/v1/webhooks/${wh.id}/pause`, { method: "POST" }));
    expect(p.status).toBe(200);
    expect(p.body.data).toMatchObject({ paused: true, enabled: true, health: { state: "paused" } });
    await send(inbox.address, ["p1", "p2", "p3"]);
    await Bun.sleep(700);
    expect(rx.of("/paused")).toHaveLength(0);
    const queued = await json(inst.api(`/v1/webhooks/${wh.id}/deliveries?status=pending`));
    expect(queued.body.data).toHaveLength(3);

    const r = await json(inst.api(`/v1/webhooks/${wh.id}/resume`, { method: "POST" }));
    expect(r.body.data).toMatchObject({ paused: false, health: { state: "healthy" } });
    const got = await rx.waitFor((g) => {
      const a = g.filter((x) => x.path === "/paused");
      return a.length >= 3 ? a : null;
    });
    expect(new Set(got.map((x) => x.json.data.subject))).toEqual(new Set(["p1", "p2", "p3"]));
    const missing = await json(inst.api("/v1/webhooks/01ARZ3NDEKTSV4RRFFQ69G5FAV/pause", { method: "POST" }));
    expect(missing.status).toBe(404);
  });

  test("an endpoint failing 5 times in a row opens its circuit: nothing more is tried until a probe on schedule succeeds", async () => {
    const inbox = await createInbox(inst);
    const wh = await registerWebhook(inst, { url: rx.url("/broken"), inbox_id: inbox.id });
    let up = false;
    rx.on("/broken", () => (up ? { status: 200 } : { status: 503, body: "down" }));
    const subjects = Array.from({ length: 12 }, (_, i) => `broken ${i}`);
    await send(inbox.address, subjects);
    const open = await until("the circuit to open", async () => {
      const w = await webhook(wh.id);
      return w.health.state === "circuit_open" ? w : null;
    });
    expect(open.health.consecutive_failures).toBeGreaterThanOrEqual(5);
    expect(Date.parse(open.health.circuit_open_until)).toBeGreaterThan(Date.now());
    expect(open.health.last_failure_at).toBeString();
    // While open, nothing is tried (each delivery's own retry is a minute away anyway).
    const tried = rx.of("/broken").length;
    expect(tried).toBeLessThan(subjects.length);
    await Bun.sleep(1000);
    expect(rx.of("/broken")).toHaveLength(tried);

    // The endpoint comes back; the probe at circuit_open_until (5 s) succeeds and the rest follows.
    up = true;
    const got = await rx.waitFor((g) => {
      const ok = new Set(g.filter((x) => x.path === "/broken" && x.at > 0).map((x) => x.json.data.subject));
      return subjects.slice(tried).every((s) => ok.has(s)) ? ok : null;
    }, 20_000);
    expect(got.size).toBeGreaterThanOrEqual(subjects.length - tried);
    const healed = await until("the endpoint to be healthy", async () => {
      const w = await webhook(wh.id);
      return w.health.state === "healthy" ? w : null;
    });
    expect(healed.health).toMatchObject({ consecutive_failures: 0, circuit_open_until: null });
  }, 40_000);
});
