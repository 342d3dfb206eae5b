// Import (message/rfc822, stored byte for byte) and compose (JSON → MIME) through
// POST /v1/inboxes/{id}/messages: an awkward corpus read back unchanged from /raw, parsed fields,
// attachments, validation, size and quota refusals, tenancy, counts and usage, and IMAP/POP3.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { addUser, json, login, startInboxd, ULID, type Instance } from "../support/harness";
import { createInbox } from "../support/mail";
import { withDatabase } from "../support/database-rows";
import { Pop3Client } from "../support/pop3-client";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd({ INBOXD_SMTP_MAX_BYTES: "200000" });
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const enc = (s: string) => new TextEncoder().encode(s);

function importRaw(target: Instance, inboxId: string, raw: Uint8Array, headers: Record<string, string> = {}) {
  return json(
    target.api(`/v1/inboxes/${inboxId}/messages`, {
      method: "POST",
      headers: { "content-type": "message/rfc822", ...headers },
      body: raw as unknown as BodyInit,
    }),
  );
}

async function rawOf(target: Instance, id: string): Promise<Uint8Array> {
  const r = await target.api(`/v1/messages/${id}/raw`);
  expect(r.status).toBe(200);
  return new Uint8Array(await r.arrayBuffer());
}

/** 0..255 twice, so every byte value (NUL, CR, LF, 0xFF) sits in a binary part. */
const BINARY = new Uint8Array(512).map((_, i) => i % 256);

const CORPUS: Record<string, Uint8Array> = {
  crlf: enc(
    "From: Shop <shop@example.com>\r\nTo: someone@example.net\r\nSubject: Your code is 482913\r\nMessage-ID: <crlf@example.com>\r\n\r\nYour verification code is 482913.\r\n",
  ),
  bareLf: enc("From: lf@example.com\nSubject: bare LF lines\n\nline one\nline two\n"),
  mixedEndings: enc("From: mixed@example.com\r\nSubject: mixed endings\n\r\nfirst\r\nsecond\nthird\r\n"),
  eightBitHeaders: enc(
    "From: Zoë Müller <zoe@example.com>\r\nSubject: Grüße — код 7391\r\nX-Note: naïve café\r\n\r\nHallo, dein Code ist 7391.\r\n",
  ),
  foldedHeader: enc(
    `From: fold@example.com\r\nSubject: a long folded subject that goes on\r\n and on over\r\n\tseveral continuation lines\r\nX-Long: ${"abcdefghij ".repeat(120).trim()}\r\nReferences: <a@example.com>\r\n <b@example.com>\r\n <c@example.com>\r\n\r\nbody\r\n`,
  ),
  nested: enc(
    [
      "From: nested@example.com",
      "Subject: nested multiparts",
      "MIME-Version: 1.0",
      'Content-Type: multipart/mixed; boundary="outer"',
      "",
      "preamble",
      "--outer",
      'Content-Type: multipart/alternative; boundary="alt"',
      "",
      "--alt",
      "Content-Type: text/plain; charset=utf-8",
      "",
      "plain part 5521",
      "--alt",
      'Content-Type: multipart/related; boundary="rel"',
      "",
      "--rel",
      "Content-Type: text/html; charset=utf-8",
      "",
      '<p>html part <img src="cid:logo@x"></p>',
      "--rel",
      "Content-Type: image/gif",
      "Content-ID: <logo@x>",
      "Content-Transfer-Encoding: base64",
      "",
      "R0lGODlhAQABAAAAACw=",
      "--rel--",
      "--alt--",
      "--outer",
      'Content-Type: text/csv; name="list.csv"',
      'Content-Disposition: attachment; filename="list.csv"',
      "",
      "a,b",
      "1,2",
      "--outer--",
      "epilogue",
      "",
    ].join("\r\n"),
  ),
  binaryAttachment: (() => {
    const head = enc(
      'From: bin@example.com\r\nSubject: binary attachment\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b1"\r\n\r\n--b1\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n--b1\r\nContent-Type: application/octet-stream; name="blob.bin"\r\nContent-Disposition: attachment; filename="blob.bin"\r\nContent-Transfer-Encoding: binary\r\n\r\n',
    );
    const tail = enc("\r\n--b1--\r\n");
    const out = new Uint8Array(head.length + BINARY.length + tail.length);
    out.set(head, 0);
    out.set(BINARY, head.length);
    out.set(tail, head.length + BINARY.length);
    return out;
  })(),
  noTrailingNewline: enc("From: nonl@example.com\r\nSubject: no trailing newline\r\n\r\nthe last line has no end"),
  headersOnly: enc("From: headers@example.com\r\nSubject: only headers\r\nX-Empty:\r\n"),
  headersOnlyNoEol: enc("Subject: nothing else"),
};

