// SMTP ingest against a real server: extensions, STARTTLS, AUTH, recipients, size limit, quotas,
// and that what was accepted is stored byte for byte, once per inbox.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, ULID, type Instance } from "../../support/harness";
import { code, createInbox, nextMessage, sendRaw, SmtpDialog, transport } from "../../support/mail";

let inst: Instance;
beforeAll(async () => {
  // Refusals of unknown recipients: capture (the catch-all inbox) is off here; capture.test.ts covers it.
  inst = await startInboxd({ INBOXD_SMTP_MAX_BYTES: String(30 * 1024 * 1024), INBOXD_CATCH_ALL: "off" });
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const rawOf = async (id: string) => new Uint8Array(await (await inst.api(`/v1/messages/${id}/raw`)).arrayBuffer());

describe("SMTP listener", () => {
  test("EHLO advertises STARTTLS, AUTH PLAIN LOGIN, 8BITMIME, SMTPUTF8, PIPELINING and SIZE", async () => {
    const { dialog, greeting } = await SmtpDialog.open(inst.ports.smtp!);
    try {
      expect(code(greeting)).toBe(220);
      const ehlo = await dialog.cmd("EHLO client.test");
      expect(code(ehlo)).toBe(250);
      for (const ext of ["STARTTLS", "PIPELINING", "8BITMIME", "SMTPUTF8"]) expect(ehlo).toContain(ext);
      expect(ehlo).toMatch(/AUTH[^\r\n]*PLAIN/);
      expect(ehlo).toMatch(/AUTH[^\r\n]*LOGIN/);
      expect(ehlo).toContain(`SIZE ${30 * 1024 * 1024}`);
    } finally {
      dialog.close();
    }
  });

  test("RCPT to an address that is no inbox is 550 5.1.1; a live inbox is 250", async () => {
    const inbox = await createInbox(inst);
    const { dialog } = await SmtpDialog.open(inst.ports.smtp!);
    try {
      await dialog.cmd("EHLO client.test");
      expect(code(await dialog.cmd("MAIL FROM:<a@example.com>"))).toBe(250);
      const bad = await dialog.cmd("RCPT TO:<nobody-here@inboxd.test>");
      expect(bad).toMatch(/^550 5\.1\.1/);
      expect(code(await dialog.cmd(`RCPT TO:<${inbox.address.toUpperCase()}>`))).toBe(250);
      // The same inbox named twice gets one copy.
      expect(code(await dialog.cmd(`RCPT TO:<${inbox.address}>`))).toBe(250);
      expect(code(await dialog.cmd("DATA"))).toBe(354);
      const done = await dialog.cmd("Subject: twice\r\n\r\nonce\r\n.");
      expect(done).toMatch(/^250 2\.0\.0 stored [0-9A-Z]{26}\r\n$/);
      expect((await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data.message_count).toBe(1);
    } finally {
      dialog.close();
    }
  });

  test("pipelined 8-bit SMTPUTF8 transaction is stored byte for byte and answered 250 with the id", async () => {
    const inbox = await createInbox(inst);
    const body = Buffer.from(
      `From: =?UTF-8?Q?J=C3=B6rg?= <jörg@exämple.com>\r\nTo: ${inbox.address}\r\nSubject: Grüße aus Köln\r\n` +
        `MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n` +
        `Schöne Grüße — 你好 — ✓\r\n.a line that starts with a dot\r\n`,
      "utf8",
    );
    const { dialog } = await SmtpDialog.open(inst.ports.smtp!);
    try {
      await dialog.cmd("EHLO client.test");
      // PIPELINING: the whole envelope in one write, replies read afterwards.
      dialog.write(`MAIL FROM:<jörg@exämple.com> SMTPUTF8 BODY=8BITMIME\r\nRCPT TO:<${inbox.address}>\r\nDATA\r\n`);
      expect(code(await dialog.reply())).toBe(250);
      expect(code(await dialog.reply())).toBe(250);
      expect(code(await dialog.reply())).toBe(354);
      // Dot-stuffing on the wire; the stored message is the un-stuffed original.
      dialog.write(Buffer.concat([Buffer.from(body.toString("utf8").replace(/^\./gm, "..")), Buffer.from(".\r\n")]));
      const done = await dialog.reply();
      expect(code(done)).toBe(250);
      const id = /stored ([0-9A-Z]{26})/.exec(done)![1]!;
      expect(id).toMatch(ULID);
      const m = (await json(inst.api(`/v1/messages/${id}`))).body.data;
      expect(m.subject).toBe("Grüße aus Köln");
      expect(m.from).toEqual({ email: "jörg@exämple.com", name: "Jörg" });
      expect(m.text).toContain("你好");
      expect(Buffer.from(await rawOf(id)).equals(body)).toBe(true);
      expect(m.size_bytes).toBe(body.byteLength);
    } finally {
      dialog.close();
    }
  });

  test("STARTTLS with nodemailer (requireTLS) and AUTH PLAIN/LOGIN with any credentials are accepted", async () => {
    const inbox = await createInbox(inst);
    for (const method of ["PLAIN", "LOGIN"]) {
      const t = transport(inst, { requireTLS: true, auth: { user: "whatever", pass: "anything" }, authMethod: method });
      try {
        const info = await t.sendMail({ from: "app@example.com", to: inbox.address, subject: `tls ${method}`, text: "over TLS" });
        expect(info.response).toMatch(/^250 /);
      } finally {
        t.close();
      }
    }
    const list = (await json(inst.api(`/v1/inboxes/${inbox.id}/messages`))).body;
    expect(list.data.map((m: any) => m.subject).sort()).toEqual(["tls LOGIN", "tls PLAIN"]);
  });

  test("mail to several inboxes (and one unknown address) is stored once per inbox", async () => {
    const a = await createInbox(inst);
    const b = await createInbox(inst);
    const t = transport(inst);
    try {
      const info = await t.sendMail({
        from: "app@example.com",
        to: [a.address, b.address, a.address, "ghost@inboxd.test"],
        subject: "fan-out",
        text: "to both",
      });
      expect(info.accepted.sort()).toEqual([a.address, b.address].sort());
      expect(info.rejected).toEqual(["ghost@inboxd.test"]);
      const ids = /stored (\S+)/.exec(info.response)![1]!.split(",");
      expect(ids.length).toBe(2);
    } finally {
      t.close();
    }
    for (const inbox of [a, b]) {
      const shown = (await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data;
      expect(shown.message_count).toBe(1);
      expect(shown.unread_count).toBe(1);
      const list = (await json(inst.api(`/v1/inboxes/${inbox.id}/messages?view=full`))).body.data;
      expect(list[0].subject).toBe("fan-out");
      expect(list[0].inbox_id).toBe(inbox.id);
      expect(list[0].envelope).toEqual({ mail_from: "app@example.com", rcpt_to: [inbox.address] });
    }
  });

  test("an inbox deleted or expired refuses mail with 550", async () => {
    const inbox = await createInbox(inst);
    expect((await inst.api(`/v1/inboxes/${inbox.id}`, { method: "DELETE" })).status).toBe(204);
    const err = await sendRaw(inst, inbox.address, "Subject: late\r\n\r\nx\r\n").catch((e) => e);
    expect(err.responseCode).toBe(550);
  });
});

describe("limits", () => {
  test("a message over INBOXD_SMTP_MAX_BYTES is refused with 552 and not stored", async () => {
    const small = await startInboxd({ INBOXD_SMTP_MAX_BYTES: "20000" });
    try {
      const inbox = await createInbox(small);
      const raw = "Subject: big\r\n\r\n" + ("x".repeat(998) + "\r\n").repeat(30);
      const t = transport(small);
      // Without SIZE in MAIL FROM the server only learns the size from the data itself.
      const err = await t.sendMail({ envelope: { from: "a@example.com", to: [inbox.address] }, raw }).catch((e: any) => e);
      t.close();
      expect(err.responseCode).toBe(552);
      const ok = await sendRaw(small, inbox.address, "Subject: small\r\n\r\nfits\r\n");
      expect(ok.response).toMatch(/^250/);
      const list = (await json(small.api(`/v1/inboxes/${inbox.id}/messages`))).body.data;
      expect(list.map((m: any) => m.subject)).toEqual(["small"]);
    } finally {
      await small.stop();
      small.cleanup();
    }
  });

  test("per-inbox storage quota: a message that does not fit is 552, a full inbox is 452 at RCPT", async () => {
    // Free plan: 50 MiB per inbox. Two 24 MiB messages, then one that would overflow, then one
    // that fills the inbox exactly; after that even RCPT is refused.
    const inbox = await createInbox(inst);
    const quota = 50 * 1024 * 1024;
    const bulk = (target: number, tag: string) => {
      const head = `Subject: ${tag}\r\n\r\n`;
      const line = "y".repeat(998) + "\r\n";
      let body = line.repeat(Math.floor((target - head.length) / line.length));
      const rest = target - head.length - body.length;
      if (rest >= 2) body += "z".repeat(rest - 2) + "\r\n";
      return head + body;
    };
    for (const tag of ["one", "two"]) expect((await sendRaw(inst, inbox.address, bulk(24 * 1024 * 1024, tag))).response).toMatch(/^250/);
    let shown = (await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data;
    const used = shown.storage.inbox.used_bytes;
    expect(used).toBe(2 * 24 * 1024 * 1024);
    const over = await sendRaw(inst, inbox.address, bulk(quota - used + 10, "over")).catch((e) => e);
    expect(over.responseCode).toBe(552);
    expect(over.response).toContain("5.2.2");
    expect((await sendRaw(inst, inbox.address, bulk(quota - used, "exact"))).response).toMatch(/^250/);
    shown = (await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data;
    expect(shown.storage.inbox).toEqual({ used_bytes: quota, quota_bytes: quota, state: "full" });
    expect(shown.message_count).toBe(3);
    const { dialog } = await SmtpDialog.open(inst.ports.smtp!);
    try {
      await dialog.cmd("EHLO client.test");
      await dialog.cmd("MAIL FROM:<a@example.com>");
      expect(await dialog.cmd(`RCPT TO:<${inbox.address}>`)).toMatch(/^452 4\.2\.2/);
    } finally {
      dialog.close();
    }
    // Deleting a message frees room again.
    const list = (await json(inst.api(`/v1/inboxes/${inbox.id}/messages`))).body.data;
    expect((await inst.api(`/v1/messages/${list[0].id}`, { method: "DELETE" })).status).toBe(204);
    expect((await sendRaw(inst, inbox.address, "Subject: room again\r\n\r\nok\r\n")).response).toMatch(/^250/);
    const latest = await nextMessage(inst, inbox.id, undefined, "summary");
    expect(latest.subject).toBe("room again");
  });
});

describe("parse worker threads (INBOXD_PARSE_WORKERS)", () => {
  let worker: Instance;
  beforeAll(async () => {
    worker = await startInboxd({ INBOXD_PARSE_INLINE_BELOW: "0" });
  });
  afterAll(async () => {
    await worker.stop();
    worker.cleanup();
  });

  test("concurrent messages parsed in the worker (batched), one the parser fails on: every one 250, stored, fully parsed on first read", async () => {
    const inbox = await createInbox(worker);
    // mailparser gives up on more than 1,000 MIME parts: the message is kept with parse_error set.
    const broken =
      "From: Ann <ann@example.com>\r\nSubject: too many parts\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n" +
      "--b\r\nContent-Type: text/plain\r\n\r\nx\r\n".repeat(1500) +
      "--b--\r\n";
    const good = (i: number) => `From: app@example.com\r\nSubject: batch ${i}\r\n\r\nYour code is 4812${i}.\r\n`;
    const infos = await Promise.all(
      [broken, ...Array.from({ length: 12 }, (_, i) => good(i))].map((raw) => sendRaw(worker, inbox.address, raw)),
    );
    for (const info of infos) expect(info.response).toMatch(/^250 2\.0\.0 stored /);
    const list = (await json(worker.api(`/v1/inboxes/${inbox.id}/messages?limit=50`))).body.data as any[];
    expect(list.length).toBe(13);
    for (const summary of list) {
      const m = (await json(worker.api(`/v1/messages/${summary.id}`))).body.data;
      if (m.subject === "too many parts") {
        expect(m.parse_error).toMatch(/child nodes/);
        expect(m.from).toMatchObject({ email: "ann@example.com", name: "Ann" });
      } else {
        expect(m.parse_error).toBeNull();
        expect(m.codes).toEqual([`4812${m.subject.slice("batch ".length)}`]);
      }
    }
  });

  test("mail parsed in a worker thread reads back the same as mail parsed on the main thread", async () => {
    // `worker` parses every message in a worker thread; this one on the main thread.
    const pooled = await startInboxd({ INBOXD_PARSE_WORKERS: "0" });
    try {
      const read = async (i: Instance) => {
        const inbox = await createInbox(i);
        const t = transport(i);
        try {
          await t.sendMail({
            from: "Ann <ann@example.com>",
            to: inbox.address,
            subject: "=?UTF-8?B?w5xiZXJ3ZWlzdW5n?= code",
            text: "Your code is 739104. https://example.com/a",
            html: "<p>Your code is <b>739104</b> <a href='https://example.com/b'>b</a></p>",
            attachments: [{ filename: "a.bin", content: Buffer.from([0, 1, 2, 250, 251, 252]) }],
          });
        } finally {
          t.close();
        }
        const m = await nextMessage(i, inbox.id);
        const att = new Uint8Array(await (await i.api(`/v1/messages/${m.id}/attachments/${m.attachments[0].id}`)).arrayBuffer());
        const { id, inbox_id, received_at, expires_at, envelope, attachments, ...rest } = m;
        return { rest, att: [...att], sha: attachments[0].sha256, to: envelope.to === inbox.address };
      };
      const [a, b] = await Promise.all([read(pooled), read(worker)]);
      expect(a.att).toEqual([0, 1, 2, 250, 251, 252]);
      expect(a.rest.codes).toEqual(["739104"]);
      expect(a.rest.subject).toBe("Überweisung code");
      expect(a.rest.headers.length).toBe(b.rest.headers.length);
      const norm = (r: any) => ({ ...r, headers: null, to: null, size_bytes: null, message_id: null, sent_at: null });
      expect(norm(a.rest)).toEqual(norm(b.rest));
      expect(a.sha).toBe(b.sha);
    } finally {
      await pooled.stop();
      pooled.cleanup();
    }
  });
});

describe("a message mailparser takes seconds over", () => {
  test("is parsed off the event loop: mail sent on another connection meanwhile is stored first", async () => {
    const inbox = await createInbox(inst);
    // 40 KB, with a quoted-printable line holding a run of 30,000 blanks (mailparser: about a
    // second; its time grows with the square of the run, mime/parse.ts mailparserMayStall).
    const slowRaw =
      `From: a@example.com\r\nTo: ${inbox.address}\r\nSubject: slow\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n` +
      `--x\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nstart${" ".repeat(30_000)}end\r\n` +
      "--x\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=a.bin\r\n\r\nabc\r\n--x--\r\n.\r\n";
    const { dialog: slow } = await SmtpDialog.open(inst.ports.smtp!);
    await slow.cmd("EHLO slow.example");
    await slow.cmd("MAIL FROM:<a@example.com>");
    await slow.cmd(`RCPT TO:<${inbox.address}>`);
    expect(code(await slow.cmd("DATA"))).toBe(354);
    const order: string[] = [];
    slow.write(slowRaw);
    const slowStored = slow.reply(60_000).then((r) => {
      order.push("slow");
      return r;
    });
    // A second client, once the slow message is in: its whole transaction goes through while the
    // slow one is being parsed (on the event loop, its greeting would wait behind the parse).
    await Bun.sleep(50);
    const quick = await sendRaw(inst, inbox.address, `From: b@example.com\r\nTo: ${inbox.address}\r\nSubject: quick\r\n\r\nhello\r\n`);
    order.push("quick");
    expect(quick.response).toMatch(/^250 2\.0\.0 stored/);
    expect(await slowStored).toMatch(/^250 2\.0\.0 stored/);
    slow.close();
    expect(order).toEqual(["quick", "slow"]);
    const list = await json(inst.api(`/v1/inboxes/${inbox.id}/messages`));
    expect(list.body.data.map((m: { subject: string }) => m.subject).sort()).toEqual(["quick", "slow"]);
  });
});
