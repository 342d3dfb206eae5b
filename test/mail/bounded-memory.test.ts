// Bounded memory under large mail (issue 18, docs/security.md "Bounded memory"): 40 senders of
// 24 MB messages at once keep the server's RSS under a stated bound, RSS comes back near its
// baseline afterwards, and every message is stored byte for byte. A small in-flight budget
// (INBOXD_INFLIGHT_BYTES) answers 452 4.3.1 at MAIL (SIZE=) and at the end of DATA, stores
// nothing of the refused mail, takes later mail, and refuses an HTTP import with 503 server_busy.
// Timing figures (/healthz under this load) are printed by bench/large-messages.ts, not asserted.
//
// Cost: the 40 x 24 MB case moves ~1 GB in and ~1 GB back out (/raw) and takes ~25 s alone on two
// cores (50-70 s inside the test command); it stays in the suite because it is the acceptance of the issue.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { json, startInboxd, type Instance } from "../support/harness";
import { code, createInbox, SmtpDialog } from "../support/mail";
import { largeMessage, messageBytes, rssOf, sendLarge, wholeMessage } from "../support/large-mail";

const MB = 1024 * 1024;
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
// Where a message being received is spooled: blobs/tmp on SQLite, spool/ on PostgreSQL (storage/open.ts).
const tmpFiles = (inst: Instance) =>
  [join(inst.dataDir, "blobs", "tmp"), join(inst.dataDir, "spool")].flatMap((dir) => (existsSync(dir) ? readdirSync(dir) : []));

/** The sha256 of a message's /raw, hashed as it streams in (a client buffering 24 MB from Bun's fetch is slow). */
async function rawSha(inst: Instance, id: string): Promise<string> {
  const r = await inst.api(`/v1/messages/${id}/raw`);
  expect(r.status).toBe(200);
  // Streamed from the blob store as it is read (chunked), not buffered whole first (which would carry a Content-Length).
  expect(r.headers.get("transfer-encoding")).toBe("chunked");
  const hash = createHash("sha256");
  for await (const chunk of r.body!) hash.update(chunk);
  return hash.digest("hex");
}

async function messageIds(inst: Instance, inboxId: string): Promise<string[]> {
  const r = await json(inst.api(`/v1/inboxes/${inboxId}/messages?limit=100&view=summary`));
  expect(r.status).toBe(200);
  return r.body.data.map((m: { id: string }) => m.id);
}

/** One transaction on an open dialog: the reply to the end of DATA. */
async function transact(d: SmtpDialog, to: string, bytes: Buffer): Promise<string> {
  expect(code(await d.cmd("MAIL FROM:<s@example.com>"))).toBe(250);
  expect(code(await d.cmd(`RCPT TO:<${to}>`))).toBe(250);
  expect(code(await d.cmd("DATA"))).toBe(354);
  d.write(bytes);
  d.write(".\r\n");
  return d.reply(60_000);
}

