// The "Fault injection" dialog of an inbox in a real Chromium against a real inboxd: it shows the
// rules set through the API, adds and removes rules and saves them (the server has them and SMTP
// obeys), and clears them. Screenshots go to test-output/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { json, startInboxd, type Instance } from "../support/harness";
import { createInbox, SmtpDialog } from "../support/mail";
import { hasChromium, launch, screenshots, type Browser, newPage, logIn } from "../support/browser";
import { needs } from "../support/components";

const chromium = needs("chromium", hasChromium, "apt-get install chromium");

describe.skipIf(!chromium)("fault injection dialog in Chromium", () => {
  let inst: Instance;
  let browser: Browser;
  let page: Page;
  let inbox: { id: string; address: string };

  beforeAll(async () => {
    inst = await startInboxd();
    browser = await launch();
    page = await newPage(browser);
  });

  afterAll(async () => {
    await browser?.close();
    await inst?.stop();
    inst?.cleanup();
  });

  const rules = async () => (await json(inst.api(`/v1/inboxes/${inbox.id}/chaos`))).body.data.rules;
  const button = () => page.locator("[data-test=chaos]");
  const dialog = () => page.locator("dialog.modal");

  test("the inbox head shows that rules set through the API are on; the dialog lists them", async () => {
    inbox = await createInbox(inst, { name: "Chaos target", ttl_seconds: 3600 });
    const put = await json(
      inst.api(`/v1/inboxes/${inbox.id}/chaos`, {
        method: "PUT",
        json: { rules: [{ stage: "data", code: 451, rate: 0.5, delay_ms: 1000 }] },
      }),
    );
    expect(put.status).toBe(200);
    await page.goto(`${inst.url}/#/inboxes/${inbox.id}`);
    await logIn(page);
    await page.waitForSelector("[data-test=inbox-address]");
    await page.waitForSelector("[data-test=chaos][aria-pressed=true]");
    expect(await button().getAttribute("title")).toBe("Fault injection on: 1 rule");

    await button().click();
    await dialog().waitFor();
    const rows = dialog().locator("[data-test=chaos-rule]");
    expect(await rows.count()).toBe(1);
    expect(await rows.nth(0).locator("select[name=stage]").inputValue()).toBe("data");
    expect(await rows.nth(0).locator("input[name=code]").inputValue()).toBe("451");
    expect(await rows.nth(0).locator("input[name=rate]").inputValue()).toBe("0.5");
    expect(await rows.nth(0).locator("input[name=delay_ms]").inputValue()).toBe("1000");
    expect(await rows.nth(0).textContent()).toContain("temporary: the sender retries");
  });

  test("add a rule, remove the old one, save: the server has the new rules and SMTP obeys them", async () => {
    await dialog().locator("[data-test=chaos-add]").click();
    const rows = dialog().locator("[data-test=chaos-rule]");
    expect(await rows.count()).toBe(2);
    const added = rows.nth(1);
    await added.locator("select[name=stage]").selectOption("rcpt");
    await added.locator("input[name=code]").fill("550");
    await added.locator("input[name=message]").fill("mailbox disabled from the UI");
    expect(await added.textContent()).toContain("permanent: the sender bounces");
    await screenshots(page, "chaos-dialog", false);
    await rows.nth(0).locator("[data-test=chaos-remove]").click();
    expect(await rows.count()).toBe(1);
    const saved = page.waitForResponse((r) => r.url().endsWith(`/v1/inboxes/${inbox.id}/chaos`) && r.request().method() === "PUT");
    await dialog().locator("button[type=submit]").click();
    expect((await saved).status()).toBe(200);
    await page.waitForSelector("[data-test=chaos][title='Fault injection on: 1 rule']");
    expect(await rules()).toEqual([
      {
        stage: "rcpt",
        code: 550,
        message: "mailbox disabled from the UI",
        rate: 1,
        delay_ms: 0,
        reply: "550 5.7.1 mailbox disabled from the UI",
      },
    ]);
    const { dialog: smtp } = await SmtpDialog.open(inst.ports.smtp!);
    try {
      await smtp.cmd("EHLO client.test");
      await smtp.cmd("MAIL FROM:<app@example.com>");
      expect(await smtp.cmd(`RCPT TO:<${inbox.address}>`)).toBe("550 5.7.1 mailbox disabled from the UI\r\n");
    } finally {
      smtp.close();
    }
  });

  test("an invalid value is refused by the form before anything is sent", async () => {
    await button().click();
    await dialog().waitFor();
    await dialog().locator("[data-test=chaos-rule] input[name=code]").fill("700");
    await dialog().locator("button[type=submit]").click();
    expect(await dialog().isVisible()).toBe(true);
    expect(
      await dialog()
        .locator("input[name=code]")
        .evaluate((el) => (el as HTMLInputElement).validity.rangeOverflow),
    ).toBe(true);
    await dialog().locator("button.btn", { hasText: "Cancel" }).click();
    await dialog().waitFor({ state: "detached" });
    expect((await rules())[0].code).toBe(550);
  });

  test("Clear all removes every rule: the head shows fault injection off", async () => {
    await button().click();
    await dialog().waitFor();
    await dialog().locator("[data-test=chaos-clear]").click();
    await dialog().waitFor({ state: "detached" });
    await page.waitForSelector("[data-test=chaos][aria-pressed=false]");
    expect(await rules()).toEqual([]);
    await button().click();
    await dialog().waitFor();
    expect(await dialog().locator("[data-test=chaos-empty]").isVisible()).toBe(true);
    expect(await dialog().locator("[data-test=chaos-clear]").isDisabled()).toBe(true);
    await dialog().locator("button.btn", { hasText: "Cancel" }).click();
  });
});
