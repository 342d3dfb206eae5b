// Extraction through the real listeners (issue 16): links with their anchor text in the full view,
// the agent view and the webhook payload (and old rows stored as plain URLs), a caller's own code
// `pattern` on GET /v1/messages/{id} and on latest, and the MCP tools' `pattern` and `q`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { json, startInboxd, type Instance } from "../support/harness";
import { createInbox, nextMessage, transport } from "../support/mail";
import { withDatabase } from "../support/database-rows";
import { Receiver, registerWebhook } from "../support/webhook-receiver";

let inst: Instance;
let rx: Receiver;

beforeAll(async () => {
  rx = await Receiver.start();
  inst = await startInboxd({ INBOXD_SWEEP_INTERVAL_MS: "200" });
});
afterAll(async () => {
  rx.stop();
  await inst.stop();
  inst.cleanup();
});

async function send(to: string, subject: string, body: { text?: string; html?: string }) {
  const t = transport(inst);
  try {
    await t.sendMail({ from: "Shop <noreply@shop.example>", to, subject, ...body });
  } finally {
    t.close();
  }
}

const HTML =
  '<p>Welcome! Your order <b>A-7731</b> is ready.</p><p><a href="https://shop.example/confirm?t=9">Confirm   your\n <b>account</b></a></p>' +
  '<p><a href="https://shop.example/"><img src="https://cdn.shop.example/logo.png" alt="Shop logo"></a></p>' +
  '<p><a href="https://shop.example/help">Help</a> · <a href="https://shop.example/help">Help again</a> · <a href="mailto:help@shop.example">Mail us</a></p>';

describe("links with anchor text", () => {
  let inbox: { id: string; address: string };
  let full: any;

  beforeAll(async () => {
    inbox = await createInbox(inst);
    await registerWebhook(inst, { url: rx.url("/links"), inbox_id: inbox.id });
    await send(inbox.address, "Confirm your account", {
      text: "Confirm at https://shop.example/confirm?t=9.\nOr read https://shop.example/faq",
      html: HTML,
    });
    full = await nextMessage(inst, inbox.id);
  });

  test("the full view lists [{url, text}] in order of first appearance; links_count counts distinct URLs", async () => {
    expect(full.links).toEqual([
      // Seen first in the text body (no anchor there), it takes the text of its HTML anchor.
      { url: "https://shop.example/confirm?t=9", text: "Confirm your account" },
      { url: "https://shop.example/faq", text: "" },
      { url: "https://shop.example/", text: "Shop logo" },
      { url: "https://shop.example/help", text: "Help" },
    ]);
    expect(full.links_count).toBe(4);
    const summary = (await json(inst.api(`/v1/messages/${full.id}?view=summary`))).body.data;
    expect(summary.links_count).toBe(4);
    expect(summary.links).toBeUndefined();
  });

  test("the agent view carries the same links inside its untrusted envelope", async () => {
    const agent = (await json(inst.api(`/v1/messages/${full.id}?view=agent`))).body.data;
    expect(agent.untrusted.links).toEqual(full.links);
  });

  test("the webhook payload carries the link objects", async () => {
    const [got] = await rx.waitFor((g) => {
      const m = g.filter((x) => x.path === "/links");
      return m.length ? m : null;
    });
    expect(got!.json.data.links).toEqual(full.links);
  });

  test("a row stored before links had text (a JSON array of URLs) reads as {url, text: ''}", async () => {
    await send(inbox.address, "Old row", { text: "See https://old.example/a and https://old.example/b" });
    const m = await nextMessage(inst, inbox.id, full.id);
    await withDatabase(inst.dataDir, (db) =>
      db.run("UPDATE messages SET links = ? WHERE id = ?", [JSON.stringify(["https://old.example/a", "https://old.example/b"]), m.id]),
    );
    const r = (await json(inst.api(`/v1/messages/${m.id}`))).body.data;
    expect(r.links).toEqual([
      { url: "https://old.example/a", text: "" },
      { url: "https://old.example/b", text: "" },
    ]);
    expect(r.links_count).toBe(2);
  });
});