describe("40 concurrent 24 MB messages", () => {
  // Stated bounds (docs/security.md): before this work the same load peaked at 4.8 GB and kept
  // 2.1 GB; now it peaks at 0.4-0.5 GB (0.6-0.9 GB before long base64 bodies were decoded natively) and returns to within ~50-200 MB of its baseline.
  const PEAK_BOUND = 1536 * MB;
  const AFTER_MARGIN = 256 * MB;
  let inst: Instance;
  beforeAll(async () => {
    inst = await startInboxd({ INBOXD_PLAN: "business", INBOXD_LOG_LEVEL: "warn" });
  });
  afterAll(async () => {
    await inst.stop();
    inst.cleanup();
  });

  test("RSS stays under the bound, comes back near the baseline, and all 40 are stored byte for byte", async () => {
    const inbox = await createInbox(inst, { name: "large" });
    await Bun.sleep(300);
    const pid = inst.proc.pid;
    const baseline = rssOf(pid);
    const m = largeMessage(24 * MB);
    let peak = baseline;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, rssOf(pid));
        await Bun.sleep(50);
      }
    })();
    const sent = await Promise.all(Array.from({ length: 40 }, (_, i) => sendLarge(inst.ports.smtp!, inbox.address, m, i)));
    // RSS after: the server gives memory back once the burst (and its SPF/DKIM checks) is done.
    let after = rssOf(pid);
    for (let i = 0; i < 150 && after > baseline + AFTER_MARGIN; i++) {
      await Bun.sleep(100);
      after = rssOf(pid);
    }
    sampling = false;
    await sampler;
    console.log(`RSS baseline ${(baseline / MB).toFixed(0)} MB, peak ${(peak / MB).toFixed(0)} MB, after ${(after / MB).toFixed(0)} MB`);
    expect(sent.map((s) => s.reply.slice(0, 3))).toEqual(Array(40).fill("250"));
    expect(peak).toBeLessThan(PEAK_BOUND);
    expect(after).toBeLessThan(baseline + AFTER_MARGIN);

    // Byte for byte: the sha256 of each /raw equals that of the bytes sent.
    const want = new Map(sent.map((s) => [sha(messageBytes(m, s.head)), true]));
    const ids = await messageIds(inst, inbox.id);
    expect(ids).toHaveLength(40);
    const got = new Set<string>();
    for (const id of ids) got.add(await rawSha(inst, id));
    expect([...got].sort()).toEqual([...want.keys()].sort());
    expect(tmpFiles(inst)).toEqual([]);
  }, 180_000);
});

