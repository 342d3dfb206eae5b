// Webhook retries: after 5xx answers, after timeouts, across a restart; a hanging receiver stalls
// neither ingest nor other receivers. Short timeout and backoff come from the environment.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, type Instance } from "../support/harness";
import { createInbox, transport } from "../support/mail";
import { Receiver, verifyStandardWebhook, registerWebhook } from "../support/webhook-receiver";

const ENV = { INBOXD_WEBHOOK_TIMEOUT_MS: "700", INBOXD_WEBHOOK_BACKOFF_BASE_MS: "150", INBOXD_WEBHOOK_MAX_ATTEMPTS: "4" };
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

async function send(to: string, subject: string) {
  const t = transport(inst);
  try {
    await t.sendMail({ from: "a@example.com", to, subject, text: subject });
  } finally {
    t.close();
  }
}

async function deliveries(webhookId: string) {
  const r = await json(inst.api(`/v1/webhooks/${webhookId}/deliveries`));
  expect(r.status).toBe(200);
  return r.body.data as any[];
}

/** The webhook's deliveries once `settled` holds for them, or as they are after ~2.5 s (the assertions then say what is off). */
async function deliveriesWhen(webhookId: string, settled: (list: any[]) => boolean): Promise<any[]> {
  let list: any[] = [];
  for (let i = 0; i < 50; i++) {
    list = await deliveries(webhookId);
    if (settled(list)) break;
    await Bun.sleep(50);
  }
  return list;
}