describe("import (message/rfc822)", () => {
  let inbox: { id: string; address: string };
  const ids: Record<string, string> = {};
  const views: Record<string, any> = {};

  beforeAll(async () => {
    inbox = await createInbox(inst, { name: "import" });
    for (const [name, raw] of Object.entries(CORPUS)) {
      const r = await importRaw(inst, inbox.id, raw);
      if (r.status !== 201) throw new Error(`${name}: ${r.status} ${JSON.stringify(r.body)}`);
      ids[name] = r.body.data.id;
      views[name] = r.body.data;
    }
  });

  test("every message of the awkward corpus comes back from /raw byte for byte", async () => {
    for (const [name, raw] of Object.entries(CORPUS)) {
      const back = await rawOf(inst, ids[name]!);
      expect({ name, sha: sha(back), size: back.byteLength }).toEqual({ name, sha: sha(raw), size: raw.byteLength });
      expect(views[name].size_bytes).toBe(raw.byteLength);
    }
  });

  test("201 answers with the full view; parsed like SMTP mail (subject, codes, 8-bit headers, envelope)", async () => {
    const m = views.crlf;
    expect(m.id).toMatch(ULID);
    expect(m.inbox_id).toBe(inbox.id);
    expect(m.subject).toBe("Your code is 482913");
    expect(m.codes).toEqual(["482913"]);
    expect(m.text).toContain("482913");
    expect(m.envelope).toEqual({ mail_from: "shop@example.com", rcpt_to: [inbox.address] });
    expect(m.from).toEqual({ email: "shop@example.com", name: "Shop" });
    const eight = views.eightBitHeaders;
    expect(eight.subject).toBe("Grüße — код 7391");
    expect(eight.from).toEqual({ email: "zoe@example.com", name: "Zoë Müller" });
    expect(eight.codes).toContain("7391");
    expect(views.foldedHeader.subject).toBe(
      "a long folded subject that goes on and on over\tseveral continuation lines".replace("\t", " ").replace(/ +/g, " "),
    );
    expect(views.bareLf.text).toContain("line two");
    expect(views.noTrailingNewline.text).toContain("the last line has no end");
    expect(views.headersOnly.subject).toBe("only headers");
    expect(views.headersOnlyNoEol.envelope).toEqual({ mail_from: null, rcpt_to: [inbox.address] });
  });

  test("nested multiparts and a binary attachment: bodies, inline part and attachment bytes", async () => {
    const n = views.nested;
    expect(n.text).toContain("plain part 5521");
    expect((await json(inst.api(`/v1/messages/${n.id}/html`))).body.data.html).toContain("html part");
    expect(n.attachments.map((a: any) => a.filename).sort()).toContain("list.csv");
    const b = views.binaryAttachment;
    expect(b.attachments.length).toBe(1);
    const att = b.attachments[0];
    expect(att).toMatchObject({ filename: "blob.bin", size_bytes: BINARY.length, sha256: sha(BINARY) });
    const r = await inst.api(`/v1/messages/${b.id}/attachments/${att.id}`);
    expect(sha(new Uint8Array(await r.arrayBuffer()))).toBe(sha(BINARY));
  });

  test("an imported message is in the list, the search and the inbox counts", async () => {
    const list = await json(inst.api(`/v1/inboxes/${inbox.id}/messages?q=${encodeURIComponent("subject:nested")}`));
    expect(list.body.data.map((m: any) => m.id)).toEqual([ids.nested]);
    const ib = (await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data;
    expect(ib.message_count).toBe(Object.keys(CORPUS).length);
    expect(ib.unread_count).toBe(Object.keys(CORPUS).length);
    const total = Object.values(CORPUS).reduce((s, r) => s + r.byteLength, 0);
    expect(ib.storage.inbox.used_bytes).toBe(total);
  });

  test("visible over POP3: counted, and RETR returns the imported bytes", async () => {
    const creds = (await json(inst.api(`/v1/inboxes/${inbox.id}/credentials`))).body.data;
    const pop = await Pop3Client.connect(inst.ports.pop3!);
    try {
      expect(await pop.line()).toStartWith("+OK");
      expect(await pop.login(creds.username, creds.password)).toStartWith("+OK");
      const stat = await pop.cmd("STAT");
      expect(stat).toStartWith(`+OK ${Object.keys(CORPUS).length} `);
      // Oldest first: the corpus in import order, the CRLF message first.
      const first = await pop.multi("RETR 1");
      expect(first.body.toString("latin1")).toBe(Buffer.from(CORPUS.crlf!).toString("latin1"));
    } finally {
      pop.close();
    }
  });

  test("Idempotency-Key replays the same message; other bytes with the same key are 422", async () => {
    const box = await createInbox(inst);
    const raw = enc("From: idem@example.com\r\nSubject: once\r\n\r\nbody\r\n");
    const a = await importRaw(inst, box.id, raw, { "idempotency-key": "imp-1" });
    const b = await importRaw(inst, box.id, raw, { "idempotency-key": "imp-1" });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.body.data.id).toBe(a.body.data.id);
    const c = await importRaw(inst, box.id, enc("Subject: other\r\n\r\nx\r\n"), { "idempotency-key": "imp-1" });
    expect(c.status).toBe(422);
    expect(c.body.code).toBe("idempotency_key_reused");
    expect((await json(inst.api(`/v1/inboxes/${box.id}`))).body.data.message_count).toBe(1);
  });

  test("over INBOXD_SMTP_MAX_BYTES: 413 payload_too_large, nothing stored", async () => {
    const box = await createInbox(inst);
    const big = new Uint8Array(200_001).fill(0x61);
    big.set(enc("Subject: big\r\n\r\n"));
    const r = await importRaw(inst, box.id, big);
    expect(r.status).toBe(413);
    expect(r.body.code).toBe("payload_too_large");
    expect(r.body.details).toMatchObject({ limit_bytes: 200000 });
    expect((await json(inst.api(`/v1/inboxes/${box.id}`))).body.data.message_count).toBe(0);
  });

  test("an empty body is 422; another content type is 415; no credential 401; a read-only key 403", async () => {
    // Said as an empty import (docs/import.md), not as a compose body missing `from`.
    const empty = await importRaw(inst, inbox.id, new Uint8Array());
    expect([empty.status, empty.body.code]).toEqual([422, "validation_error"]);
    expect(empty.body.message).toStartWith("the message is empty");
    const xml = await json(
      inst.api(`/v1/inboxes/${inbox.id}/messages`, { method: "POST", headers: { "content-type": "text/xml" }, body: "<a/>" }),
    );
    expect(xml.status).toBe(415);
    expect(xml.body.message).toContain("message/rfc822");
    const anon = await json(
      inst.api(`/v1/inboxes/${inbox.id}/messages`, {
        method: "POST",
        token: null,
        headers: { "content-type": "message/rfc822" },
        body: "Subject: x\r\n\r\n",
      }),
    );
    expect(anon.status).toBe(401);
    const key = await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "ro", scopes: ["messages:read"] } }));
    expect(key.status).toBe(201);
    const ro = await json(
      inst.api(`/v1/inboxes/${inbox.id}/messages`, {
        method: "POST",
        token: key.body.data.key ?? key.body.data.secret ?? key.body.data.token,
        headers: { "content-type": "message/rfc822" },
        body: "Subject: x\r\n\r\n",
      }),
    );
    expect(ro.status).toBe(403);
  });

  test("message/rfc822 is refused on any other route (415)", async () => {
    const r = await json(
      inst.api("/v1/inboxes", { method: "POST", headers: { "content-type": "message/rfc822" }, body: "Subject: x\r\n\r\n" }),
    );
    expect(r.status).toBe(415);
  });
});