describe("pattern: a caller's own regular expression for codes", () => {
  let inbox: { id: string; address: string };
  let msg: any;

  beforeAll(async () => {
    inbox = await createInbox(inst);
    await send(inbox.address, "Ticket T-4410 opened", {
      text: "Hello,\nyour reference is REF-88213 and your PIN is 7741.\nKeep REF-88213 safe; REF-10001 was the old one.",
      html: "<p>Activation key: <b>ZX-9912-QQ</b></p><p>Built-in code 482913 is here too.</p>",
    });
    msg = await nextMessage(inst, inbox.id);
  });

  const show = (id: string, params: Record<string, string>) => json(inst.api(`/v1/messages/${id}?${new URLSearchParams(params)}`));

  test("the first capture group of each match, distinct, in order, over subject, text and HTML text", async () => {
    const r = await show(msg.id, { pattern: "REF-(\\d+)" });
    expect(r.status).toBe(200);
    expect(r.body.data.codes).toEqual(["88213", "10001"]);
    const subjectAndHtml = await show(msg.id, { pattern: "\\b[A-Z]{1,3}-[0-9A-Z-]+", view: "summary" });
    expect(subjectAndHtml.body.data.codes).toEqual(["T-4410", "REF-88213", "REF-10001", "ZX-9912-QQ"]);
  });

  test("without a group the whole match; (?i) ignores case; at most five", async () => {
    expect((await show(msg.id, { pattern: "PIN is \\d{4}" })).body.data.codes).toEqual(["PIN is 7741"]);
    expect((await show(msg.id, { pattern: "(?i)pin is (\\d+)" })).body.data.codes).toEqual(["7741"]);
    expect((await show(msg.id, { pattern: "\\w+" })).body.data.codes).toHaveLength(5);
  });

  test("no match gives codes: []; without pattern the extracted codes stay", async () => {
    expect((await show(msg.id, { pattern: "nothing-like-this-\\d+" })).body.data.codes).toEqual([]);
    expect((await show(msg.id, {})).body.data.codes).toEqual(["7741"]);
  });

  test("an invalid or too long pattern is 422 validation_error in the envelope, with the reason", async () => {
    const bad = await show(msg.id, { pattern: "REF-(\\d+" });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe("validation_error");
    expect(bad.body.message).toContain("pattern");
    expect(bad.body.details).toMatchObject({ field: "pattern" });
    expect(typeof bad.body.details.reason).toBe("string");
    expect(bad.body.request_id).toBeTruthy();
    const long = await show(msg.id, { pattern: "a".repeat(257) });
    expect(long.status).toBe(422);
    expect(long.body.code).toBe("validation_error");
  });

  test("a pattern that backtracks without end is stopped at the time limit (422), and the next one runs", async () => {
    await send(inbox.address, "Slow", { text: `${"a".repeat(40_000)}!` });
    const slow = await nextMessage(inst, inbox.id, msg.id);
    const r = await show(slow.id, { pattern: "(a+)+$" });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("validation_error");
    expect(r.body.details).toMatchObject({ field: "pattern", time_limit_ms: 250 });
    expect((await show(msg.id, { pattern: "PIN is (\\d+)" })).body.data.codes).toEqual(["7741"]);
  });

  test("latest takes pattern too (an invalid one before any waiting)", async () => {
    const r = await json(
      inst.api(
        `/v1/inboxes/${inbox.id}/messages/latest?${new URLSearchParams({ pattern: "Activation key: (\\S+)", after: msg.id, wait: "0" })}`,
      ),
    );
    expect(r.status).toBe(200);
    expect(r.body.data.codes).toEqual([]);
    const first = await json(
      inst.api(`/v1/inboxes/${inbox.id}/messages/latest?${new URLSearchParams({ pattern: "key: (\\S+)", q: "subject:ticket" })}`),
    );
    expect(first.body.data.id).toBe(msg.id);
    expect(first.body.data.codes).toEqual(["ZX-9912-QQ"]);
    const t0 = Date.now();
    const bad = await json(
      inst.api(`/v1/inboxes/${inbox.id}/messages/latest?${new URLSearchParams({ pattern: "(", wait: "5", after: msg.id })}`),
    );
    expect(bad.status).toBe(422);
    expect(Date.now() - t0).toBeLessThan(4_000);
  });
});