describe("retries", () => {
  test("500s are retried with the same webhook-id until a 2xx; every try is logged", async () => {
    const inbox = await createInbox(inst);
    const wh = await registerWebhook(inst, { url: rx.url("/flaky"), inbox_id: inbox.id });
    rx.on("/flaky", (_r, nth) => (nth <= 2 ? { status: 500, body: `fail ${nth}` } : { status: 204 }));
    await send(inbox.address, "flaky");
    const got = await rx.waitFor((g) => {
      const f = g.filter((x) => x.path === "/flaky");
      return f.length >= 3 ? f : null;
    });
    const ids = new Set(got.map((g) => g.headers["webhook-id"]));
    expect(ids.size).toBe(1);
    for (const g of got) expect(await verifyStandardWebhook(wh.secret, g.headers, g.body)).toBe(true);
    // Bodies are identical across tries; the gaps grow (backoff).
    expect(new Set(got.map((g) => g.body)).size).toBe(1);
    expect(got[2]!.at - got[1]!.at).toBeGreaterThan(got[1]!.at - got[0]!.at);

    const [d] = await deliveriesWhen(wh.id, (l) => l[0]?.status === "succeeded");
    expect(d).toMatchObject({ status: "succeeded", attempt_count: 3, event_type: "message.received", last_status_code: 204 });
    expect(d.id).toBe(got[0]!.headers["webhook-id"]);
    expect(d.attempts.map((a: any) => [a.attempt, a.status_code, a.ok])).toEqual([
      [1, 500, false],
      [2, 500, false],
      [3, 204, true],
    ]);
    expect(d.attempts[0].response_excerpt).toBe("fail 1");
    expect(d.attempts[0].error).toContain("500");
    expect(d.next_attempt_at).toBeNull();
  });

  test("a failing delivery does not hold back the inbox's next one; after the last try it is failed", async () => {
    const inbox = await createInbox(inst);
    const wh = await registerWebhook(inst, { url: rx.url("/down"), inbox_id: inbox.id });
    rx.on("/down", (r) => (r.json.data.subject === "doomed" ? { status: 502, body: "bad gateway" } : { status: 200 }));
    await send(inbox.address, "doomed");
    await send(inbox.address, "next");
    const got = await rx.waitFor((g) => {
      const d = g.filter((x) => x.path === "/down");
      return d.some((x) => x.json.data.subject === "next") ? d : null;
    });
    // "next" went out while "doomed" was still being retried (its tries wait 75 ms, 300 ms, 1.2 s or more).
    expect(got.filter((x) => x.json.data.subject === "doomed").length).toBeLessThan(4);
    // Four tries of "doomed" in all (INBOXD_WEBHOOK_MAX_ATTEMPTS=4).
    await rx.waitFor((g) => g.filter((x) => x.path === "/down" && x.json.data.subject === "doomed").length >= 4);
    const list = await deliveriesWhen(wh.id, (list) => list.length === 2 && list.every((d) => d.status !== "pending"));
    const [next, doomed] = list;
    expect(doomed).toMatchObject({ status: "failed", attempt_count: 4, max_attempts: 4, next_attempt_at: null, last_status_code: 502 });
    expect(doomed.attempts.map((a: any) => a.status_code)).toEqual([502, 502, 502, 502]);
    expect(Date.parse(doomed.completed_at)).toBeGreaterThan(0);
    expect(next).toMatchObject({ status: "succeeded", attempt_count: 1 });
    const failed = await json(inst.api(`/v1/webhooks/${wh.id}/deliveries?status=failed`));
    expect(failed.body.data.map((d: any) => d.id)).toEqual([doomed.id]);
  });

  test("a receiver that does not answer in time is retried; it stalls neither ingest nor other receivers", async () => {
    const inbox = await createInbox(inst);
    const slow = await registerWebhook(inst, { url: rx.url("/hang"), inbox_id: inbox.id });
    await registerWebhook(inst, { url: rx.url("/fast"), inbox_id: inbox.id });
    rx.on("/hang", (_r, nth) => (nth === 1 ? { status: 200, hang: true } : { status: 200 }));
    await send(inbox.address, "first");
    await rx.waitFor((g) => g.some((x) => x.path === "/hang"));
    // While the first try hangs: another receiver gets it, and more mail is accepted.
    await rx.waitFor((g) => g.some((x) => x.path === "/fast" && x.json.data.subject === "first"));
    await send(inbox.address, "second");
    await rx.waitFor((g) => g.some((x) => x.path === "/fast" && x.json.data.subject === "second"));
    const fastDone = Date.now();
    // "second" reached the hanging receiver too, without waiting for the hung "first".
    await rx.waitFor((g) => g.some((x) => x.path === "/hang" && x.json.data.subject === "second"));
    // The hung try times out and is retried.
    const hang = await rx.waitFor((g) => {
      const h = g.filter((x) => x.path === "/hang");
      return h.length >= 3 ? h : null;
    });
    expect(hang.map((h) => h.json.data.subject)).toEqual(["first", "second", "first"]);
    expect(hang[2]!.at).toBeGreaterThan(fastDone);
    const list = await deliveriesWhen(slow.id, (list) => list.every((d) => d.status === "succeeded"));
    const first = list.find((d) => d.attempt_count === 2)!;
    expect(first.attempts[0].ok).toBe(false);
    expect(first.attempts[0].status_code).toBeNull();
    expect(first.attempts[0].error).toContain("timeout");
    expect(first.attempts[1]).toMatchObject({ ok: true, status_code: 200 });
  });

  test("a delivery in flight when the server dies is made again after the restart (same webhook-id)", async () => {
    const inbox = await createInbox(inst);
    const wh = await registerWebhook(inst, { url: rx.url("/restart"), inbox_id: inbox.id });
    let up = false;
    // The first try never gets an answer: the server is killed while it waits.
    rx.on("/restart", () => (up ? { status: 200 } : { status: 200, hang: true }));
    await send(inbox.address, "survives");
    await rx.waitFor((g) => g.some((x) => x.path === "/restart"));
    await inst.kill();
    up = true;
    const before = rx.of("/restart").length;
    inst = await inst.restart();
    const ok = await rx.waitFor(
      (g) =>
        g
          .filter((x) => x.path === "/restart")
          .slice(before)
          .find((x) => x) ?? null,
      20_000,
    );
    expect(ok.json.data.subject).toBe("survives");
    expect(ok.headers["webhook-id"]).toBe(rx.of("/restart")[0]!.headers["webhook-id"]);
    expect(await verifyStandardWebhook(wh.secret, ok.headers, ok.body)).toBe(true);
    const [d] = await deliveriesWhen(wh.id, (l) => l[0]?.status === "succeeded");
    expect(d.status).toBe("succeeded");
    // The try cut short by the crash left no record; the one after the restart did.
    expect(d.attempts.map((a: any) => [a.attempt, a.status_code, a.ok])).toEqual([[1, 200, true]]);
  });

  test("a delivery in flight at a shutdown (SIGTERM) is cut short without a record or an error, and made again after the restart", async () => {
    const inbox = await createInbox(inst);
    const wh = await registerWebhook(inst, { url: rx.url("/shutdown"), inbox_id: inbox.id });
    let up = false;
    rx.on("/shutdown", () => (up ? { status: 200 } : { status: 200, hang: true }));
    await send(inbox.address, "outlives the shutdown");
    await rx.waitFor((g) => g.some((x) => x.path === "/shutdown"));
    await inst.stop();
    up = true;
    const log = inst.output();
    const cut = rx.cutShort.map((x) => x.path);
    const before = rx.of("/shutdown").length;
    // Up again before any assertion: the file's later tests use the instance.
    inst = await inst.restart();
    expect(log).toContain("stopped");
    expect(log.split("\n").filter((l) => / (ERROR|FATAL) /.test(l))).toEqual([]);
    expect(cut).toContain("/shutdown");
    const again = await rx.waitFor((g) => g.filter((x) => x.path === "/shutdown").slice(before)[0] ?? null, 20_000);
    expect(again.json.data.subject).toBe("outlives the shutdown");
    expect(again.headers["webhook-id"]).toBe(rx.of("/shutdown")[0]!.headers["webhook-id"]);
    const [d] = await deliveriesWhen(wh.id, (l) => l[0]?.status === "succeeded");
    // The try cut short left no record (no failure counted against the endpoint); the one after the restart did.
    expect(d.attempts.map((a: any) => [a.attempt, a.status_code, a.ok])).toEqual([[1, 200, true]]);
  });

  test("kill -9 while 40 deliveries are in flight or queued: after the restart every event arrives at least once", async () => {
    const inbox = await createInbox(inst);
    const wh = await registerWebhook(inst, { url: rx.url("/bulk-crash"), inbox_id: inbox.id });
    let up = false;
    rx.on("/bulk-crash", () => (up ? { status: 200 } : { status: 200, hang: true }));
    const subjects = Array.from({ length: 40 }, (_, i) => `crash ${i}`);
    const t = transport(inst);
    try {
      for (const s of subjects) await t.sendMail({ from: "a@example.com", to: inbox.address, subject: s, text: s });
    } finally {
      t.close();
    }
    // Some tries are hanging in flight (8 per endpoint), the rest are queued.
    await rx.waitFor((g) => g.filter((x) => x.path === "/bulk-crash").length >= 8);
    await inst.kill();
    up = true;
    inst = await inst.restart();
    const got = await rx.waitFor((g) => {
      const seen = new Set(g.filter((x) => x.path === "/bulk-crash" && x.json).map((x) => x.json.data.subject));
      return subjects.every((s) => seen.has(s)) ? seen : null;
    }, 30_000);
    expect(got.size).toBe(subjects.length);
    for (const g of rx.of("/bulk-crash").slice(-5)) expect(await verifyStandardWebhook(wh.secret, g.headers, g.body)).toBe(true);
  }, 60_000);
});