describe("compose (JSON)", () => {
  let inbox: { id: string; address: string };
  const pdf = new Uint8Array(300).map((_, i) => (i * 7) % 256);
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
  let m: any;

  beforeAll(async () => {
    inbox = await createInbox(inst, { name: "compose" });
    const r = await json(
      inst.api(`/v1/inboxes/${inbox.id}/messages`, {
        method: "POST",
        json: {
          from: "Zoë Shop <shop@example.com>",
          subject: "Bestätigung: code 660712",
          text: "Your code is 660712.\nhttps://example.com/confirm?x=1\n",
          html: '<p>Your code is <b>660712</b>. <a href="https://example.com/confirm?x=1">confirm</a></p>',
          attachments: [
            { filename: "invoice.pdf", content_type: "application/pdf", content_base64: Buffer.from(pdf).toString("base64") },
            { filename: "pixel.png", content_type: "image/png", content_base64: Buffer.from(png).toString("base64") },
          ],
        },
      }),
    );
    if (r.status !== 201) throw new Error(`compose: ${r.status} ${JSON.stringify(r.body)}`);
    m = r.body.data;
  });

  test("a real MIME message: text + html + two attachments, parsed, envelope from the From address", async () => {
    expect(m.subject).toBe("Bestätigung: code 660712");
    expect(m.from).toEqual({ email: "shop@example.com", name: "Zoë Shop" });
    expect(m.to).toEqual([{ email: inbox.address, name: "" }]);
    expect(m.codes).toEqual(["660712"]);
    expect(m.text).toContain("660712");
    expect(m.has_html).toBe(true);
    expect((await json(inst.api(`/v1/messages/${m.id}/html`))).body.data.html).toContain("<b>660712</b>");
    expect(m.links).toEqual([{ url: "https://example.com/confirm?x=1", text: "confirm" }]);
    expect(m.envelope).toEqual({ mail_from: "shop@example.com", rcpt_to: [inbox.address] });
    const raw = new TextDecoder().decode(await rawOf(inst, m.id));
    expect(raw).toContain("MIME-Version: 1.0");
    expect(raw).toMatch(/Content-Type: multipart\/mixed/);
    expect(raw).toMatch(/Content-Type: multipart\/alternative/);
    expect(raw).toContain("\r\n");
  });

  test("attachments download byte-identical", async () => {
    const byName = Object.fromEntries(m.attachments.map((a: any) => [a.filename, a]));
    for (const [name, bytes] of [
      ["invoice.pdf", pdf],
      ["pixel.png", png],
    ] as const) {
      const a = byName[name];
      expect(a).toMatchObject({
        size_bytes: bytes.length,
        sha256: sha(bytes),
        declared_content_type: name.endsWith(".pdf") ? "application/pdf" : "image/png",
      });
      const r = await inst.api(`/v1/messages/${m.id}/attachments/${a.id}`);
      expect(sha(new Uint8Array(await r.arrayBuffer()))).toBe(sha(bytes));
    }
  });

  test("to may name other recipients (the header only: the message is stored in this inbox)", async () => {
    const r = await json(
      inst.api(`/v1/inboxes/${inbox.id}/messages`, {
        method: "POST",
        json: { from: "a@example.com", to: ["x@example.org", "Y <y@example.org>"], subject: "", html: "<p>hi</p>" },
      }),
    );
    expect(r.status).toBe(201);
    expect(r.body.data.to).toEqual([
      { email: "x@example.org", name: "" },
      { email: "y@example.org", name: "Y" },
    ]);
    expect(r.body.data.envelope.rcpt_to).toEqual([inbox.address]);
  });

  test("422 validation_error: missing from or subject, neither text nor html, bad base64, bad address, unknown field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ subject: "s", text: "t" }, "/from"],
      [{ from: "a@example.com", text: "t" }, "/subject"],
      [{ from: "a@example.com", subject: "s" }, "/text"],
      [{ from: "not an address", subject: "s", text: "t" }, "/from"],
      [{ from: "a@example.com", subject: "s\r\nBcc: x@evil", text: "t" }, "/subject"],
      [
        { from: "a@example.com", subject: "s", text: "t", attachments: [{ filename: "a", content_base64: "%%%not base64" }] },
        "/attachments/0/content_base64",
      ],
      [{ from: "a@example.com", subject: "s", text: "t", attachments: [{ content_base64: "AAAA" }] }, "/attachments/0/filename"],
      [
        { from: "a@example.com", subject: "s", text: "t", attachments: [{ filename: "a", content_base64: "AAAA", path: "/etc/passwd" }] },
        "/attachments/0/path",
      ],
      [{ from: "a@example.com", subject: "s", text: 5 }, "/text"],
      [{ from: "a@example.com", subject: "s", text: "t", cc: "x@y.z" }, "/cc"],
    ];
    for (const [body, path] of cases) {
      const r = await json(inst.api(`/v1/inboxes/${inbox.id}/messages`, { method: "POST", json: body }));
      expect({ body, status: r.status, code: r.body.code }).toEqual({ body, status: 422, code: "validation_error" });
      expect(r.body.details.errors.map((e: any) => e.path)).toContain(path);
    }
    expect((await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data.message_count).toBe(2);
  });

  test("a composed message over the size limit is 413", async () => {
    const r = await json(
      inst.api(`/v1/inboxes/${inbox.id}/messages`, {
        method: "POST",
        json: {
          from: "a@example.com",
          subject: "big",
          text: "x",
          attachments: [{ filename: "b", content_base64: Buffer.alloc(180_000).toString("base64") }],
        },
      }),
    );
    expect(r.status).toBe(413);
    expect(r.body.code).toBe("payload_too_large");
  });
});

