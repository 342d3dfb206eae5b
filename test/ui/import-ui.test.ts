// The message list of an inbox in a real Chromium against a real inboxd: importing .eml files
// (the "Import .eml" button's file input, and a drop on the list) stores them byte for byte, and the
// search box above the list sends q (a query that does not parse shows the server's reason inline).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { json, startInboxd, type Instance } from "../support/harness";
import { createInbox } from "../support/mail";
import { hasChromium, launch, screenshots, type Browser, newPage, logIn } from "../support/browser";
import { needs } from "../support/components";

const chromium = needs("chromium", hasChromium, "apt-get install chromium");

const PICKED = Buffer.from(
  "From: Picker <picker@example.com>\r\nSubject: Picked from disk 314159\r\nX-8bit: caf\xc3\xa9\r\n\r\nImported through the file input.\nYour verification code is 314159.\nA bare LF line.\n",
  "latin1",
);
const DROPPED = "From: dropper@example.com\r\nSubject: Dropped on the list\r\n\r\nno trailing newline";

describe.skipIf(!chromium)("import .eml and search in the message list (Chromium)", () => {
  let inst: Instance;
  let browser: Browser;
  let page: Page;
  let inbox: { id: string; address: string };

  beforeAll(async () => {
    inst = await startInboxd();
    browser = await launch();
    page = await newPage(browser);
    inbox = await createInbox(inst, { name: "Import target", ttl_seconds: 3600 });
    const seed = await json(
      inst.api(`/v1/inboxes/${inbox.id}/messages`, {
        method: "POST",
        json: { from: "seed@example.com", subject: "Seeded by compose", text: "hi" },
      }),
    );
    expect(seed.status).toBe(201);
  });

  afterAll(async () => {
    await browser?.close();
    await inst?.stop();
    inst?.cleanup();
  });

  const rows = () => page.locator("[data-test=message-row]");
  const subjects = async () => (await rows().locator(".subject").allTextContents()).map((s) => s.trim());
  const messageBySubject = async (subject: string) => {
    const r = await json(inst.api(`/v1/inboxes/${inbox.id}/messages?q=${encodeURIComponent(`subject:"${subject}"`)}`));
    expect(r.body.data.length).toBe(1);
    return r.body.data[0];
  };
  const rawOf = async (id: string) => Buffer.from(await (await inst.api(`/v1/messages/${id}/raw`)).arrayBuffer());

  test("Import .eml: the file input posts message/rfc822; the message opens and its raw is byte-identical", async () => {
    await page.goto(`${inst.url}/#/inboxes/${inbox.id}`);
    await logIn(page);
    await page.waitForSelector("[data-test=message-row]");
    expect(await page.locator("[data-test=import-eml]").getAttribute("aria-label")).toBe("Import .eml");
    await page.setInputFiles("[data-test=import-file]", { name: "picked.eml", mimeType: "message/rfc822", buffer: PICKED });
    await page.waitForFunction(() => document.querySelectorAll("[data-test=message-row]").length === 2);
    expect(await subjects()).toContain("Picked from disk 314159");
    const m = await messageBySubject("Picked from disk");
    await page.waitForFunction((id) => location.hash.endsWith(id), m.id);
    expect((await rawOf(m.id)).equals(PICKED)).toBe(true);
    expect(m.codes).toEqual(["314159"]);
  });

  test("dropping an .eml file on the list imports it", async () => {
    await page.locator("[data-test=message-list]").evaluate((el, text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], "dropped.eml", { type: "message/rfc822" }));
      el.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
      el.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, DROPPED);
    await page.waitForFunction(() => document.querySelectorAll("[data-test=message-row]").length === 3);
    const m = await messageBySubject("Dropped on the list");
    expect((await rawOf(m.id)).toString("utf8")).toBe(DROPPED);
    const ib = (await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data;
    expect(ib.message_count).toBe(3);
  });

  test("the search box sends q; a query that does not parse shows the reason inline; clearing lists everything", async () => {
    const search = page.locator("[data-test=message-search]");
    await search.fill("subject:dropped");
    await page.waitForFunction(() => document.querySelectorAll("[data-test=message-row]").length === 1);
    expect(await subjects()).toEqual(["Dropped on the list"]);
    await search.fill("from:picker has:code");
    await page.waitForFunction(() => document.querySelector("[data-test=message-row] .subject")?.textContent?.includes("Picked"));
    expect(await subjects()).toEqual(["Picked from disk 314159"]);
    await search.fill('subject:"unclosed');
    const err = page.locator("[data-test=search-error]");
    await err.waitFor({ state: "visible" });
    expect(await err.textContent()).toMatch(/q is not a valid search: .+ at position \d+/);
    expect(await search.getAttribute("aria-invalid")).toBe("true");
    expect(await rows().count()).toBe(0);
    await screenshots(page, "import-search-error");
    await search.fill("nothing-matches-this-word");
    await page.locator("text=No message matches").waitFor();
    expect(await err.isVisible()).toBe(false);
    await search.fill("");
    await page.waitForFunction(() => document.querySelectorAll("[data-test=message-row]").length === 3);
    await screenshots(page, "import-list");
  });
});