describe("the in-flight budget (INBOXD_INFLIGHT_BYTES = 8 MiB)", () => {
  let inst: Instance;
  let inbox: { id: string; address: string };
  const m = largeMessage(10 * MB);
  const fits = largeMessage(6 * MB);
  let kept: { id: string; sha: string };
  beforeAll(async () => {
    inst = await startInboxd({ INBOXD_PLAN: "business", INBOXD_INFLIGHT_BYTES: String(8 * MB), INBOXD_LOG_LEVEL: "warn" });
    inbox = await createInbox(inst, { name: "budget" });
  });
  afterAll(async () => {
    await inst.stop();
    inst.cleanup();
  });

  test("MAIL FROM with SIZE= over what the budget has left: 452 4.3.1", async () => {
    const { dialog } = await SmtpDialog.open(inst.ports.smtp!);
    expect(code(await dialog.cmd("EHLO t.example"))).toBe(250);
    expect(await dialog.cmd(`MAIL FROM:<s@example.com> SIZE=${10 * MB}`)).toMatch(/^452 4\.3\.1 /);
    expect(code(await dialog.cmd(`MAIL FROM:<s@example.com> SIZE=${1 * MB}`))).toBe(250);
    dialog.close();
  });

  test("DATA that outgrows the budget is read to its end, refused with 452 4.3.1, stored nowhere; the next mail is taken", async () => {
    const { dialog } = await SmtpDialog.open(inst.ports.smtp!);
    expect(code(await dialog.cmd("EHLO t.example"))).toBe(250);
    expect(await transact(dialog, inbox.address, wholeMessage(m, inbox.address, 1))).toMatch(/^452 4\.3\.1 /);
    // Same connection: the refusal lined up with the end of the data, and the budget is free again.
    const small = Buffer.from(`From: a@example.com\r\nTo: ${inbox.address}\r\nSubject: after the refusal\r\n\r\nhello\r\n`);
    expect(await transact(dialog, inbox.address, small)).toMatch(/^250 2\.0\.0 stored /);
    const big = wholeMessage(fits, inbox.address, 2);
    const reply = await transact(dialog, inbox.address, big);
    expect(reply).toMatch(/^250 2\.0\.0 stored /);
    dialog.close();
    const ids = await messageIds(inst, inbox.id);
    expect(ids).toHaveLength(2);
    const id = /stored ([0-9A-Z]{26})/.exec(reply)![1]!;
    expect(await rawSha(inst, id)).toBe(sha(big));
    kept = { id, sha: sha(big) };
    // Its ~4.5 MB attachment (a blob of its own, above the inline limit) downloads byte for byte, streamed.
    const [att] = (await json(inst.api(`/v1/messages/${id}`))).body.data.attachments;
    expect(att.size_bytes).toBeGreaterThan(4 * MB);
    const r = await inst.api(`/v1/messages/${id}/attachments/${att.id}`);
    expect(r.status).toBe(200);
    expect(r.headers.get("transfer-encoding")).toBe("chunked");
    const attBytes = new Uint8Array(await r.arrayBuffer());
    expect({ sha: sha(attBytes), size: attBytes.byteLength }).toEqual({ sha: att.sha256, size: att.size_bytes });
    expect(tmpFiles(inst)).toEqual([]);
  }, 60_000);

  test("a BDAT chunk that outgrows the budget: 452 4.3.1 after the chunk, nothing stored, the connection goes on", async () => {
    const { dialog } = await SmtpDialog.open(inst.ports.smtp!);
    expect(code(await dialog.cmd("EHLO t.example"))).toBe(250);
    expect(code(await dialog.cmd("MAIL FROM:<s@example.com>"))).toBe(250);
    expect(code(await dialog.cmd(`RCPT TO:<${inbox.address}>`))).toBe(250);
    const chunk = wholeMessage(m, inbox.address, 5);
    dialog.write(`BDAT ${chunk.length} LAST\r\n`);
    dialog.write(chunk);
    expect(await dialog.reply(60_000)).toMatch(/^452 4\.3\.1 /);
    expect(code(await dialog.cmd("RSET"))).toBe(250);
    expect(code(await dialog.cmd("NOOP"))).toBe(250);
    dialog.close();
    expect(await messageIds(inst, inbox.id)).toHaveLength(2);
    expect(tmpFiles(inst)).toEqual([]);
  }, 60_000);

  test("an HTTP import the budget cannot take: 503 server_busy in the error envelope, with Retry-After", async () => {
    const r = await inst.api(`/v1/inboxes/${inbox.id}/messages`, {
      method: "POST",
      headers: { "content-type": "message/rfc822" },
      body: new Uint8Array(wholeMessage(m, inbox.address, 3)),
    });
    expect(r.status).toBe(503);
    expect(r.headers.get("retry-after")).toBe("5");
    const body = await r.json();
    expect(body.code).toBe("server_busy");
    expect(typeof body.request_id).toBe("string");
    expect(await messageIds(inst, inbox.id)).toHaveLength(2);
  });

  test("kill -9 mid-DATA leaves no temp file after restart, and what got its 250 is intact", async () => {
    const { dialog } = await SmtpDialog.open(inst.ports.smtp!);
    expect(code(await dialog.cmd("EHLO t.example"))).toBe(250);
    expect(code(await dialog.cmd("MAIL FROM:<s@example.com>"))).toBe(250);
    expect(code(await dialog.cmd(`RCPT TO:<${inbox.address}>`))).toBe(250);
    expect(code(await dialog.cmd("DATA"))).toBe(354);
    const partial = wholeMessage(fits, inbox.address, 4);
    dialog.write(partial.subarray(0, 3 * MB));
    for (let i = 0; i < 100 && tmpFiles(inst).length === 0; i++) await Bun.sleep(50);
    expect(tmpFiles(inst).length).toBe(1); // the message is being spooled, not held in memory
    await inst.kill();
    dialog.close();
    expect(tmpFiles(inst).length).toBe(1);
    const again = await inst.restart();
    inst = again;
    expect(tmpFiles(inst)).toEqual([]);
    expect(await rawSha(inst, kept.id)).toBe(kept.sha);
    expect(await messageIds(inst, inbox.id)).toHaveLength(2);
  }, 60_000);
});