describe("MCP get_verification_code with pattern and q", () => {
  const data = (r: any) => r.structuredContent ?? JSON.parse(r.content[0].text);

  async function mcp() {
    const t = new StreamableHTTPClientTransport(new URL(`${inst.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${inst.key}` } },
    });
    const client = new Client({ name: "extraction-test", version: "1.0.0" });
    await client.connect(t);
    return { client, t };
  }

  test("q picks the newest matching message of the inbox; pattern replaces the extracted codes", async () => {
    const inbox = await createInbox(inst);
    await send(inbox.address, "Your login code", { text: "Your login code is 551902." });
    const first = await nextMessage(inst, inbox.id);
    await send(inbox.address, "Weekly news", { text: "Nothing here, order 77120 shipped." });
    await nextMessage(inst, inbox.id, first.id);
    const { client, t } = await mcp();
    try {
      const newest = data(await client.callTool({ name: "get_verification_code", arguments: { inbox_id: inbox.id } }));
      expect(newest.codes).toEqual([]);
      const byQ = data(
        await client.callTool({ name: "get_verification_code", arguments: { inbox_id: inbox.id, q: 'subject:"login code"' } }),
      );
      expect(byQ).toEqual({ message_id: first.id, code: "551902", codes: ["551902"] });
      const byPattern = data(
        await client.callTool({ name: "get_verification_code", arguments: { inbox_id: inbox.id, pattern: "order (\\d+)" } }),
      );
      expect(byPattern.code).toBe("77120");
      const both = data(
        await client.callTool({
          name: "get_verification_code",
          arguments: { inbox_id: inbox.id, q: "subject:login", pattern: "is (\\d{3})" },
        }),
      );
      expect(both).toEqual({ message_id: first.id, code: "551", codes: ["551"] });
      const byId = data(
        await client.callTool({ name: "get_verification_code", arguments: { message_id: first.id, pattern: "code is (\\d+)" } }),
      );
      expect(byId.codes).toEqual(["551902"]);

      const invalid: any = await client.callTool({ name: "get_verification_code", arguments: { message_id: first.id, pattern: "(" } });
      expect(invalid.isError).toBe(true);
      expect(data(invalid).error.code).toBe("validation_error");
      const badQ: any = await client.callTool({ name: "get_verification_code", arguments: { inbox_id: inbox.id, q: 'subject:"open' } });
      expect(badQ.isError).toBe(true);
      expect(data(badQ).error.code).toBe("validation_error");
      const noMatch: any = await client.callTool({
        name: "get_verification_code",
        arguments: { inbox_id: inbox.id, q: "subject:nonexistent" },
      });
      expect(noMatch.isError).toBe(true);
      expect(data(noMatch).error.code).toBe("not_found");
      const qWithId: any = await client.callTool({ name: "get_verification_code", arguments: { message_id: first.id, q: "x" } });
      expect(qWithId.isError).toBe(true);

      const msg = data(await client.callTool({ name: "get_message", arguments: { inbox_id: inbox.id, q: "subject:login" } }));
      expect(msg.id).toBe(first.id);
      expect(msg.untrusted.provenance).toBe("third-party-email");
      const links = data(await client.callTool({ name: "get_links", arguments: { inbox_id: inbox.id, q: "subject:login" } }));
      expect(links).toMatchObject({ message_id: first.id, links_count: 0, untrusted: { provenance: "third-party-email", links: [] } });
    } finally {
      await t.terminateSession();
      await client.close();
    }
  });
});
