// The reader's Checks tab in a real Chromium against a real inboxd: an HTML mail sent over SMTP
// shows its email-client support score and a warning for display:flex naming Outlook for Windows,
// and its SPF/DKIM/DMARC results;
// "Check spam" on a server without spamd shows why it is unavailable; a check started before the
// message's read flag was stored keeps its result; a text-only mail says it has no HTML to check. Screenshots go to test-output/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { startInboxd, type Instance } from "../support/harness";
import { createInbox, sendMail } from "../support/mail";
import { hasChromium, launch, screenshots, type Browser, openRoute, signedInPage } from "../support/browser";
import { needs } from "../support/components";

const chromium = needs("chromium", hasChromium, "apt-get install chromium");

const HTML = `<!doctype html><html><head><style>@media (max-width:600px){.col{width:100%!important}}</style></head><body>
<div style="display:flex;position:absolute"><p>Big sale</p></div><svg width="10" height="10"><rect width="10" height="10"/></svg>
</body></html>`;

describe.skipIf(!chromium)("Checks tab in Chromium", () => {
  let inst: Instance;
  let browser: Browser;
  let page: Page;
  let inbox: { id: string; address: string };

  const send = (mail: { subject: string; text?: string; html?: string }) =>
    sendMail(inst, { from: "Shop <news@shop.example>", to: inbox.address, ...mail });

  beforeAll(async () => {
    inst = await startInboxd();
    inbox = await createInbox(inst, { name: "Checks" });
    browser = await launch();
    page = await signedInPage(browser, inst.url);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await inst?.stop();
    inst?.cleanup();
  });

  test("an HTML mail: score, a display:flex warning with Outlook for Windows as 'no', spam unavailable without spamd", async () => {
    const id = await send({ subject: "Big sale", html: HTML });
    await openRoute(page, inst.url, `/inboxes/${inbox.id}/${id}`);
    await page.waitForSelector("[data-test=message-subject]");
    await page.click("button.tab[data-tab=checks]");
    await page.waitForSelector("[data-test=html-score]");
    expect(await page.textContent("[data-test=html-score]")).toMatch(/\d+(\.\d)?% supported/);
    const flex = page.locator('[data-test=html-warning][data-feature="css-display-flex"]');
    expect(await flex.textContent()).toContain("display:flex");
    await flex.locator("summary").click();
    const outlook = flex.locator('[data-client="outlook.windows"]');
    await outlook.waitFor();
    expect(await outlook.textContent()).toContain("Outlook Windows");
    expect(await outlook.locator(".pill").textContent()).toBe("no");
    expect(await page.locator('[data-test=html-warning][data-feature="html-svg"]').count()).toBe(1);

    // shop.example publishes nothing (a reserved name): no verdict, and the SMTP client it came from.
    await page.waitForSelector("[data-test=auth-verdict]", { timeout: 30_000 });
    const verdict = await page.textContent("[data-test=auth-verdict]");
    expect(verdict).toContain("none");
    expect(verdict).toContain("127.0.0.1");
    expect(await page.locator("[data-check=auth] [data-mechanism=DKIM]").textContent()).toContain("not signed");

    await page.click("[data-check=spam] [data-test=check-spam]");
    await page.waitForSelector("[data-test=analysis-unavailable]");
    expect(await page.textContent("[data-test=analysis-unavailable]")).toContain("INBOXD_SPAMD");
    await screenshots(page, "reader-checks");
  }, 60_000);

  test("Check links: a link to a private address is refused by default and shown as broken", async () => {
    const id = await send({ subject: "Links", html: '<p><a href="http://localhost:9/reset">Reset your password</a></p>' });
    await openRoute(page, inst.url, `/inboxes/${inbox.id}/${id}`);
    await page.waitForSelector("[data-test=message-subject]");
    await page.click("button.tab[data-tab=checks]");
    await page.click("[data-check=links] [data-test=check-links]");
    await page.waitForSelector("[data-test=links-summary]");
    expect(await page.textContent("[data-test=links-summary]")).toContain("1 broken");
    const row = page.locator("[data-test=link-row]");
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain("private_address");
    expect(await row.textContent()).toContain("http://localhost:9/reset");
  }, 60_000);

  test("a check started while the read flag of the message just opened is on its way keeps its result", async () => {
    const id = await send({ subject: "Links, read late", html: '<p><a href="http://localhost:9/x">x</a></p>' });
    // The PATCH that marks the message read as it opens is held until the check has answered.
    const held = Promise.withResolvers<void>();
    const flagPath = `/v1/messages/${id}`;
    const flagUrl = (u: URL) => u.pathname === flagPath;
    await page.route(flagUrl, async (route) => {
      if (route.request().method() === "PATCH") await held.promise;
      await route.continue();
    });
    try {
      await openRoute(page, inst.url, `/inboxes/${inbox.id}/${id}`);
      await page.waitForSelector("[data-test=message-subject]");
      await page.click("button.tab[data-tab=checks]");
      await page.click("[data-check=links] [data-test=check-links]");
      await page.waitForSelector("[data-test=links-summary]");
      const flagged = page.waitForResponse((r) => new URL(r.url()).pathname === flagPath && r.request().method() === "PATCH");
      held.resolve();
      expect((await flagged).status()).toBe(200);
      await page.waitForFunction(() => document.querySelector("[data-test=toggle-read]")?.textContent?.includes("Mark unread"));
      // Still the check's result, not the button it started from.
      expect(await page.locator("[data-test=links-summary]").count()).toBe(1);
      expect(await page.textContent("[data-test=links-summary]")).toContain("1 broken");
      expect(await page.getAttribute("button.tab[data-tab=checks]", "aria-selected")).toBe("true");
    } finally {
      held.resolve();
      await page.unroute(flagUrl);
    }
  }, 60_000);

  test("a text-only mail: the HTML section says there is nothing to check", async () => {
    const id = await send({ subject: "Plain", text: "just text" });
    await openRoute(page, inst.url, `/inboxes/${inbox.id}/${id}`);
    await page.waitForSelector("[data-test=message-subject]");
    await page.click("button.tab[data-tab=checks]");
    await page.waitForSelector("[data-test=html-none]");
    expect(await page.textContent("[data-test=html-none]")).toContain("no HTML");
    expect(await page.locator("[data-test=html-warning]").count()).toBe(0);
  }, 60_000);
});