describe("slots shared fairly", () => {
  test("receivers that hang do not hold every slot: a healthy webhook is served while their tries still hang", async () => {
    // 8 slots in all and 8 per webhook: one hanging receiver alone could take them all until its timeout.
    const fair = await startInboxd({
      INBOXD_WEBHOOK_CONCURRENCY: "8",
      INBOXD_WEBHOOK_ENDPOINT_CONCURRENCY: "8",
      INBOXD_WEBHOOK_TIMEOUT_MS: "60000",
    });
    const hung = await Receiver.start();
    const healthy = await Receiver.start();
    try {
      const inbox = await createInbox(fair);
      for (const n of [1, 2, 3]) {
        await registerWebhook(fair, { url: hung.url(`/hang${n}`), inbox_id: inbox.id });
        hung.on(`/hang${n}`, () => ({ status: 200, hang: true }));
      }
      await registerWebhook(fair, { url: healthy.url("/ok"), inbox_id: inbox.id });
      const t = transport(fair);
      try {
        for (let i = 0; i < 12; i++) await t.sendMail({ from: "a@example.com", to: inbox.address, subject: `m${i}`, text: "x" });
      } finally {
        t.close();
      }
      const got = await healthy.waitFor((g) => (g.length >= 12 ? g : null), 30_000);
      expect(new Set(got.map((x) => x.json.data.subject)).size).toBe(12);
      // ...all while the hanging tries were still open: none had been given up on (their timeout is a minute).
      expect(hung.got.length).toBeGreaterThan(0);
      expect(hung.cutShort).toEqual([]);
    } finally {
      hung.stop();
      healthy.stop();
      await fair.stop();
      fair.cleanup();
    }
  }, 60_000);
});
