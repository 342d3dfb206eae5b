// The start-up sign-in link in a real Chromium: opening http://HOST:PORT/#signin=TOKEN signs the owner
// in with no form, the token leaves the address bar at once, and the same link a second time shows
// the log-in form with the reason.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { ADMIN_EMAIL, startInboxd, type Instance } from "../support/harness";
import { hasChromium, launch, type Browser, newPage } from "../support/browser";
import { needs } from "../support/components";

const chromium = needs("chromium", hasChromium, "apt-get install chromium");

describe.skipIf(!chromium)("one-click sign-in link (Chromium)", () => {
  let inst: Instance;
  let browser: Browser;
  let link: string;

  beforeAll(async () => {
    inst = await startInboxd();
    browser = await launch();
    link = /^signin: (\S+)/m.exec(inst.output())![1]!;
  });

  afterAll(async () => {
    await browser?.close();
    await inst?.stop();
    inst?.cleanup();
  });

  test("the link signs the owner in and is removed from the URL; a second use shows the log-in form", async () => {
    const page: Page = await newPage(browser);
    await page.goto(link);
    await page.waitForSelector(".user-email");
    expect(await page.textContent(".user-email")).toBe(ADMIN_EMAIL);
    expect(page.url()).not.toContain("signin");
    await page.waitForSelector("[data-nav=inboxes].active");

    // A browser without a session opens the same link again.
    await page.evaluate(() => localStorage.clear());
    await page.goto("about:blank");
    await page.goto(link);
    await page.waitForSelector("form.login-card");
    await page.waitForFunction(() => document.querySelector(".form-error")?.textContent !== "");
    expect(await page.textContent(".form-error")).toContain("already used or has expired");
    expect(page.url()).not.toContain("signin");
  }, 60_000);
});
