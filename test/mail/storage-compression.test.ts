// Storage close to the raw size (issue 19, migration 0024): raw messages and HTML bodies are kept
// as zstd frames where it pays, and a message.received event leaves the log with its message.
// Every read answers as before: REST /raw, IMAP BODY[] and POP3 RETR give the bytes as received,
// the message views and /html the same bodies, IMAP SEARCH BODY finds words of a compressed HTML
// body; rows in the format written before 0024 (plain bytes, html_body as text) still read the same.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, type Instance } from "../support/harness";
import { connected, newBox, sendRawMail, type Box } from "../support/imap";
import { Pop3Client } from "../support/pop3-client";
import { withDatabaseFile } from "../support/sqlite-file";
import { createInbox, sendRaw, storedId } from "../support/mail";
import { Receiver, registerWebhook } from "../support/webhook-receiver";
import { sqliteOnlyDescribe } from "../support/test-database";
import { withDatabase } from "../support/database-rows";

let inst: Instance;
let rx: Receiver;
beforeAll(async () => {
  rx = await Receiver.start();
  inst = await startInboxd({ INBOXD_WEBHOOK_BACKOFF_BASE_MS: "400" });
});
afterAll(async () => {
  rx.stop();
  await inst.stop();
  inst.cleanup();
});

/** A multipart message with a long, compressible HTML part and 8-bit bytes that are not UTF-8. */
function message(to: string, word: string): Buffer {
  const rows = Array.from(
    { length: 120 },
    (_, i) => `<tr><td style="padding:4px 40px;color:#6b7280">Footer line ${i} of the template</td></tr>`,
  ).join("\r\n");
  const html = `<html><body><table>${rows}<tr><td>Your ${word} code is 481516</td></tr></table></body></html>`;
  const head =
    `From: Sender <sender@example.com>\r\nTo: <${to}>\r\nSubject: compressed ${word}\r\nMessage-ID: <${word}@example.com>\r\n` +
    `MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary="b1"\r\n\r\n`;
  const text = `--b1\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\nCaf\xe9 ${"plain words ".repeat(40)}\r\n`;
  const htmlPart = `--b1\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html}\r\n--b1--\r\n`;
  return Buffer.concat([Buffer.from(head), Buffer.from(text, "latin1"), Buffer.from(htmlPart)]);
}

/** Everything a client can read of a message, for before/after comparisons. */
async function readAll(box: Box, id: string, word: string) {
  const raw = Buffer.from(await (await inst.api(`/v1/messages/${id}/raw`)).arrayBuffer());
  const full = (await json(inst.api(`/v1/messages/${id}`))).body.data;
  const html = (await json(inst.api(`/v1/messages/${id}/html?remote=allow`))).body.data;
  const c = await connected(inst, box);
  let imapRaw: Buffer;
  let found: number[];
  try {
    await c.mailboxOpen("INBOX");
    imapRaw = ((await c.fetchOne("1", { source: true })) as { source: Buffer }).source;
    found = (await c.search({ body: `${word} code` })) as number[];
  } finally {
    await c.logout();
  }
  const p = await Pop3Client.connect(inst.ports.pop3!);
  await p.line();
  await p.login(box.address, box.password);
  const retr = (await p.multi("RETR 1")).body;
  p.close();
  return { raw, full, html, imapRaw, found, retr };
}

const rowsOf = (id: string) =>
  withDatabaseFile(
    inst.dataDir,
    (db) =>
      db
        .query(
          `SELECT m.html_body, m.html_z, m.text_z, b.key, b.codec, b.raw_size, length(b.bytes) AS stored FROM messages m
             JOIN blobs_inline b ON b.key = m.blob_key WHERE m.id = ?`,
        )
        .get(id) as {
        html_body: string | null;
        html_z: Uint8Array | null;
        text_z: Uint8Array | null;
        key: string;
        codec: number;
        raw_size: number;
        stored: number;
      },
    { readonly: true },
  );

