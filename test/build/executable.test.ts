// The shipped executable: built here by the command `npm run build` runs (package.json), then used as a
// user would. What only the executable exercises: its worker threads load from the embedded file system
// ($bunfs: parse, search index, SPF/DKIM check, checkpoints), the modules that load at their first use
// (Swagger UI's bundle, the MCP SDK, mailauth) must be inside it, and the web UI is the embedded bundle.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildExecutable } from "../support/command";
import { json, startInboxd, type Instance } from "../support/harness";
import { connected, newBox } from "../support/imap";
import { createInbox, nextMessage, transport } from "../support/mail";
import { startTestDns, type TestDns } from "../support/dns-server";

const work = mkdtempSync(join(tmpdir(), "inboxd-exe-"));
const executable = join(work, "inboxd");
let dns: TestDns;
let inst: Instance;

beforeAll(async () => {
  buildExecutable(executable);
  dns = await startTestDns();
  dns.set("shop.test", { type: "TXT", value: "v=spf1 ip4:127.0.0.1 -all" });
  // A data directory of its own, empty: the executable makes its certificate at this first start.
  inst = await startInboxd({ INBOXD_DNS_SERVERS: `127.0.0.1:${dns.port}` }, join(work, "data"), [executable]);
}, 120_000);

afterAll(async () => {
  await inst?.stop();
  inst?.cleanup();
  await dns?.close();
  rmSync(work, { recursive: true, force: true });
});

describe("the executable of `npm run build`", () => {
  test("takes mail over SMTP and shows it parsed, searchable and SPF-checked", async () => {
    const inbox = await createInbox(inst, { name: "exe" });
    const t = transport(inst, { name: "mx.shop.test" });
    try {
      await t.sendMail({
        from: "Shop <orders@shop.test>",
        to: inbox.address,
        subject: "Your sign-in code",
        text: "Your code is 482913. It expires in 10 minutes.",
        // Over 64 KiB, so a parse worker reads it (smaller mail is parsed on the event loop).
        attachments: [{ filename: "receipt.pdf", content: randomBytes(100 * 1024) }],
      });
    } finally {
      t.close();
    }
    const m = await nextMessage(inst, inbox.id);
    expect(m.subject).toBe("Your sign-in code");
    expect(m.codes).toContain("482913");
    expect(m.attachments.map((a: { filename: string; size_bytes: number }) => [a.filename, a.size_bytes])).toEqual([
      ["receipt.pdf", 100 * 1024],
    ]);

    const found = await json(inst.api(`/v1/inboxes/${inbox.id}/messages?q=${encodeURIComponent("code:482913")}`));
    expect(found.status).toBe(200);
    expect(found.body.data.map((x: { id: string }) => x.id)).toEqual([m.id]);

    const auth = await json(inst.api(`/v1/messages/${m.id}/analysis/auth`));
    expect(auth.status).toBe(200);
    expect(auth.body.data.spf).toMatchObject({ result: "pass", domain: "shop.test" });
  }, 60_000);

  test("serves the embedded web UI, /docs with Swagger UI's bundle, and MCP", async () => {
    const page = await fetch(`${inst.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("/ui/app.js?v=");
    const bundle = await fetch(`${inst.url}/docs/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(1_000_000);
    const init = await fetch(`${inst.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${inst.key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "exe-test", version: "1" } },
      }),
    });
    expect(init.status).toBe(200);
    expect((await init.json()).result.serverInfo.name).toBe("inboxd");
  }, 30_000);

  test("IMAP over TLS with the certificate it made at first start; no worker fell back; mail survives kill -9", async () => {
    expect(existsSync(join(inst.dataDir, "tls.crt"))).toBe(true);
    const box = await newBox(inst);
    const t = transport(inst);
    try {
      await t.sendMail({ from: "a@example.com", to: box.address, subject: "over imap", text: "hello" });
    } finally {
      t.close();
    }
    await nextMessage(inst, box.id);
    const c = await connected(inst, box);
    try {
      const lock = await c.getMailboxLock("INBOX");
      try {
        const subjects: string[] = [];
        for await (const msg of c.fetch("1:*", { envelope: true })) subjects.push(msg.envelope!.subject!);
        expect(subjects).toEqual(["over imap"]);
      } finally {
        lock.release();
      }
    } finally {
      await c.logout();
    }
    // A worker that cannot load falls back to the event loop and says so at level ERROR: none did.
    expect(
      inst
        .output()
        .split("\n")
        .filter((l) => / ERROR /.test(l)),
    ).toEqual([]);

    await inst.kill();
    inst = await inst.restart();
    const list = await json(inst.api(`/v1/inboxes/${box.id}/messages`));
    expect(list.body.data.map((x: { subject: string }) => x.subject)).toEqual(["over imap"]);
  }, 60_000);
});
