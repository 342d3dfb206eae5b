// Layout of the web UI at 1280, 1000 and 390 px wide, in a real Chromium against a real inboxd: the message pane's
// empty state on the first load of #/inboxes, the link check's table (no word broken mid-word, codes as the API
// gives them), the message tabs (all of them on screen) and the top bar (every item on screen, the active one
// included, down to a phone). Screenshots, light and dark, go to test-output/screenshots/layout-*.png.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { startInboxd, type Instance } from "../support/harness";
import { createInbox, sendMail } from "../support/mail";
import { SHOTS, hasChromium, launch, type Browser, newPage, logIn, openRoute, routed } from "../support/browser";
import { needs } from "../support/components";

const chromium = needs("chromium", hasChromium, "apt-get install chromium");

const WIDTHS = [
  { name: "1280", width: 1280, height: 800 },
  { name: "1000", width: 1000, height: 800 },
  { name: "390", width: 390, height: 844 },
];

const HTML = `<!doctype html><html><body><h1>Your order</h1>
<p><a href="http://localhost:9/order/42">See your order</a> · <a href="http://127.0.0.1:9/help">Help</a></p>
<p><img src="http://localhost:9/logo.png" width="40" height="40" alt="logo"></p></body></html>`;

describe.skipIf(!chromium)("layout at 1280, 1000 and 390 px in Chromium", () => {
  let inst: Instance;
  let browser: Browser;
  let page: Page;
  let inbox: { id: string; address: string };
  let messageId = "";

  /** test-output/screenshots/layout-<name>-<width>-<light|dark>.png at every width, in both colour schemes. */
  async function shots(name: string, check?: (width: number) => Promise<void>): Promise<void> {
    mkdirSync(SHOTS, { recursive: true });
    await page.evaluate(() => document.querySelector(".toasts")?.remove());
    await page.mouse.move(1, 1);
    for (const w of WIDTHS) {
      await page.setViewportSize({ width: w.width, height: w.height });
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.waitForTimeout(120);
        await page.screenshot({ path: join(SHOTS, `layout-${name}-${w.name}-${scheme}.png`) });
      }
      await check?.(w.width);
    }
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  beforeAll(async () => {
    inst = await startInboxd();
    inbox = await createInbox(inst, { name: "Layout", ttl_seconds: 3600 });
    messageId = await sendMail(inst, {
      from: "Shop <orders@shop.example>",
      to: inbox.address,
      subject: "Your order with three attachments",
      text: "See your order: http://localhost:9/order/42",
      html: HTML,
      attachments: [
        { filename: "invoice.pdf", content: "%PDF-1.4 not really", contentType: "application/pdf" },
        { filename: "terms.txt", content: "terms", contentType: "text/plain" },
        { filename: "receipt.txt", content: "receipt", contentType: "text/plain" },
      ],
    });
    browser = await launch();
    page = await newPage(browser);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await inst?.stop();
    inst?.cleanup();
  });

  const middleEmpty = () => page.locator(".pane-messages .empty", { hasText: "Select an inbox" });

  test("the first load of #/inboxes shows the message pane's 'Select an inbox', after sign-in and on a reload", async () => {
    await page.goto(`${inst.url}/#/inboxes`);
    await logIn(page);
    await routed(page, "/inboxes");
    await middleEmpty().waitFor({ timeout: 5000 });
    await page.reload();
    await routed(page, "/inboxes");
    await middleEmpty().waitFor({ timeout: 5000 });
    // A bare address routes to #/inboxes too.
    await page.goto(`${inst.url}/`);
    await page.reload();
    await routed(page, "/inboxes");
    await middleEmpty().waitFor({ timeout: 5000 });
    // Back from an inbox, the same.
    await openRoute(page, inst.url, `/inboxes/${inbox.id}`);
    await page.waitForSelector("[data-test=inbox-address]");
    await openRoute(page, inst.url, "/inboxes");
    await middleEmpty().waitFor({ timeout: 5000 });
    await page.waitForSelector(".inbox-row");
    await shots("inboxes");
  });

  test("the message tabs all show, on one line or wrapped, at every width", async () => {
    await openRoute(page, inst.url, `/inboxes/${inbox.id}/${messageId}`);
    await page.waitForSelector("[data-test=message-subject]");
    const labels = await page.$$eval(".tabs .tab", (ts) => ts.map((t) => t.textContent));
    expect(labels).toContain("HTML");
    expect(labels.some((l) => l?.startsWith("Links ("))).toBe(true);
    expect(labels).toContain("Attachments (3)");
    await shots("tabs", async (width) => {
      const fit = await page.$eval(".tabs", (bar) => {
        const box = bar.getBoundingClientRect();
        return {
          overflow: bar.scrollWidth - bar.clientWidth,
          out: [...bar.querySelectorAll<HTMLElement>(".tab")]
            .filter((t) => {
              const r = t.getBoundingClientRect();
              return r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.right > window.innerWidth;
            })
            .map((t) => t.textContent),
        };
      });
      expect({ width, ...fit }).toEqual({ width, overflow: 0, out: [] });
    });
  });

  test("the link check's table: kinds and codes whole, as the API gives them, at every width", async () => {
    await page.click("button.tab[data-tab=checks]");
    await page.click("[data-check=links] [data-test=check-links]");
    // The server's refusal, if any, fails the test with its reason rather than a timeout.
    await page.waitForSelector("[data-check=links] :is([data-test=links-summary], [data-test=check-error])");
    expect(await page.locator("[data-check=links] [data-test=check-error]").allTextContents()).toEqual([]);
    const rows = page.locator("[data-test=link-row]");
    expect(await rows.count()).toBe(3);
    await page.locator("[data-check=links]").scrollIntoViewIfNeeded();
    await shots("links", async (width) => {
      await page.locator("[data-check=links]").scrollIntoViewIfNeeded();
      const cells = await page.$$eval("[data-test=link-row]", (trs) =>
        trs.map((tr) => {
          /** How many lines a cell's words take: one for a kind or a code. */
          const lines = (el: Element | null) => {
            if (!el) return -1;
            const range = document.createRange();
            range.selectNodeContents(el);
            return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
          };
          const pill = tr.querySelector(".pill")!;
          const kind = tr.querySelector("td:nth-child(2)");
          return {
            code: pill.textContent,
            shown: getComputedStyle(pill).textTransform,
            codeLines: lines(pill),
            kind: kind?.textContent,
            kindLines: lines(kind),
          };
        }),
      );
      for (const c of cells) {
        expect({ width, ...c }).toEqual({ width, code: "private_address", shown: "none", codeLines: 1, kind: c.kind, kindLines: 1 });
        expect(["link", "image"]).toContain(c.kind!);
      }
    });
  });

  test("the navigation shows every item, the active one included, with no sideways scroll, down to a phone", async () => {
    for (const key of ["keys", "webhooks", "inboxes"]) {
      await openRoute(page, inst.url, `/${key}`);
      // 900 and 800: between the desktop bar and the phone's, where the bar used to push the log-out button off.
      for (const width of [1280, 1000, 900, 800, 390]) {
        await page.setViewportSize({ width, height: 800 });
        await page.waitForTimeout(100);
        const bar = await page.$eval("header.topbar", (top) => {
          const n = top.querySelector("nav.nav")!;
          const onScreen = (e: Element) => {
            const r = e.getBoundingClientRect();
            return r.left >= 0 && r.right <= window.innerWidth + 0.5 && r.width > 0;
          };
          return {
            overflow: n.scrollWidth - n.clientWidth + (top.scrollWidth - top.clientWidth),
            page: document.documentElement.scrollWidth - window.innerWidth,
            active: n.querySelector("a.active")?.getAttribute("data-nav"),
            off: [...top.querySelectorAll("a, button, select")]
              .filter((e) => !onScreen(e))
              .map((e) => e.getAttribute("data-nav") ?? e.getAttribute("aria-label") ?? e.tagName),
          };
        });
        expect({ key, width, ...bar }).toEqual({ key, width, overflow: 0, page: 0, active: key, off: [] });
      }
    }
    await openRoute(page, inst.url, "/keys");
    await shots("keys");
  });
});