sqliteOnlyDescribe("zstd bodies and blobs_inline codecs are the SQLite engine's; PostgreSQL stores plain text and lets TOAST compress")(
  "compressed storage",
  () => {
    test("raw bytes are stored compressed and read back identical over REST, IMAP and POP3; bodies and search unchanged", async () => {
      const box = await newBox(inst);
      const sent = message(box.address, "alpha");
      await sendRawMail(inst, box.address, sent);
      const id = (await json(inst.api(`/v1/inboxes/${box.id}/messages`))).body.data[0].id;
      const row = rowsOf(id);
      expect(row.codec).toBe(1);
      expect(row.stored).toBeLessThan(sent.byteLength / 3);
      expect(row.html_body).toBeNull();
      expect(row.html_z).not.toBeNull();
      expect(row.text_z).not.toBeNull();

      const r = await readAll(box, id, "alpha");
      // The bytes sent, byte for byte; their sha256 is the blob's key (content addressing).
      expect(r.raw.equals(sent)).toBe(true);
      expect(new Bun.CryptoHasher("sha256").update(r.raw).digest("hex")).toBe(row.key);
      expect(row.raw_size).toBe(r.raw.byteLength);
      expect(r.imapRaw.equals(r.raw)).toBe(true);
      expect(r.retr.equals(r.raw)).toBe(true);
      expect(r.full.size_bytes).toBe(r.raw.byteLength);
      expect(r.full.has_html).toBe(true);
      expect(r.full.text).toContain("Café plain words");
      expect(r.html.html).toContain("Your alpha code is 481516");
      expect(r.full.codes).toEqual(["481516"]);
      // A word only the HTML part holds: found through the index, confirmed on the decompressed body.
      expect(r.found).toEqual([1]);
      const search = (await json(inst.api(`/v1/messages?inbox_id=${box.id}&q=${encodeURIComponent("alpha code")}`))).body;
      expect(search.data.map((m: { id: string }) => m.id)).toEqual([id]);
    });

    test("an IMAP COPY of a compressed message keeps its bodies (the copy carries every column, the compressed ones too)", async () => {
      const box = await newBox(inst);
      await sendRawMail(inst, box.address, message(box.address, "charlie"));
      const id = (await json(inst.api(`/v1/inboxes/${box.id}/messages`))).body.data[0].id;
      expect(rowsOf(id).html_z).not.toBeNull();
      const original = (await json(inst.api(`/v1/messages/${id}`))).body.data;
      const c = await connected(inst, box);
      try {
        await c.mailboxCreate("Kept");
        await c.mailboxOpen("INBOX");
        await c.messageCopy("1", "Kept");
      } finally {
        await c.logout();
      }
      const copies = (await json(inst.api(`/v1/inboxes/${box.id}/messages?folder=Kept`))).body.data;
      expect(copies).toHaveLength(1);
      const copy = (await json(inst.api(`/v1/messages/${copies[0].id}`))).body.data;
      expect(copy.id).not.toBe(id);
      expect(copy.text).toBe(original.text);
      expect(copy.has_html).toBe(true);
      expect((await json(inst.api(`/v1/messages/${copy.id}/html`))).body.data.html).toContain("Your charlie code is 481516");
      expect(copy.codes).toEqual(["481516"]);
    });

    test("rows in the format written before migration 0024 (bytes as received, html_body as text) read the same", async () => {
      const box = await newBox(inst);
      const sent = message(box.address, "bravo");
      await sendRawMail(inst, box.address, sent);
      const id = (await json(inst.api(`/v1/inboxes/${box.id}/messages`))).body.data[0].id;
      const before = await readAll(box, id, "bravo");
      // Rewrite both rows as the old code left them: what ALTER TABLE ... ADD COLUMN gives old rows.
      withDatabaseFile(inst.dataDir, (db) => {
        const { text_z, html_z, blob_key } = db.query("SELECT text_z, html_z, blob_key FROM messages WHERE id = ?").get(id) as {
          text_z: Uint8Array;
          html_z: Uint8Array;
          blob_key: string;
        };
        const plain = (z: Uint8Array) => new TextDecoder().decode(Bun.zstdDecompressSync(z));
        db.query("UPDATE messages SET text_body = ?, text_z = NULL, html_body = ?, html_z = NULL WHERE id = ?").run(
          plain(text_z),
          plain(html_z),
          id,
        );
        const { bytes } = db.query("SELECT bytes FROM blobs_inline WHERE key = ?").get(blob_key) as { bytes: Uint8Array };
        db.query("UPDATE blobs_inline SET bytes = ?, codec = 0, raw_size = NULL WHERE key = ?").run(
          Bun.zstdDecompressSync(bytes),
          blob_key,
        );
      });
      const row = rowsOf(id);
      expect(row.codec).toBe(0);
      expect(row.html_z).toBeNull();
      expect(row.text_z).toBeNull();
      const after = await readAll(box, id, "bravo");
      expect(after.raw.equals(before.raw)).toBe(true);
      expect(after.imapRaw.equals(before.raw)).toBe(true);
      expect(after.retr.equals(before.raw)).toBe(true);
      expect(after.full).toEqual(before.full);
      expect(after.html).toEqual(before.html);
      expect(after.found).toEqual([1]);
    });

    test("a short or incompressible message is stored as it is", async () => {
      const inbox = await createInbox(inst);
      const sent = Buffer.from("Subject: tiny\r\n\r\nhi\r\n");
      const id = storedId((await sendRaw(inst, inbox.address, sent)).response);
      const row = rowsOf(id);
      expect(row.codec).toBe(0);
      const raw = Buffer.from(await (await inst.api(`/v1/messages/${id}/raw`)).arrayBuffer());
      expect(raw.equals(sent)).toBe(true);
      expect(row.stored).toBe(raw.byteLength);
    });
  },
);

