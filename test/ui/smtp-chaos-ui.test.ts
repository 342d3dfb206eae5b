// The "Connection faults" dialog (the SMTP listeners' connect rules, docs/chaos.md) in a real
// Chromium against a real inboxd: the instance's operator sees the button, adds a rule and saves it
// (the server has it and a new SMTP connection is refused), and clears it; a member of the
// bootstrap team, who may not change it, does not see the button. Screenshots go to test-output/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import type { Page } from "playwright-core";
import { addUser, json, startInboxd, type Instance } from "../support/harness";
import { hasChromium, launch, screenshots, type Browser, newPage, logIn } from "../support/browser";
import { needs } from "../support/components";

const chromium = needs("chromium", hasChromium, "apt-get install chromium");

describe.skipIf(!chromium)("connection faults dialog in Chromium", () => {
  let inst: Instance;
  let browser: Browser;
  let page: Page;

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

  const rules = async () => (await json(inst.api("/v1/smtp/chaos"))).body.data.rules;
  const button = () => page.locator("[data-test=smtp-chaos]");
  const dialog = () => page.locator("dialog.modal");
  const greeting = async () => {
    const socket = connect({ port: inst.ports.smtp!, host: "127.0.0.1" });
    const line = await new Promise<string>((resolve) => socket.once("data", (d) => resolve(String(d))));
    socket.destroy();
    return line;
  };

  test("the operator sees the button; add a 421 rule and save: the server has it and SMTP obeys", async () => {
    await page.goto(`${inst.url}/#/inboxes`);
    await logIn(page);
    await page.waitForSelector("[data-test=smtp-chaos][aria-pressed=false]");
    await button().click();
    await dialog().waitFor();
    expect(await dialog().locator("[data-test=chaos-empty]").isVisible()).toBe(true);
    await dialog().locator("[data-test=chaos-add]").click();
    const row = dialog().locator("[data-test=chaos-rule]");
    expect(await row.count()).toBe(1);
    // A new rule starts as a slow greeting: no message field.
    expect(await row.locator("select[name=code]").inputValue()).toBe("");
    expect(await row.locator("input[name=message]").isVisible()).toBe(false);
    await row.locator("select[name=code]").selectOption("421");
    await row.locator("input[name=delay_ms]").fill("0");
    await row.locator("input[name=message]").fill("closed from the UI");
    await screenshots(page, "smtp-chaos-dialog", false);
    const saved = page.waitForResponse((r) => r.url().endsWith("/v1/smtp/chaos") && r.request().method() === "PUT");
    await dialog().locator("button[type=submit]").click();
    expect((await saved).status()).toBe(200);
    await page.waitForSelector("[data-test=smtp-chaos][aria-pressed=true]");
    expect(await button().getAttribute("title")).toStartWith("Connection faults on: 1 rule");
    expect(await rules()).toEqual([
      { stage: "connect", code: 421, message: "closed from the UI", rate: 1, delay_ms: 0, reply: "421 4.3.2 closed from the UI" },
    ]);
    expect(await greeting()).toBe("421 4.3.2 closed from the UI\r\n");
  });

  test("the dialog lists the saved rule; Clear all removes it and greetings are back", async () => {
    await button().click();
    await dialog().waitFor();
    const row = dialog().locator("[data-test=chaos-rule]");
    expect(await row.count()).toBe(1);
    expect(await row.locator("select[name=code]").inputValue()).toBe("421");
    expect(await row.locator("input[name=message]").inputValue()).toBe("closed from the UI");
    await dialog().locator("[data-test=chaos-clear]").click();
    await dialog().waitFor({ state: "detached" });
    await page.waitForSelector("[data-test=smtp-chaos][aria-pressed=false]");
    expect(await rules()).toEqual([]);
    expect(await greeting()).toStartWith("220 ");
  });

  test("a member of the bootstrap team (not the operator) does not see the button", async () => {
    await addUser(inst, "member@default.test", "member-password-1", "member");
    await page.locator("[data-test=logout]").click();
    await page.waitForSelector("form.login-card");
    await page.fill("input[type=email]", "member@default.test");
    await page.fill("input[type=password]", "member-password-1");
    // The read of the rules is refused (403) for this user; wait for that answer, then look.
    const refused = page.waitForResponse((r) => r.url().endsWith("/v1/smtp/chaos") && r.status() === 403);
    await page.click("button[type=submit]");
    await page.waitForSelector("[data-test=new-inbox]");
    await refused;
    expect(await button().isHidden()).toBe(true);
  });
});
