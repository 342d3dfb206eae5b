// A modal dialog owns the keyboard: while one is open, the page's shortcuts (j/k, Enter, Delete, Escape, u, /)
// do nothing to the page behind it, Escape closes the dialog (the browser's own rule), and a submit the server
// refuses puts the focus back on a field of the dialog. Every dialog goes through dom.ts dialog(): the new inbox,
// confirmation, IMAP/POP3, fault injection, API key and webhook dialogs are each checked. Real Chromium, real inboxd.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { json, startInboxd, type Instance } from "../support/harness";
import { createInbox, sendMail } from "../support/mail";
import { hasChromium, launch, type Browser, openRoute, routed, screenshots, signedInPage } from "../support/browser";
import { needs } from "../support/components";

const chromium = needs("chromium", hasChromium, "apt-get install chromium");

describe.skipIf(!chromium)("modal dialogs and keyboard shortcuts in Chromium", () => {
  let inst: Instance;
  let browser: Browser;
  let page: Page;
  let catchAll: { id: string };
  let taken: { id: string; address: string };

  const dialog = () => page.locator("dialog.modal");
  const messageCount = async () => (await json(inst.api(`/v1/inboxes/${catchAll.id}/messages`))).body.data.length;
  /** What the page behind shows as selected, and where it is. */
  const pageState = () =>
    page.evaluate(() => ({
      hash: location.hash,
      route: document.querySelector<HTMLElement>("main.view")?.dataset.route,
      selected: [...document.querySelectorAll<HTMLElement>("main.view .selected")].map((e) => e.dataset.id ?? e.textContent),
      focus: document.activeElement?.tagName,
    }));

  /**
   * With the focus dropped to <body> (where it lands when a focused button is disabled or removed), every page
   * shortcut leaves the page as it was and the dialog open; Escape then closes the dialog, not the page's level.
   */
  async function keysStayInTheDialog(): Promise<void> {
    await dialog().waitFor();
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    const before = await pageState();
    expect(before.focus).toBe("BODY");
    // Earlier toasts go, so that any toast is one these keys caused (a deletion, a refusal).
    await page.evaluate(() => document.querySelector(".toasts")?.remove());
    for (const key of ["j", "k", "ArrowDown", "Enter", "o", "Delete", "#", "u", "/"]) await page.keyboard.press(key);
    await page.waitForTimeout(300);
    expect(await page.locator("dialog.modal[open]").count()).toBe(1);
    expect(await page.locator(".toast").count()).toBe(0);
    const after = await pageState();
    expect(after.hash).toBe(before.hash);
    expect(after.route).toBe(before.route);
    expect(after.selected).toEqual(before.selected);
    await page.keyboard.press("Escape");
    await dialog().waitFor({ state: "detached" });
    await page.waitForTimeout(200);
    const closed = await pageState();
    expect(closed.hash).toBe(before.hash);
    expect(closed.route).toBe(before.route);
  }

  beforeAll(async () => {
    inst = await startInboxd();
    taken = await createInbox(inst, { name: "Taken", local_part: "taken", ttl_seconds: 3600 });
    const inboxes = (await json(inst.api("/v1/inboxes?limit=100"))).body.data as { id: string; type: string }[];
    catchAll = inboxes.find((i) => i.type === "catch_all")!;
    expect(catchAll).toBeDefined();
    for (const n of [1, 2])
      await sendMail(inst, { from: "app@example.com", to: `nobody-${n}@example.com`, subject: `Caught ${n}`, text: "x" });
    expect(await messageCount()).toBe(2);
    browser = await launch();
    page = await signedInPage(browser, inst.url);
  }, 60_000);

  // A test that failed with its dialog open must not leave it over the next one's page.
  afterEach(async () => {
    await page?.evaluate(() => {
      for (const d of document.querySelectorAll("dialog[open]")) (d as HTMLDialogElement).close();
    });
  });

  afterAll(async () => {
    await browser?.close();
    await inst?.stop();
    inst?.cleanup();
  });

  test("a refused create puts the focus on the field in error; Delete and Escape behind the dialog leave the mail", async () => {
    await openRoute(page, inst.url, `/inboxes/${catchAll.id}`);
    await page.waitForSelector(".msg-row");
    await page.keyboard.press("j");
    await page.waitForSelector(".msg-row.selected");
    await page.click("[data-test=new-inbox]");
    await dialog().waitFor();
    await page.fill("dialog input[name=local_part]", "taken");
    await page.click("dialog button[type=submit]");
    await page.waitForSelector("[data-test=dialog-error]:has-text('already taken')");
    // Not <body>: the focus is back in the dialog, on the address it refused, ready to be corrected.
    await page.waitForFunction(() => document.activeElement?.getAttribute("name") === "local_part");
    expect(await page.getAttribute("dialog input[name=local_part]", "aria-invalid")).toBe("true");
    // A checkbox row is a plain row, not drawn as a Checks tab section (the two shared the class "check").
    expect(await page.$eval("dialog label.check", (l) => getComputedStyle(l).borderTopStyle)).toBe("none");
    await screenshots(page, "dialog-refused-create");
    // Delete with the focus where the QA report had it (on <body>, the submit button having been disabled).
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press("Delete");
    await page.waitForTimeout(300);
    expect(await page.locator(".toast", { hasText: "Message deleted" }).count()).toBe(0);
    expect(await messageCount()).toBe(2);
    expect(await page.locator("dialog.modal[open]").count()).toBe(1);
    // Escape closes the dialog; the page behind stays on the inbox.
    await page.keyboard.press("Escape");
    await dialog().waitFor({ state: "detached" });
    await page.waitForTimeout(200);
    expect(await page.evaluate(() => location.hash)).toBe(`#/inboxes/${catchAll.id}`);
    expect(await page.locator(".msg-row.selected").count()).toBe(1);
    // With no dialog, the page's keys work again (the focus went back to the New inbox button, which keeps Delete).
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press("Delete");
    await page.waitForSelector(".toast:has-text('Message deleted')");
    expect(await messageCount()).toBe(1);
  });

  test("the new inbox dialog, with its submit pending, keeps the page's keys from the page", async () => {
    // The POST is held: the submit button is disabled and the focus has nowhere else to go.
    const held = Promise.withResolvers<void>();
    const isCreate = (u: URL) => u.pathname === "/v1/inboxes";
    await page.route(isCreate, async (route) => {
      if (route.request().method() === "POST") await held.promise;
      await route.continue();
    });
    try {
      await page.keyboard.press("j");
      await page.click("[data-test=new-inbox]");
      await dialog().waitFor();
      await page.fill("dialog input[name=local_part]", "taken");
      await page.click("dialog button[type=submit]");
      await page.waitForSelector("dialog button[type=submit]:disabled");
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.keyboard.press("Delete");
      await page.waitForTimeout(300);
      expect(await messageCount()).toBe(1);
      held.resolve();
      await page.waitForSelector("[data-test=dialog-error]:has-text('already taken')");
      await page.waitForFunction(() => document.activeElement?.getAttribute("name") === "local_part");
      // Typing a new value clears the field's error mark.
      await page.fill("dialog input[name=local_part]", "taken-2");
      expect(await page.getAttribute("dialog input[name=local_part]", "aria-invalid")).toBeNull();
      await page.click("dialog button.btn:has-text('Cancel')");
      await dialog().waitFor({ state: "detached" });
    } finally {
      held.resolve();
      await page.unroute(isCreate);
    }
  });

  test("confirmation dialog (delete inbox): the page's keys do nothing behind it", async () => {
    await openRoute(page, inst.url, "/inboxes");
    const row = page.locator(`.inbox-row[data-id="${taken.id}"]`);
    await row.waitFor();
    await page.keyboard.press("j");
    await page.waitForSelector(".inbox-row.selected");
    await row.locator("[data-test=delete-inbox]").click();
    await keysStayInTheDialog();
    expect((await inst.api(`/v1/inboxes/${taken.id}`)).status).toBe(200);
  });

  test("IMAP/POP3 and fault injection dialogs: the page's keys do nothing behind them", async () => {
    await openRoute(page, inst.url, `/inboxes/${taken.id}`);
    await page.waitForSelector("[data-test=inbox-address]");
    await page.click("[data-test=credentials]");
    await keysStayInTheDialog();
    await page.click("[data-test=chaos]");
    await keysStayInTheDialog();
    expect((await json(inst.api(`/v1/inboxes/${taken.id}/chaos`))).body.data.rules).toEqual([]);
  });

  test("API key and webhook dialogs: the page's keys do nothing behind them", async () => {
    await openRoute(page, inst.url, "/keys");
    await page.click("[data-test=new-key]");
    await keysStayInTheDialog();
    await openRoute(page, inst.url, "/webhooks");
    await page.click("[data-test=new-webhook]");
    await keysStayInTheDialog();
    await routed(page, "/webhooks");
  });
});
