// The webhooks page in a real Chromium against a real inboxd: a webhook registered through the API
// to a local receiver shows as healthy after mail arrives over SMTP; Pause and Resume act on the
// server; its deliveries show the try and the receiver's answer; Redeliver and Send test reach the
// receiver again; a webhook made with New webhook signs with the secret the page showed once, and
// Delete removes it. Screenshots go to test-output/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { json, startInboxd, type Instance } from "../support/harness";
import { createInbox, transport } from "../support/mail";
import { Receiver, verifyStandardWebhook } from "../support/webhook-receiver";
import { hasChromium, launch, screenshots, type Browser, newPage, logIn, openNav } from "../support/browser";
import { needs } from "../support/components";

const chromium = needs("chromium", hasChromium, "apt-get install chromium");

const PATH = "/ui-hook";
const FAIL = "/ui-broken";

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

describe.skipIf(!chromium)("webhooks page in Chromium", () => {
  let inst: Instance;
  let rx: Receiver;
  let browser: Browser;
  let page: Page;
  let inbox: { id: string; address: string };
  let hookId = "";
  let deliveryId = "";

  beforeAll(async () => {
    rx = await Receiver.start();
    rx.on(PATH, (_r, nth) => ({ status: 200, body: `received #${nth}` }));
    inst = await startInboxd();
    browser = await launch();
    page = await newPage(browser);
  });

  afterAll(async () => {
    await browser?.close();
    rx?.stop();
    await inst?.stop();
    inst?.cleanup();
  });

  const card = () => page.locator(`[data-test=webhook][data-id="${hookId}"]`);
  const hook = async () => {
    const r = await json(inst.api(`/v1/webhooks/${hookId}`));
    expect(r.status).toBe(200);
    return r.body.data;
  };

  test("a webhook registered through the API receives the event of a mail sent over SMTP", async () => {
    inbox = await createInbox(inst, { name: "Webhook target", ttl_seconds: 3600 });
    const created = await json(
      inst.api("/v1/webhooks", {
        method: "POST",
        json: { url: rx.url(PATH), description: "UI test receiver", inbox_id: inbox.id, event_types: ["message.received"] },
      }),
    );
    expect(created.status).toBe(201);
    hookId = created.body.data.id;
    expect(created.body.data.health.state).toBe("healthy");

    const t = transport(inst);
    try {
      await t.sendMail({ from: "sender@example.com", to: inbox.address, subject: "Hook me", text: "hello webhook" });
    } finally {
      t.close();
    }
    const [got] = await rx.waitFor((g) => {
      const a = g.filter((x) => x.path === PATH);
      return a.length >= 1 ? a : null;
    });
    expect(got!.json.type).toBe("message.received");
    expect(got!.json.data.subject).toBe("Hook me");
    const d = await until("the delivery to be recorded as succeeded", async () => {
      const r = await json(inst.api(`/v1/webhooks/${hookId}/deliveries`));
      return r.body.data.find((x: any) => x.status === "succeeded");
    });
    deliveryId = d.id;
    expect(d.attempt_count).toBe(1);
    expect((await hook()).health.last_success_at).toBeString();
  });

  test("log in and open the webhooks page from the navigation: the webhook is listed as healthy", async () => {
    await page.goto(inst.url + "/");
    await logIn(page);
    await page.waitForSelector("header.topbar");
    await openNav(page, "webhooks");
    expect(await page.getAttribute("nav a[data-nav=webhooks]", "class")).toContain("active");
    await card().waitFor();
    expect(page.url()).toEndWith("#/webhooks");
    expect(await card().locator("[data-test=webhook-url]").textContent()).toBe(rx.url(PATH));
    expect(await card().textContent()).toContain("UI test receiver");
    expect(await card().locator("[data-test=event-types]").textContent()).toContain("message.received");
    const pill = card().locator("[data-test=health-state]");
    expect(await pill.textContent()).toBe("healthy");
    expect(await pill.getAttribute("data-state")).toBe("healthy");
    // The success just recorded, not "never"; no failure yet; no failure streak shown.
    expect(await card().locator("[data-test=last-success]").textContent()).toMatch(/^Last success: (just now|\d+ min ago)$/);
    expect(await card().locator("[data-test=last-failure]").textContent()).toBe("Last failure: never");
    expect(await card().locator("[data-test=failures]").count()).toBe(0);
    await screenshots(page, "webhooks");
  });

  test("Pause marks it paused on the page and on the server; Resume undoes it", async () => {
    await card().locator("[data-test=pause]").click();
    await page.waitForSelector(`[data-test=webhook][data-id="${hookId}"] [data-test=health-state][data-state=paused]`);
    expect(await card().locator("[data-test=health-state]").textContent()).toBe("paused");
    const paused = await hook();
    expect(paused.paused).toBe(true);
    expect(paused.health.state).toBe("paused");
    // The button turned into Resume.
    expect(await card().locator("[data-test=pause]").count()).toBe(0);
    await screenshots(page, "webhooks-paused", false);

    await card().locator("[data-test=resume]").click();
    await page.waitForSelector(`[data-test=webhook][data-id="${hookId}"] [data-test=health-state][data-state=healthy]`);
    expect(await card().locator("[data-test=health-state]").textContent()).toBe("healthy");
    const resumed = await hook();
    expect(resumed.paused).toBe(false);
    expect(resumed.health.state).toBe("healthy");
    expect(await card().locator("[data-test=pause]").count()).toBe(1);
  });

  test("the webhook's deliveries show the try and the receiver's answer; Redeliver sends it again", async () => {
    await card().locator("[data-test=deliveries]").click();
    await page.waitForFunction((id) => location.hash === `#/webhooks/${id}`, hookId);
    const row = page.locator(`[data-test=delivery][data-id="${deliveryId}"]`);
    await row.waitFor();
    expect(await row.getAttribute("data-status")).toBe("succeeded");
    expect(await row.locator("[data-test=delivery-status]").textContent()).toBe("succeeded");
    expect(await row.locator("h3").textContent()).toBe("message.received");
    expect(await row.locator("[data-test=attempts]").textContent()).toMatch(/^Tries: 1 of \d+$/);
    expect(await row.locator("[data-test=last-status]").textContent()).toBe("Last status: 200");
    expect(await row.locator("[data-test=excerpt]").textContent()).toBe("received #1");
    expect(await row.locator("[data-test=last-error]").count()).toBe(0);
    await screenshots(page, "webhook-deliveries");

    const before = rx.of(PATH).length;
    expect(before).toBe(1);
    await row.locator("[data-test=redeliver]").click();
    const both = await rx.waitFor((g) => {
      const a = g.filter((x) => x.path === PATH);
      return a.length >= 2 ? a : null;
    });
    // The same delivery again: same webhook-id and body, so receivers can de-duplicate.
    expect(both[1]!.headers["webhook-id"]).toBe(both[0]!.headers["webhook-id"]);
    expect(both[1]!.body).toBe(both[0]!.body);
    // The page follows by itself: a second try, answered by the receiver's second response.
    await page.waitForFunction(
      (id) => {
        const el = document.querySelector(`[data-test=delivery][data-id="${id}"]`);
        return (
          el?.getAttribute("data-status") === "succeeded" &&
          /^Tries: 2 of /.test(el.querySelector("[data-test=attempts]")?.textContent ?? "") &&
          el.querySelector("[data-test=excerpt]")?.textContent === "received #2"
        );
      },
      deliveryId,
      { timeout: 15_000 },
    );
    const api = (await json(inst.api(`/v1/webhooks/${hookId}/deliveries`))).body.data.find((x: any) => x.id === deliveryId);
    expect(api.attempt_count).toBe(2);
    expect(api.attempts.map((a: any) => a.ok)).toEqual([true, true]);
    // Both tries are listed when unfolded.
    await row.locator("details summary").click();
    expect(await row.locator("ol.timeline li").count()).toBe(2);
  });

  test("Send test posts a sample event to the receiver and lists it with the deliveries", async () => {
    const before = rx.of(PATH).length;
    await card().locator("[data-test=send-test]").click();
    const got = await rx.waitFor((g) => {
      const a = g.filter((x) => x.path === PATH);
      return a.length > before ? a[a.length - 1] : null;
    });
    expect(got!.json.type).toBe("message.received");
    expect(got!.json.data.test).toBe(true);
    await page.waitForSelector(".toast.ok:has-text('Test delivered: HTTP 200')");
    await page.waitForFunction(() => document.querySelectorAll("[data-test=delivery]").length === 2);
    const test = page.locator("[data-test=delivery]", { hasText: "test" }).first();
    expect(await test.getAttribute("data-status")).toBe("succeeded");
    expect(await test.locator("[data-test=excerpt]").textContent()).toBe(`received #${before + 1}`);
    // The filter asks the server: only the succeeded ones (both), none failed.
    await page.click(".seg[data-filter=failed]");
    await page.waitForSelector("[data-test=deliveries] .empty");
    expect(await page.textContent("[data-test=deliveries]")).toContain("No failed deliveries");
    await page.click(".seg[data-filter=succeeded]");
    await page.waitForFunction(() => document.querySelectorAll("[data-test=delivery][data-status=succeeded]").length === 2);
  });

  test("a failing endpoint: failures in a row, then an open circuit with its retry time; Retry now closes it", async () => {
    rx.on(FAIL, (_r, nth) => ({ status: 500, body: `boom ${nth}` }));
    const created = await json(
      inst.api("/v1/webhooks", { method: "POST", json: { url: rx.url(FAIL), description: "Broken receiver", inbox_id: inbox.id } }),
    );
    expect(created.status).toBe(201);
    const failId = created.body.data.id;
    await openNav(page, "webhooks");
    const c = page.locator(`[data-test=webhook][data-id="${failId}"]`);
    await c.waitFor();
    expect(await c.locator("[data-test=health-state]").textContent()).toBe("healthy");

    // Each Send test is one try, answered before the call returns; 5 failures in a row open the circuit.
    for (let i = 1; i <= 5; i++) {
      await c.locator("[data-test=send-test]:not([disabled])").click();
      await rx.waitFor((g) => g.filter((x) => x.path === FAIL).length >= i);
      await page.waitForFunction(
        ([id, n]) =>
          document.querySelector(`[data-test=webhook][data-id="${id}"] [data-test=failures]`)?.textContent ===
          `${n} ${n === 1 ? "failure" : "failures"} in a row`,
        [failId, i] as const,
      );
      if (i === 1) {
        expect(await c.locator("[data-test=health-state]").getAttribute("data-state")).toBe("failing");
        expect(await c.locator("[data-test=last-failure]").textContent()).not.toContain("never");
        expect(await page.locator(".toast.error", { hasText: "Test failed: http_status: 500" }).count()).toBeGreaterThanOrEqual(1);
      }
    }
    const open = (await json(inst.api(`/v1/webhooks/${failId}`))).body.data.health;
    expect(open.state).toBe("circuit_open");
    expect(open.consecutive_failures).toBe(5);
    expect(open.circuit_open_until).toBeString();
    // The circuit stays open for 5 s: the page shows it and when it is tried again.
    await page.waitForSelector(`[data-test=webhook][data-id="${failId}"] [data-test=health-state][data-state=circuit_open]`);
    expect(await c.locator("[data-test=health-state]").textContent()).toBe("circuit open");
    const retryAt = (await c.locator("[data-test=retry-at]").textContent())!;
    expect(retryAt).toStartWith("retrying at ");
    expect(retryAt).toContain(await page.evaluate((ts) => new Date(ts).toLocaleTimeString(), open.circuit_open_until));
    await screenshots(page, "webhooks-circuit-open", false);

    // Retry now (a resume) closes the circuit and clears the streak, on the server too.
    await c.locator("[data-test=retry-now]").click();
    await page.waitForSelector(`[data-test=webhook][data-id="${failId}"] [data-test=health-state][data-state=healthy]`);
    const closed = (await json(inst.api(`/v1/webhooks/${failId}`))).body.data.health;
    expect(closed).toMatchObject({ state: "healthy", consecutive_failures: 0, circuit_open_until: null });
    expect(await c.locator("[data-test=retry-at]").count()).toBe(0);

    // Its deliveries: the failed tries with the error and the receiver's answer, redeliverable.
    await c.locator("[data-test=deliveries]").click();
    await page.waitForFunction(() => document.querySelectorAll("[data-test=delivery][data-status=failed]").length === 5);
    const latest = page.locator("[data-test=delivery]").first();
    expect(await latest.locator("[data-test=last-status]").textContent()).toBe("Last status: 500");
    expect(await latest.locator("[data-test=last-error]").textContent()).toBe("http_status: 500");
    expect(await latest.locator("[data-test=excerpt]").textContent()).toBe("boom 5");
    expect(await latest.locator("[data-test=redeliver]").count()).toBe(1);
    await screenshots(page, "webhook-deliveries-failed", false);
  });
  test("New webhook: the form registers it for one inbox, shows the signing secret once, and that secret verifies its deliveries; Delete removes it", async () => {
    const CREATED = "/ui-created";
    rx.on(CREATED, () => ({ status: 204 }));
    await page.goto(`${inst.url}/#/webhooks`);
    await page.locator("[data-test=new-webhook]").click();
    const form = page.locator("dialog.modal");
    await form.locator("input[name=url]").fill(rx.url(CREATED));
    await form.locator("input[name=description]").fill("made in the UI");
    // The inbox list fills in while the form is open.
    await form.locator(`select[name=inbox_id] option[value="${inbox.id}"]`).waitFor({ state: "attached" });
    await form.locator("select[name=inbox_id]").selectOption(inbox.id);
    // No event chosen: the form says so and stays open, nothing is created.
    await form.locator("input[value='message.received']").uncheck();
    await form.locator("button[type=submit]").click();
    expect(await form.isVisible()).toBe(true);
    await form.locator("input[value='message.received']").check();
    await form.locator("input[value='inbox.expiring']").check();
    await screenshots(page, "webhook-new", false);
    await form.locator("button[type=submit]").click();

    const secret = (await page.locator("[data-test=secret] code.secret").textContent())!;
    expect(secret).toStartWith("whsec_");
    const all = (await json(inst.api("/v1/webhooks"))).body.data as any[];
    const made = all.filter((w) => w.url === rx.url(CREATED));
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({
      description: "made in the UI",
      inbox_id: inbox.id,
      event_types: ["message.received", "inbox.expiring"],
      enabled: true,
    });
    expect(made[0].secret).toBeUndefined();
    const id = made[0].id as string;
    const c = page.locator(`[data-test=webhook][data-id="${id}"]`);
    await c.waitFor();

    // The secret on the page is the one that signs.
    const t = transport(inst);
    try {
      await t.sendMail({ from: "sender@example.com", to: inbox.address, subject: "Hook from the UI", text: "x" });
    } finally {
      t.close();
    }
    const [got] = await rx.waitFor((g) => {
      const a = g.filter((x) => x.path === CREATED);
      return a.length >= 1 ? a : null;
    });
    expect(got!.json.data.subject).toBe("Hook from the UI");
    expect(await verifyStandardWebhook(secret, got!.headers, got!.body)).toBe(true);
    // Leaving the page and coming back: the secret is not shown again.
    await page.locator("[data-test=secret] button", { hasText: "I have stored it" }).click();
    expect(await page.locator("[data-test=secret]").count()).toBe(0);

    await c.locator("[data-test=delete-webhook]").click();
    await page.locator("dialog.modal button[type=submit]").click();
    await c.waitFor({ state: "detached" });
    expect((await inst.api(`/v1/webhooks/${id}`)).status).toBe(404);
  });
});
