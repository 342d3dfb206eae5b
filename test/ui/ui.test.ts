// End-to-end tests of the web UI in a real Chromium against a real inboxd: log in, create an inbox,
// receive mail over SMTP live, read it (code copy, sandboxed HTML with a <script> that must not run),
// alerts, API keys, approvals, runs, keyboard navigation, log out. Screenshots go to test-output/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { ADMIN_EMAIL, ADMIN_PASSWORD, ROOT, addUser, json, startInboxd, type Instance } from "../support/harness";
import { transport } from "../support/mail";
import {
  DESKTOP,
  PHONE,
  SHOTS,
  hasChromium,
  launch,
  screenshots,
  type Browser,
  newPage,
  openNav,
  openRoute,
  routed,
} from "../support/browser";
import { needs } from "../support/components";

const chromium = needs("chromium", hasChromium, "apt-get install chromium");

const CODE = "483920";
const HOSTILE_HTML = `<!doctype html><html><head><title>mail</title></head><body style="font-family:Arial">
<h1 style="color:#4f46e5">Welcome aboard</h1>
<p>Your verification code is <b>${CODE}</b>. It expires in 10 minutes.</p>
<p><a href="https://app.example.com/verify?token=abc123">Verify my email</a> <a href="javascript:window.parent.__pwned='link'">Unsubscribe</a></p>
<img src="https://tracker.example.com/open.png" width="1" height="1" alt="">
<img src="x" onerror="window.parent.__pwned = 'onerror'; document.title = 'pwned'">
<script>window.parent.__pwned = 'script'; parent.document.title = 'pwned'; document.title = 'pwned';</script>
</body></html>`;