describe("tenancy", () => {
  test("another project's inbox is 404 (import and compose); an unknown inbox is 404", async () => {
    await addUser(inst, "other@import.test", "other-password-1", "owner", "Other team");
    const other = await login(inst, "other@import.test", "other-password-1");
    const project = (await json(inst.api("/v1/projects", { token: other }))).body.data[0].id;
    const mine = await createInbox(inst);
    const raw = await json(
      inst.api(`/v1/inboxes/${mine.id}/messages`, {
        method: "POST",
        token: other,
        project,
        headers: { "content-type": "message/rfc822" },
        body: "Subject: x\r\n\r\nx\r\n",
      }),
    );
    expect(raw.status).toBe(404);
    const composed = await json(
      inst.api(`/v1/inboxes/${mine.id}/messages`, {
        method: "POST",
        token: other,
        project,
        json: { from: "a@b.c", subject: "s", text: "t" },
      }),
    );
    expect(composed.status).toBe(404);
    const unknown = await importRaw(inst, "01J0000000000000000000000Z", enc("Subject: x\r\n\r\n"));
    expect(unknown.status).toBe(404);
    expect((await json(inst.api(`/v1/inboxes/${mine.id}`))).body.data.message_count).toBe(0);
  });
});

describe("quotas", () => {
  let free: Instance;
  beforeAll(async () => {
    free = await startInboxd({ INBOXD_PLAN: "free" });
  });
  afterAll(async () => {
    await free.stop();
    free.cleanup();
  });

  test("an import that does not fit the inbox quota is 422 storage_quota_exceeded and stores nothing; usage follows", async () => {
    const box = await createInbox(free);
    const raw = enc("From: q@example.com\r\nSubject: quota\r\n\r\nbody\r\n");
    const ok = await importRaw(free, box.id, raw);
    expect(ok.status).toBe(201);
    const ib = (await json(free.api(`/v1/inboxes/${box.id}`))).body.data;
    expect(ib.storage.inbox.used_bytes).toBe(raw.byteLength);
    const usage = (await json(free.api("/v1/usage"))).body.data;
    expect(usage.storage.team.used_bytes).toBeGreaterThanOrEqual(raw.byteLength);
    // Fill the inbox up to 10 bytes short of its quota (50 MiB on the free plan).
    const quota = ib.storage.inbox.quota_bytes as number;
    await withDatabase(free.dataDir, (db) => db.run("UPDATE inboxes SET used_bytes = ? WHERE id = ?", [quota - 10, box.id]));
    const r = await importRaw(free, box.id, raw);
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("storage_quota_exceeded");
    expect(r.body.details).toMatchObject({ quota: "inbox", quota_bytes: quota, message_bytes: raw.byteLength });
    const c = await json(free.api(`/v1/inboxes/${box.id}/messages`, { method: "POST", json: { from: "a@b.co", subject: "s", text: "t" } }));
    expect(c.status).toBe(422);
    expect(c.body.code).toBe("storage_quota_exceeded");
    expect((await json(free.api(`/v1/inboxes/${box.id}`))).body.data.message_count).toBe(1);
  });
});
