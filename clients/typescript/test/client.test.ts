// @inboxd/client against a served inboxd (this checkout, port 0): inboxes, waiting for messages,
// codes and links, per-test inboxes and the Playwright fixture's body.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { BOOTSTRAP_KEY, startInboxd, type Instance } from "../../../test/support/harness";
import { sendRaw } from "../../../test/support/mail";
import { createInboxd, type Inboxd, InboxdError, InboxdTimeoutError, inboxFixture, optionsFromEnv, type TestInbox } from "../src/index";

let inst: Instance;
let client: Inboxd;
beforeAll(async () => {
  inst = await startInboxd();
  client = createInboxd({ baseUrl: inst.url, apiKey: BOOTSTRAP_KEY });
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const mail = (to: string, subject: string, body: string) =>
  `From: Shop <shop@example.com>\r\nTo: ${to}\r\nSubject: ${subject}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`;

test("create, get and delete an inbox; errors are InboxdError with the envelope's code", async () => {
  const inbox = await client.createInbox({ name: "client test", ttl_seconds: 600 });
  expect(inbox.address).toContain("@");
  expect((await client.getInbox(inbox.id)).name).toBe("client test");
  await client.deleteInbox(inbox.id);
  const e = await client.getInbox(inbox.id).catch((x) => x);
  expect(e).toBeInstanceOf(InboxdError);
  expect([e.status, e.code]).toEqual([404, "not_found"]);
  await client.deleteInbox(inbox.id); // already gone: no error
  const bad = await createInboxd({ baseUrl: inst.url, apiKey: "isk_live_wrong" })
    .createInbox()
    .catch((x) => x);
  expect(bad.status).toBe(401);
});

test("waitForMessage long-polls until a matching message arrives; waitForCode and waitForLink read it", async () => {
  await client.withInbox(async (inbox) => {
    const waiting = inbox.waitForMessage({ q: "subject:Welcome", timeout: 20_000 });
    await Bun.sleep(300);
    await sendRaw(inst, inbox.address, mail(inbox.address, "Other", "nothing"));
    await sendRaw(
      inst,
      inbox.address,
      mail(inbox.address, "Welcome aboard", "Your code is 482913. Verify: https://shop.example.com/verify?t=abc"),
    );
    const m = await waiting;
    expect(m.subject).toBe("Welcome aboard");
    expect(await inbox.waitForCode({ timeout: 5000 })).toBe("482913");
    expect(await inbox.waitForLink({ match: /verify/, timeout: 5000 })).toBe("https://shop.example.com/verify?t=abc");
    expect((await inbox.messages()).length).toBe(2);
  });
});

test("waitForMessage gives up after its timeout with InboxdTimeoutError", async () => {
  await client.withInbox(async (inbox) => {
    const started = Date.now();
    const e = await inbox.waitForMessage({ q: "subject:never", timeout: 1500 }).catch((x) => x);
    expect(e).toBeInstanceOf(InboxdTimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
  });
});

test("the inbox fixture gives the test its own inbox and deletes it afterwards, also when the test fails", async () => {
  let seen: TestInbox | null = null;
  await inboxFixture(client, async (inbox) => {
    seen = inbox;
    expect((await client.getInbox(inbox.id)).id).toBe(inbox.id);
  });
  const gone = await client.getInbox(seen!.id).catch((x) => x);
  expect(gone.status).toBe(404);

  let failed: TestInbox | null = null;
  const e = await inboxFixture(client, async (inbox) => {
    failed = inbox;
    throw new Error("test body failed");
  }).catch((x) => x);
  expect(e.message).toBe("test body failed");
  expect((await client.getInbox(failed!.id).catch((x) => x)).status).toBe(404);
});

test("optionsFromEnv reads INBOXD_URL, INBOXD_API_KEY and INBOXD_PROJECT", () => {
  expect(optionsFromEnv({ INBOXD_URL: inst.url, INBOXD_API_KEY: "k" })).toEqual({ baseUrl: inst.url, apiKey: "k", project: undefined });
  expect(() => optionsFromEnv({})).toThrow(/INBOXD_API_KEY/);
});

test("the Playwright module exports a test with the inbox fixture", async () => {
  const pw = await import("../src/playwright");
  expect(typeof pw.test.extend).toBe("function");
  expect(typeof pw.expect).toBe("function");
});