describe("the event log follows its messages", () => {
  const events = async (after = 0) => {
    const ctl = new AbortController();
    const res = await inst.api(`/v1/events?last_event_id=${after}`, { signal: ctl.signal });
    const reader = res.body!.getReader();
    let text = "";
    const deadline = Date.now() + 1500;
    while (Date.now() < deadline && !text.includes(": heartbeat")) {
      const r = await Promise.race([reader.read(), Bun.sleep(300).then(() => null)]);
      if (r === null) break;
      if (r.done) break;
      text += new TextDecoder().decode(r.value);
    }
    ctl.abort();
    return [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as { type: string; data: { id?: string } });
  };
  const receivedIds = async () => (await events()).filter((e) => e.type === "message.received").map((e) => e.data.id);

  test("a deleted message's message.received event leaves the log; the others stay", async () => {
    const inbox = await createInbox(inst);
    const gone = storedId((await sendRaw(inst, inbox.address, "Subject: gone\r\n\r\nbye\r\n")).response);
    const kept = storedId((await sendRaw(inst, inbox.address, "Subject: kept\r\n\r\nstay\r\n")).response);
    expect(await receivedIds()).toEqual(expect.arrayContaining([gone, kept]));
    expect((await inst.api(`/v1/messages/${gone}`, { method: "DELETE" })).status).toBe(204);
    const ids = await receivedIds();
    expect(ids).toContain(kept);
    expect(ids).not.toContain(gone);
    const left = (await withDatabase(inst.dataDir, (db) => db.get("SELECT COUNT(*) AS n FROM events WHERE message_id = ?", [gone]))) as {
      n: number;
    };
    expect(left.n).toBe(0);
  });

  test("an event whose webhook delivery is still pending stays until it is delivered", async () => {
    const inbox = await createInbox(inst);
    await registerWebhook(inst, { url: rx.url("/late"), inbox_id: inbox.id });
    rx.on("/late", (_r, nth) => (nth === 1 ? { status: 500, body: "not yet" } : { status: 204 }));
    const id = storedId((await sendRaw(inst, inbox.address, "Subject: late\r\n\r\nlate\r\n")).response);
    await rx.waitFor((g) => (g.some((x) => x.path === "/late") ? true : null));
    expect((await inst.api(`/v1/messages/${id}`, { method: "DELETE" })).status).toBe(204);
    const got = await rx.waitFor((g) => {
      const late = g.filter((x) => x.path === "/late");
      return late.length >= 2 ? late : null;
    });
    // The retry after the deletion still carries the event's payload.
    expect(JSON.parse(got[1]!.body)).toMatchObject({ type: "message.received", data: { id } });
  });
});