describe.skipIf(!chromium)("web UI in Chromium", () => {
  let inst: Instance;
  let browser: Browser;
  let page: Page;
  let inboxAddress = "";
  let inboxId = "";

  beforeAll(async () => {
    inst = await startInboxd();
    browser = await launch();
    await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: inst.url });
    page = await newPage(browser);
  });

  afterAll(async () => {
    await browser?.close();
    await inst?.stop();
    inst?.cleanup();
  });

  const deleteBySubject = async (subject: string) => {
    const q = encodeURIComponent(`subject:"${subject}"`);
    for (const m of (await json(inst.api(`/v1/inboxes/${inboxId}/messages?q=${q}`))).body.data) {
      expect((await inst.api(`/v1/messages/${m.id}`, { method: "DELETE" })).status).toBe(204);
    }
  };

  const send = async (subject: string, extra: Record<string, unknown> = {}) => {
    const t = transport(inst);
    try {
      await t.sendMail({
        from: '"Acme Accounts" <no-reply@acme.example>',
        to: inboxAddress,
        subject,
        text: `Your verification code is ${CODE}.\nVerify: https://app.example.com/verify?token=abc123\n`,
        html: HOSTILE_HTML,
        attachments: [{ filename: "invoice.txt", content: "invoice #42\ntotal 10.00\n", contentType: "text/plain" }],
        ...extra,
      });
    } finally {
      t.close();
    }
  };

  test("a wrong password is refused; the right one logs in", async () => {
    await page.goto(inst.url + "/");
    await page.waitForSelector("form.login-card");
    await screenshots(page, "login");
    await page.fill("input[type=email]", ADMIN_EMAIL);
    await page.fill("input[type=password]", "not-the-password");
    await page.click("button[type=submit]");
    await page.waitForSelector(".form-error:not(:empty)");
    expect(await page.textContent(".form-error")).toContain("Wrong email or password");
    await page.fill("input[type=password]", ADMIN_PASSWORD);
    await page.click("button[type=submit]");
    await page.waitForSelector("header.topbar");
    expect(await page.textContent(".user-email")).toBe(ADMIN_EMAIL);
    const token = await page.evaluate(() => localStorage.getItem("inboxd.token"));
    expect(token).toMatch(/^isd_/);
    // The project switcher lists the bootstrap project and selects it.
    const options = await page.$$eval("select.project option", (os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(options.length).toBeGreaterThanOrEqual(1);
  });

  test("create a disposable inbox: it is listed, selected, watched, with a countdown and storage bar", async () => {
    await page.click("[data-test=new-inbox]");
    await page.waitForSelector("dialog.modal[open]");
    await page.fill("dialog input[name=name]", "Signup flow");
    await page.selectOption("dialog select", "3600");
    await page.click("dialog button[type=submit]");
    await page.waitForSelector("[data-test=inbox-address]");
    inboxAddress = (await page.textContent("[data-test=inbox-address]"))!.trim();
    expect(inboxAddress).toMatch(/^[^@\s]+@[^@\s]+$/);
    inboxId = page.url().split("/").pop()!;
    const api = await json(inst.api(`/v1/inboxes/${inboxId}`));
    expect(api.status).toBe(200);
    expect(api.body.data.address).toBe(inboxAddress);
    expect(api.body.data.name).toBe("Signup flow");
    const row = page.locator(`.inbox-row[data-id="${inboxId}"]`);
    await row.waitFor();
    expect(await row.locator(".cd").textContent()).toMatch(/^(59|60)m \d\ds$|^1h 00m$/);
    expect(await row.locator(".storage .bar").count()).toBe(1);
    expect(await row.locator("[data-test=watch]").getAttribute("aria-pressed")).toBe("true");
    await page.waitForSelector(".waiting");
  });

  test("a refused create keeps the dialog open with the reason and what was typed", async () => {
    const taken = inboxAddress.split("@")[0]!;
    await page.click("[data-test=new-inbox]");
    await page.waitForSelector("dialog.modal[open]");
    await page.fill("dialog input[name=name]", "Second try");
    await page.fill("dialog input[name=local_part]", taken);
    await page.click("dialog button[type=submit]");
    await page.waitForSelector("[data-test=dialog-error]:has-text('already taken')");
    expect(await page.inputValue("dialog input[name=name]")).toBe("Second try");
    await page.fill("dialog input[name=local_part]", `${taken}-2`);
    await page.click("dialog button[type=submit]");
    await page.waitForFunction(() => !document.querySelector("dialog.modal[open]"));
    await page.waitForFunction(
      (a) => document.querySelector("[data-test=inbox-address]")?.textContent?.trim().startsWith(a),
      `${taken}-2@`,
    );
    const id = page.url().split("/").pop()!;
    expect((await inst.api(`/v1/inboxes/${id}`, { method: "DELETE" })).status).toBe(204);
    // The page leaves the deleted inbox by itself; only then go back (else the two navigations race).
    await page.waitForFunction(() => location.hash === "#/inboxes", null, { timeout: 10_000 });
    await openRoute(page, inst.url, `/inboxes/${inboxId}`);
    await page.waitForSelector("[data-test=inbox-address]");
  });

  test("IMAP/POP3 access: the credentials dialog copies the password without showing it", async () => {
    await page.click("[data-test=credentials]");
    await page.waitForSelector("dialog.modal[open] [data-test=cred-username]");
    const creds = (await json(inst.api(`/v1/inboxes/${inboxId}/credentials`))).body.data;
    expect(await page.textContent("[data-test=cred-username]")).toBe(creds.username);
    expect(await page.textContent("[data-test=cred-imap]")).toBe(`${creds.imap.host}:${creds.imap.port}`);
    expect(await page.textContent("[data-test=cred-password]")).not.toContain(creds.password);
    await page.click("dialog .cred-row:has([data-test=cred-password]) button");
    await page.waitForFunction((p) => (window as any).__lastCopied === p, creds.password);
    await screenshots(page, "credentials", false);
    await page.click("dialog button[type=submit]");
    await page.waitForSelector("dialog.modal", { state: "detached" });
  });

  test("copying the address puts it on the clipboard", async () => {
    await page.click(`.inbox-row[data-id="${inboxId}"] [data-test=copy-address]`);
    await page.waitForFunction((a) => (window as any).__lastCopied === a, inboxAddress);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(inboxAddress);
  });

  test("mail sent over SMTP appears live, without a reload", async () => {
    await page.waitForFunction(() => (window as any).__liveStatus === "live", null, { timeout: 10_000 });
    await page.evaluate(() => ((window as any).__noReload = true));
    await send("Confirm your account");
    const row = page.locator("[data-test=message-row]").first();
    await row.waitFor({ timeout: 15_000 });
    expect(await page.evaluate(() => (window as any).__noReload)).toBe(true);
    expect(await row.locator(".subject").textContent()).toBe("Confirm your account");
    expect(await row.locator(".from").textContent()).toBe("Acme Accounts");
    expect(await row.getAttribute("class")).toContain("unread");
    expect(await row.locator(".chip.code").first().textContent()).toBe(CODE);
    // The inbox list's counter followed too.
    await page.waitForFunction((id) => document.querySelector(`.inbox-row[data-id="${id}"] .badge.unread`)?.textContent === "1", inboxId);
    await screenshots(page, "inbox");
  });

  test("open the message: code copy, sandboxed HTML whose <script> did not run, remote content on request", async () => {
    await page.click("[data-test=message-row]");
    await page.waitForSelector("[data-test=message-subject]");
    expect(await page.textContent("[data-test=message-subject]")).toBe("Confirm your account");
    await page.click(`[data-test=copy-code][data-code="${CODE}"]`);
    await page.waitForFunction((c) => (window as any).__lastCopied === c, CODE);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(CODE);

    const frame = page.locator("[data-test=html-frame]");
    await frame.waitFor();
    const sandbox = (await frame.getAttribute("sandbox")) ?? "";
    expect(sandbox).not.toContain("allow-scripts");
    expect(sandbox).not.toContain("allow-same-origin");
    const srcdoc = (await frame.getAttribute("srcdoc")) ?? "";
    expect(srcdoc).toContain("Welcome aboard");
    expect(srcdoc.toLowerCase()).not.toContain("<script");
    expect(srcdoc.toLowerCase()).not.toContain("onerror");
    expect(srcdoc.toLowerCase()).not.toContain("javascript:");
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined();
    expect(await page.title()).toBe("inboxd");
    // The message's own document has no script either: its title was not rewritten.
    const inner = page.frameLocator("[data-test=html-frame]");
    expect(await inner.locator("h1").textContent()).toBe("Welcome aboard");

    // Opening marks it read, on the server too.
    await page.waitForFunction(() => document.querySelector("[data-test=message-row]")?.classList.contains("read"));
    const msgId = page.url().split("/").pop()!;
    await page.waitForSelector("[data-test=toggle-read]:has-text('Mark unread')");
    expect((await json(inst.api(`/v1/messages/${msgId}`))).body.data.read).toBe(true);
    await page.click("[data-test=toggle-read]");
    await page.waitForSelector("[data-test=toggle-read]:has-text('Mark read')");
    expect((await json(inst.api(`/v1/messages/${msgId}`))).body.data.read).toBe(false);
    expect((await json(inst.api(`/v1/inboxes/${inboxId}`))).body.data.unread_count).toBe(1);
    // The list shows it unread too, after the reload that follows the change.
    await page.waitForFunction(() => document.querySelector("[data-test=message-row]")?.classList.contains("unread"));
    await page.waitForTimeout(500);
    expect(await page.getAttribute("[data-test=message-row]", "class")).toContain("unread");
    expect(await page.getAttribute("[data-test=toggle-read]", "aria-label")).toBe("Mark read");
    await page.click("[data-test=toggle-read]");
    await page.waitForSelector("[data-test=toggle-read]:has-text('Mark unread')");
    await page.waitForFunction(() => document.querySelector("[data-test=message-row]")?.classList.contains("read"));
    expect((await json(inst.api(`/v1/messages/${msgId}`))).body.data.read).toBe(true);
    await screenshots(page, "message");

    // Remote content is blocked until asked for; then the HTML is refetched with remote=allow.
    expect(srcdoc).not.toMatch(/\ssrc="https:\/\/tracker\.example\.com/);
    const notice = page.locator("[data-test=remote-notice]");
    expect(await notice.textContent()).toContain("1 remote resource was blocked");
    await page.click("[data-test=load-remote]");
    await page.waitForSelector(".notice.info");
    expect(await frame.getAttribute("srcdoc")).toMatch(/\ssrc="https:\/\/tracker\.example\.com\/open\.png"/);
    expect(await page.locator("[data-test=html-frame]").getAttribute("sandbox")).not.toContain("allow-scripts");
    expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined();
  });

  test("text, headers, source, links and attachments tabs", async () => {
    await page.click(".tab[data-tab=text]");
    expect(await page.textContent("[data-test=text-body]")).toContain(`verification code is ${CODE}`);
    // Its URL is a link (new tab, no referrer); the text around it stays text.
    expect(await page.getAttribute("[data-test=text-body] a", "href")).toBe("https://app.example.com/verify?token=abc123");
    expect(await page.getAttribute("[data-test=text-body] a", "rel")).toBe("noopener noreferrer");

    await page.click(".tab[data-tab=headers]");
    await page.waitForSelector("table.headers, .reader-body .empty");
    await page.click(".seg:has-text('All headers')");
    await page.waitForSelector("table.headers");
    const names = await page.$$eval("table.headers th", (ths) => ths.map((t) => t.textContent!.toLowerCase()));
    expect(names).toContain("subject");

    await page.click(".tab[data-tab=raw]");
    await page.waitForSelector("[data-test=raw]");
    expect(await page.textContent("[data-test=raw]")).toContain("Subject: Confirm your account");
    const [eml] = await Promise.all([page.waitForEvent("download"), page.click(".raw-actions button:has-text('Download .eml')")]);
    expect(eml.suggestedFilename()).toMatch(/\.eml$/);

    await page.click(".tab[data-tab=links]");
    await page.waitForSelector(".link-list a");
    const hrefs = await page.$$eval(".link-list a", (as) => as.map((a) => (a as HTMLAnchorElement).href));
    expect(hrefs).toContain("https://app.example.com/verify?token=abc123");
    expect(await page.getAttribute(".link-list a", "rel")).toBe("noopener noreferrer");
    // A javascript: URL, should the parser list one, is never a clickable link of this page.
    expect(hrefs.filter((h) => !/^https?:|^mailto:/.test(h))).toEqual([]);

    await page.click(".tab[data-tab=attachments]");
    await page.waitForSelector(".att-list li");
    expect(await page.textContent(".att-list")).toContain("invoice.txt");
    const [dl] = await Promise.all([page.waitForEvent("download"), page.click(".att-list button")]);
    expect(dl.suggestedFilename()).toBe("invoice.txt");
    const path = await dl.path();
    expect(await Bun.file(path!).text()).toBe("invoice #42\ntotal 10.00\n");
  });

  test("keyboard: Escape goes back, j/k select, Enter opens, Delete removes", async () => {
    await send("Second message", { html: "<p>second</p>", text: "second" });
    await page.waitForFunction(() => document.querySelectorAll("[data-test=message-row]").length === 2, null, { timeout: 15_000 });
    const selectedSubject = () => page.evaluate(() => document.querySelector(".msg-row.selected .subject")?.textContent ?? null);
    await page.keyboard.press("Escape");
    await page.waitForFunction(
      (id) => location.hash === `#/inboxes/${id}` && !document.querySelector("[data-test=message-subject]"),
      inboxId,
    );
    // The selection stayed on the message that was open (now the second row), though mail arrived above it.
    expect(await selectedSubject()).toBe("Confirm your account");
    await page.keyboard.press("k");
    await page.waitForFunction(() => document.querySelector(".msg-row.selected .subject")?.textContent === "Second message");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelector("[data-test=message-subject]")?.textContent === "Second message");
    await page.keyboard.press("j");
    await page.waitForFunction(() => document.querySelector(".msg-row.selected .subject")?.textContent === "Confirm your account");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelector("[data-test=message-subject]")?.textContent === "Confirm your account");
    await page.keyboard.press("k");
    await page.waitForFunction(() => document.querySelector(".msg-row.selected .subject")?.textContent === "Second message");
    await page.keyboard.press("Delete");
    await page.waitForFunction(() => document.querySelectorAll("[data-test=message-row]").length === 1);
    const left = await json(inst.api(`/v1/inboxes/${inboxId}/messages`));
    expect(left.body.data.map((m: any) => m.subject)).toEqual(["Confirm your account"]);
  });

  test("keyboard: a focused button keeps Enter and Delete; a focused row is the one Enter opens", async () => {
    await send("Third message", { html: "<p>third</p>", text: "third" });
    await page.waitForFunction(() => document.querySelectorAll("[data-test=message-row]").length === 2, null, { timeout: 15_000 });
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => !document.querySelector("[data-test=message-subject]"));
    await page.keyboard.press("j");
    await page.waitForSelector(".msg-row.selected");
    // Delete on the Refresh button removes no message.
    await page.focus(".pane-messages button[aria-label=Refresh]");
    await page.keyboard.press("Delete");
    await page.waitForTimeout(300);
    expect((await json(inst.api(`/v1/inboxes/${inboxId}/messages`))).body.data).toHaveLength(2);
    // Enter on a focused row opens that row, whichever is selected.
    const rows = page.locator("[data-test=message-row]");
    const second = (await rows.nth(1).locator(".subject").textContent())!;
    await rows.nth(1).focus();
    await page.keyboard.press("Enter");
    await page.waitForFunction((s) => document.querySelector("[data-test=message-subject]")?.textContent === s, second);
    await deleteBySubject("Third message"); // the screenshot below counts the inbox's messages
  });

  test("a message or an inbox deleted elsewhere leaves the open page at once", async () => {
    const other = (await json(inst.api("/v1/inboxes", { method: "POST", json: { name: "deleted elsewhere" } }))).body.data;
    const t = transport(inst);
    try {
      for (const subject of ["stays", "goes"]) {
        // Sent Bcc: the envelope names the inbox, no header does.
        await t.sendMail({
          from: "a@b.example",
          to: "someone@else.example",
          envelope: { from: "a@b.example", to: [other.address] },
          subject,
          text: subject,
        });
      }
    } finally {
      t.close();
    }
    const list = async () => (await json(inst.api(`/v1/inboxes/${other.id}/messages`))).body.data;
    let messages = await list();
    for (let i = 0; i < 50 && messages.length < 2; i++) {
      await Bun.sleep(100);
      messages = await list();
    }
    const goes = messages.find((m: any) => m.subject === "goes");
    await openRoute(page, inst.url, `/inboxes/${other.id}/${goes.id}`);
    await page.waitForFunction(() => document.querySelector("[data-test=message-subject]")?.textContent === "goes");
    expect(await page.textContent("[data-test=envelope-to]")).toBe(other.address);
    expect((await inst.api(`/v1/messages/${goes.id}`, { method: "DELETE" })).status).toBe(204);
    await page.waitForSelector(".pane-reader .empty:has-text('deleted elsewhere')", { timeout: 10_000 });
    await page.waitForFunction(() => document.querySelectorAll("[data-test=message-row]").length === 1, null, { timeout: 10_000 });
    expect((await inst.api(`/v1/inboxes/${other.id}`, { method: "DELETE" })).status).toBe(204);
    await page.waitForFunction(() => location.hash === "#/inboxes", null, { timeout: 10_000 });
    await openRoute(page, inst.url, `/inboxes/${inboxId}`);
  });

  test("new mail keeps the older pages the user loaded", async () => {
    const big = (await json(inst.api("/v1/inboxes", { method: "POST", json: { name: "paged" } }))).body.data;
    const t = transport(inst);
    try {
      for (let i = 0; i < 55; i++) await t.sendMail({ from: "a@b.example", to: big.address, subject: `page ${i}`, text: "x" });
    } finally {
      t.close();
    }
    await openRoute(page, inst.url, `/inboxes/${big.id}`);
    await page.waitForFunction(() => document.querySelectorAll("[data-test=message-row]").length === 50, null, { timeout: 15_000 });
    await page.click("button.more");
    await page.waitForFunction(() => document.querySelectorAll("[data-test=message-row]").length === 55);
    const t2 = transport(inst);
    try {
      await t2.sendMail({ from: "a@b.example", to: big.address, subject: "one more", text: "x" });
    } finally {
      t2.close();
    }
    await page.waitForSelector("[data-test=message-row] .subject:has-text('one more')", { timeout: 15_000 });
    expect(await page.locator("[data-test=message-row]").count()).toBe(56);
    // Mark all read: every row, and the server agrees.
    await page.click("[data-test=mark-all-read]");
    await page.waitForFunction(() => document.querySelectorAll("[data-test=message-row].unread").length === 0);
    expect((await json(inst.api(`/v1/inboxes/${big.id}`))).body.data.unread_count).toBe(0);
    expect((await inst.api(`/v1/inboxes/${big.id}`, { method: "DELETE" })).status).toBe(204);
    await page.waitForFunction(() => location.hash === "#/inboxes", null, { timeout: 10_000 });
    await openRoute(page, inst.url, `/inboxes/${inboxId}`);
  });

  test("an inline (cid:) image of multipart/related shows in the HTML, and its part is named", async () => {
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAEklEQVR4nGP4z8DwnwEKGEgHAFGhAfNQDCrRAAAAAElFTkSuQmCC",
      "base64",
    );
    await send("Inline logo", {
      html: '<p>logo:</p><img id="logo" src="cid:logo@acme.example" alt="logo">',
      attachments: [{ filename: "", content: png, contentType: "image/png", cid: "logo@acme.example" }],
    });
    await page.waitForSelector("[data-test=message-row] .subject:has-text('Inline logo')", { timeout: 15_000 });
    await page.click("[data-test=message-row]:has(.subject:has-text('Inline logo'))");
    const inner = page.frameLocator("[data-test=html-frame]");
    const img = inner.locator("#logo");
    await img.waitFor();
    expect(await img.getAttribute("src")).toStartWith("data:image/png;base64,");
    expect(await img.evaluate((el: HTMLImageElement) => el.decode().then(() => el.naturalWidth))).toBe(2);
    await page.click(".tab[data-tab=attachments]");
    await page.waitForSelector(".att-list li");
    const id = page.url().split("/").pop()!;
    const [part] = (await json(inst.api(`/v1/messages/${id}`))).body.data.attachments;
    expect(part.content_id).toContain("logo@acme.example");
    expect(await page.textContent(".att-list strong")).toBe(part.filename || "logo@acme.example");
    await deleteBySubject("Inline logo");
  });

  test("the alerts bell counts arrivals of a watched inbox and marks them read", async () => {
    const probe = await json(
      inst.api("/v1/alerts", {
        token: await page.evaluate(() => localStorage.getItem("inboxd.token")),
        project: await page.evaluate(() => localStorage.getItem("inboxd.project")!),
      }),
    );
    expect(probe.status).toBe(200);
    await page.waitForSelector("[data-test=alerts-count]:not(.hidden)", { timeout: 10_000 });
    expect(Number(await page.textContent("[data-test=alerts-count]"))).toBeGreaterThanOrEqual(1);
    await page.click(".bell");
    await page.waitForSelector(".alert-list li.unread");
    expect(await page.textContent(".alert-list")).toContain(inboxAddress);
    await screenshots(page, "alerts", false);
    await page.click("[data-test=alerts-mark-all]");
    await page.waitForSelector("[data-test=alerts-count].hidden", { state: "attached" });
    await page.click(".bell");
  });

  test("watch toggle unwatches and rewatches through the API", async () => {
    const btn = page.locator(`.inbox-row[data-id="${inboxId}"] [data-test=watch]`);
    await btn.click();
    await page.waitForFunction(
      (id) => document.querySelector(`.inbox-row[data-id="${id}"] [data-test=watch]`)?.getAttribute("aria-pressed") === "false",
      inboxId,
    );
    const token = await page.evaluate(() => localStorage.getItem("inboxd.token"));
    const project = await page.evaluate(() => localStorage.getItem("inboxd.project")!);
    expect((await json(inst.api(`/v1/inboxes/${inboxId}`, { token, project }))).body.data.watched).toBe(false);
    await btn.click();
    await page.waitForFunction(
      (id) => document.querySelector(`.inbox-row[data-id="${id}"] [data-test=watch]`)?.getAttribute("aria-pressed") === "true",
      inboxId,
    );
    expect((await json(inst.api(`/v1/inboxes/${inboxId}`, { token, project }))).body.data.watched).toBe(true);
  });

  test("search filters the inbox list", async () => {
    const other = await json(inst.api("/v1/inboxes", { method: "POST", json: { name: "Password reset", ttl_seconds: 600 } }));
    expect(other.status).toBe(201);
    // Created elsewhere: it shows after a reload (or when the tab regains focus).
    await page.reload();
    await page.waitForSelector(`.inbox-row[data-id="${other.body.data.id}"]`);
    await page.fill("input[type=search]", "password");
    await page.waitForFunction(() => document.querySelectorAll(".inbox-row").length === 1);
    expect(await page.getAttribute(".inbox-row", "data-id")).toBe(other.body.data.id);
    await page.fill("input[type=search]", "");
    // Both inboxes, after the instance's catch-all inbox, which leads the list.
    await page.waitForFunction(() => document.querySelectorAll(".inbox-row").length === 3);
    expect(await page.locator(".inbox-row").first().textContent()).toContain("catch-all");
    expect(await page.locator(".inbox-row").first().locator("[data-test=delete-inbox]").count()).toBe(0);
  });

  test("delete an inbox from the list (after a confirmation)", async () => {
    const row = page.locator(".inbox-row", { hasText: "Password reset" });
    const id = await row.getAttribute("data-id");
    await row.locator("[data-test=delete-inbox]").click();
    await page.waitForSelector("dialog.modal[open]");
    await page.click("dialog button[type=submit]");
    await page.waitForFunction((i) => !document.querySelector(`.inbox-row[data-id="${i}"]`), id);
    expect((await json(inst.api(`/v1/inboxes/${id}`))).status).toBe(404);
  });

  test("the project switcher scopes every page to the chosen project", async () => {
    const token = await page.evaluate(() => localStorage.getItem("inboxd.token"));
    const first = await page.evaluate(() => localStorage.getItem("inboxd.project")!);
    const created = await json(inst.api("/v1/projects", { method: "POST", token, json: { name: "Staging" } }));
    expect(created.status).toBe(201);
    await page.reload();
    await page.waitForSelector(`select.project option[value="${created.body.data.id}"]`, { state: "attached" });
    await page.selectOption("select.project", created.body.data.id);
    await page.waitForSelector(".pane-inboxes .empty");
    expect(await page.textContent(".pane-inboxes")).toContain("No inboxes yet");
    expect(await page.evaluate(() => localStorage.getItem("inboxd.project"))).toBe(created.body.data.id);
    await page.selectOption("select.project", first);
    await page.waitForSelector(`.inbox-row[data-id="${inboxId}"]`);
  });

  test("API keys: create shows the secret once, rotate shows a new one, revoke", async () => {
    await openNav(page, "keys");
    await page.waitForSelector("[data-test=key-row]");
    await page.click("[data-test=new-key]");
    await page.fill("dialog input[name=name]", "CI pipeline");
    await page.click("dialog button[type=submit]");
    await page.waitForSelector("[data-test=secret] code.secret");
    const secret = (await page.textContent("[data-test=secret] code.secret"))!;
    expect(secret).toMatch(/^isk_live_/);
    expect((await json(inst.api("/v1/inboxes", { token: secret }))).status).toBe(200);
    await screenshots(page, "api-keys");

    const row = page.locator("[data-test=key-row]", { hasText: "CI pipeline" });
    await row.locator("[data-test=rotate]").click();
    await page.click("dialog button[type=submit]");
    await page.waitForFunction((old) => {
      const s = document.querySelector("[data-test=secret] code.secret")?.textContent;
      return s && s !== old;
    }, secret);
    const rotated = (await page.textContent("[data-test=secret] code.secret"))!;
    expect((await json(inst.api("/v1/inboxes", { token: secret }))).status).toBe(401);
    expect((await json(inst.api("/v1/inboxes", { token: rotated }))).status).toBe(200);

    await row.locator("[data-test=revoke]").click();
    await page.click("dialog button[type=submit]");
    await page.waitForSelector("[data-test=key-row].revoked");
    expect((await json(inst.api("/v1/inboxes", { token: rotated }))).status).toBe(401);
  });

  test("a second hashchange for the page shown does not remount it: an open dialog keeps working", async () => {
    // go() and a click each queue a hashchange, both routed after the fact; the second finds its page already shown.
    await routed(page, "/keys");
    await page.evaluate(() => {
      (document.querySelector("main.view")!.firstElementChild as HTMLElement).dataset.mounted = "first";
    });
    await page.click("[data-test=new-key]");
    await page.fill("dialog input[name=name]", "Survives a hashchange");
    await page.evaluate(() => window.dispatchEvent(new HashChangeEvent("hashchange")));
    expect(await page.getAttribute("main.view > :first-child", "data-mounted")).toBe("first");
    await page.click("dialog button[type=submit]");
    // The secret box of the key just made (the one before it, from the previous test, may still show).
    const box = "[data-test=secret]:has-text('Survives a hashchange') code.secret";
    await page.waitForSelector(box);
    expect((await json(inst.api("/v1/inboxes", { token: (await page.textContent(box))! }))).status).toBe(200);
    await page.waitForSelector("[data-test=key-row]:has-text('Survives a hashchange')");
  });

  test("runs: a failed assertion shows in the list and on the run page with its timeline", async () => {
    const agent = await json(inst.api("/v1/agents", { method: "POST", json: { name: "checker", permissions: ["inboxes:read"] } }));
    expect(agent.status).toBe(201);
    const scenario = await json(
      inst.api("/v1/scenarios", {
        method: "POST",
        json: {
          name: "Greeting check",
          draft_definition: {
            schema_version: 1,
            steps: [{ id: "greet", type: "assert", name: "greeting is right", value: "hello", equals: "world" }],
          },
        },
      }),
    );
    expect(scenario.status).toBe(201);
    expect((await json(inst.api(`/v1/scenarios/${scenario.body.data.id}/publish`, { method: "POST" }))).status).toBe(201);
    const run = await json(
      inst.api("/v1/runs?wait=10", { method: "POST", json: { agent_id: agent.body.data.id, scenario_id: scenario.body.data.id } }),
    );
    expect(run.status).toBe(201);
    expect(run.body.data.status).toBe("failed");
    const runId = run.body.data.id;

    await openNav(page, "runs");
    const row = page.locator(`tr.run-row[data-id="${runId}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain("Greeting check");
    expect(await row.locator(".chip.bad").textContent()).toBe("1 failed");
    await screenshots(page, "runs");
    await row.click();
    await page.waitForSelector("[data-test=failed-assertions]");
    const failed = (await page.textContent("[data-test=failed-assertions]"))!;
    expect(failed).toContain('"world"');
    expect(failed).toContain('"hello"');
    const types = await page.$$eval("[data-test=timeline] li strong", (els) => els.map((e) => e.textContent));
    expect(types).toContain("assertion.failed");
    expect(types[types.length - 1]).toBe("run.finished");
    await screenshots(page, "run");
  });

  test("approve a parked run in the approvals queue; the run page shows its timeline", async () => {
    const token = await page.evaluate(() => localStorage.getItem("inboxd.token"));
    const project = await page.evaluate(() => localStorage.getItem("inboxd.project")!);
    const probe = await json(inst.api("/v1/approvals", { token, project }));
    expect(probe.status).toBe(200);
    const agent = await json(
      inst.api("/v1/agents", { method: "POST", json: { name: "ui-agent", permissions: ["inboxes:read", "inboxes:write"] } }),
    );
    expect(agent.status).toBe(201);
    const scenario = await json(
      inst.api("/v1/scenarios", {
        method: "POST",
        json: {
          name: "Provision inbox",
          draft_definition: {
            schema_version: 1,
            steps: [{ id: "inbox", type: "inbox.create", name: "Create the inbox", approval: true, inbox_name: "approved-by-ui" }],
          },
        },
      }),
    );
    expect(scenario.status).toBe(201);
    expect((await json(inst.api(`/v1/scenarios/${scenario.body.data.id}/publish`, { method: "POST" }))).status).toBe(201);
    const run = await json(
      inst.api("/v1/runs?wait=10", { method: "POST", json: { agent_id: agent.body.data.id, scenario_id: scenario.body.data.id } }),
    );
    expect(run.status).toBe(201);
    expect(run.body.data.status).toBe("awaiting_approval");
    const runId = run.body.data.id;

    let pending: any[] = [];
    for (let i = 0; i < 50 && pending.length === 0; i++) {
      pending = (await json(inst.api("/v1/approvals?status=pending", { token, project }))).body.data ?? [];
      if (!pending.length) await Bun.sleep(100);
    }
    if (!pending.some((a: any) => a.run_ulid === runId)) {
      throw new Error(
        `run ${runId} is awaiting_approval but GET /v1/approvals?status=pending does not list its approval: parked runs do not create approvals yet`,
      );
    }

    await openNav(page, "approvals");
    const card = page.locator("[data-test=approval][data-status=pending]");
    await card.waitFor({ timeout: 10_000 });
    expect(await card.locator("pre.json").textContent()).toContain("approved-by-ui");
    await screenshots(page, "approvals");
    await card.locator("[data-test=approve]").click();
    await page.waitForFunction(() => !document.querySelector("[data-test=approval][data-status=pending]"), null, { timeout: 10_000 });

    const settled = await json(inst.api(`/v1/runs/${runId}`));
    let status = settled.body.data.status;
    for (let i = 0; i < 100 && !["succeeded", "failed", "cancelled", "timed_out"].includes(status); i++) {
      await Bun.sleep(100);
      status = (await json(inst.api(`/v1/runs/${runId}`))).body.data.status;
    }
    expect(status).toBe("succeeded");
    const decided = await json(inst.api(`/v1/approvals?status=approved`, { token, project }));
    expect(decided.body.data.find((a: any) => a.run_ulid === runId)?.status).toBe("approved");

    await openNav(page, "runs");
    await page.waitForSelector(`tr.run-row[data-id="${runId}"]`);
    await page.click(`tr.run-row[data-id="${runId}"]`);
    await page.waitForSelector("[data-test=timeline] li");
    const types = await page.$$eval("[data-test=timeline] li strong", (els) => els.map((e) => e.textContent));
    expect(types).toContain("run.finished");
    await screenshots(page, "run-approved");

    // A second run of the same scenario: reject it with a reason.
    const run2 = await json(
      inst.api("/v1/runs?wait=10", { method: "POST", json: { agent_id: agent.body.data.id, scenario_id: scenario.body.data.id } }),
    );
    expect(run2.body.data.status).toBe("awaiting_approval");
    await openNav(page, "approvals");
    const card2 = page.locator(`[data-test=approval][data-status=pending]`);
    await card2.waitFor({ timeout: 10_000 });
    await card2.locator("[data-test=reject]").click();
    await page.fill("dialog textarea", "not during the release freeze");
    await page.click("dialog button[type=submit]");
    await page.waitForFunction(() => !document.querySelector("[data-test=approval][data-status=pending]"), null, { timeout: 10_000 });
    const rejected = await json(inst.api(`/v1/approvals?status=rejected`, { token, project }));
    const row = rejected.body.data.find((a: any) => a.run_ulid === run2.body.data.id);
    expect(row.decision_reason).toBe("not during the release freeze");
    let status2 = "";
    for (let i = 0; i < 100 && status2 !== "failed"; i++) {
      status2 = (await json(inst.api(`/v1/runs/${run2.body.data.id}`))).body.data.status;
      if (status2 !== "failed") await Bun.sleep(100);
    }
    expect(status2).toBe("failed");
    await page.click(".seg:has-text('Rejected')");
    await page.waitForSelector(`[data-test=approval][data-status=rejected]`);
    expect(await page.textContent("[data-test=approval][data-status=rejected]")).toContain("not during the release freeze");
  });

  test("phone width: one pane at a time with a way back", async () => {
    await openRoute(page, inst.url, `/inboxes/${inboxId}`);
    await page.setViewportSize(PHONE);
    await page.waitForSelector("[data-test=message-row]");
    expect(await page.isVisible(".pane-inboxes")).toBe(false);
    expect(await page.isVisible(".pane-messages")).toBe(true);
    await page.click("[data-test=message-row]");
    await page.waitForSelector("[data-test=message-subject]");
    expect(await page.isVisible(".pane-messages")).toBe(false);
    expect(await page.isVisible(".pane-reader .back")).toBe(true);
    await page.screenshot({ path: join(SHOTS, "message-phone-open.png") });
    await page.click(".pane-reader .back");
    await page.waitForSelector(".pane-messages:visible");
    await page.setViewportSize(DESKTOP);
  });

  test("overview: several senders in a live inbox, one message open (the README's screenshot)", async () => {
    const t = transport(inst);
    try {
      await t.sendMail({
        from: '"GitHub" <noreply@github.example>',
        to: inboxAddress,
        subject: "[acme/web] CI passed on main",
        text: "All checks have passed.",
        html: "<p>All checks have passed.</p>",
      });
      await t.sendMail({
        from: '"Stripe" <receipts@stripe.example>',
        to: inboxAddress,
        subject: "Your receipt #1042-7731",
        text: "Amount paid: $49.00",
        html: "<p>Amount paid: <b>$49.00</b></p>",
      });
      await t.sendMail({
        from: '"Acme Security" <security@acme.example>',
        to: inboxAddress,
        subject: "Your sign-in code",
        text: "Use 771204 to sign in. It expires in 5 minutes.",
        html: "<p>Use <b>771204</b> to sign in. It expires in 5 minutes.</p>",
      });
    } finally {
      t.close();
    }
    expect((await json(inst.api("/v1/inboxes", { method: "POST", json: { name: "Password reset", ttl_seconds: 86400 } }))).status).toBe(
      201,
    );
    await openRoute(page, inst.url, `/inboxes/${inboxId}`);
    await page.waitForFunction(() => document.querySelectorAll("[data-test=message-row]").length === 4, null, { timeout: 15_000 });
    await page.waitForFunction(() => document.querySelectorAll(".inbox-row").length === 3);
    await page.click("[data-test=message-row]:has-text('Your sign-in code')");
    await page.waitForSelector("[data-test=copy-code][data-code='771204']");
    expect(await page.frameLocator("[data-test=html-frame]").locator("p").textContent()).toContain("771204");
    await screenshots(page, "overview");
    const shot = join(SHOTS, "overview-desktop.png");
    if (process.env.INBOXD_UPDATE_README_SHOT === "1") copyFileSync(shot, join(ROOT, "docs/screenshot.png"));
  });

  test("dark mode follows the system color scheme", async () => {
    const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.emulateMedia({ colorScheme: "light" });
    const light = await bg();
    await page.emulateMedia({ colorScheme: "dark" });
    const dark = await bg();
    expect(light).toBe("rgb(246, 247, 249)");
    expect(dark).toBe("rgb(15, 17, 23)");
    await screenshots(page, "overview-dark", false);
    await page.emulateMedia({ colorScheme: "light" });
  });

  test("log out ends the device session", async () => {
    const token = await page.evaluate(() => localStorage.getItem("inboxd.token"));
    await page.click("[data-test=logout]");
    await page.waitForSelector("form.login-card");
    expect(await page.evaluate(() => localStorage.getItem("inboxd.token"))).toBeNull();
    expect((await json(inst.api("/v1/me", { token }))).status).toBe(401);
  });

  test("a member sees that approvals are for owners and admins", async () => {
    await addUser(inst, "member@example.com", "member-password-1", "member");
    await page.fill("input[type=email]", "member@example.com");
    await page.fill("input[type=password]", "member-password-1");
    await page.click("button[type=submit]");
    await page.waitForSelector("header.topbar");
    await openNav(page, "approvals");
    await page.waitForSelector(".empty");
    expect(await page.textContent(".empty")).toContain("Only team owners and admins");
    expect(await page.getAttribute("[data-test=approvals-count]", "class")).toContain("hidden");
    await page.click("[data-test=logout]");
    await page.waitForSelector("form.login-card");
  });
});
