// Drives Debian's Chromium (/usr/bin/chromium) with playwright-core for the web UI tests.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { ADMIN_EMAIL, ADMIN_PASSWORD, ROOT } from "./harness";

export const CHROMIUM = process.env.INBOXD_CHROMIUM ?? "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);
export const SHOTS = join(ROOT, "test-output/screenshots");

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launch(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  const profile = mkdtempSync(join(tmpdir(), "inboxd-chromium-"));
  // launchPersistentContext owns --user-data-dir (a fresh profile per run).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: DESKTOP,
    acceptDownloads: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A new tab of the browser whose page errors show in the test output. */
export async function newPage(browser: Browser): Promise<Page> {
  const page = await browser.context.newPage();
  page.on("pageerror", (e) => console.error("page error:", e.message));
  return page;
}

/** Fills the login form the page shows (the UI asks before any page) as the bootstrap admin. */
export async function logIn(page: Page): Promise<void> {
  await page.waitForSelector("form.login-card");
  await page.fill("input[type=email]", ADMIN_EMAIL);
  await page.fill("input[type=password]", ADMIN_PASSWORD);
  await page.click("button[type=submit]");
}

/** A new tab of the browser, signed in as the bootstrap admin at the UI served at `base`, its top bar shown. */
export async function signedInPage(browser: Browser, base: string): Promise<Page> {
  const page = await newPage(browser);
  await page.goto(`${base}/`);
  await logIn(page);
  await page.waitForSelector("header.topbar");
  return page;
}

/**
 * Waits until the UI has routed to `path` (the hash without '#'). The router runs on hashchange, which the browser
 * fires after the click or page.goto that changed the hash has returned; until then the old page is still shown,
 * and a selector it shares with the new one (a message subject, an empty state) would match the old page.
 */
export async function routed(page: Page, path: string): Promise<void> {
  await page.waitForSelector(`main.view[data-route="${path}"]`, { state: "attached" });
}

/** Clicks the navigation's link to a page (`data-nav` key, path `/key`) and waits until the UI has routed there. */
export async function openNav(page: Page, key: string): Promise<void> {
  await page.click(`nav a[data-nav=${key}]`);
  await routed(page, `/${key}`);
}

/** Opens `#path` of the UI served at `base`, in the page already loaded, and waits until the UI has routed there. */
export async function openRoute(page: Page, base: string, path: string): Promise<void> {
  await page.goto(`${base}/#${path}`);
  await routed(page, path);
}

/** Saves test-output/screenshots/<name>-desktop.png and -phone.png of the page as it stands. */
export async function screenshots(page: Page, name: string, phone = true): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  // Toasts from earlier steps would cover the page.
  await page.evaluate(() => document.querySelector(".toasts")?.remove());
  await page.mouse.move(1, 1);
  await page.setViewportSize(DESKTOP);
  await page.waitForTimeout(150);
  await page.screenshot({ path: join(SHOTS, `${name}-desktop.png`) });
  if (phone) {
    await page.setViewportSize(PHONE);
    await page.waitForTimeout(150);
    await page.screenshot({ path: join(SHOTS, `${name}-phone.png`) });
    await page.setViewportSize(DESKTOP);
  }
}
