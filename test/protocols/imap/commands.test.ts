// IMAP over implicit TLS against a served instance, with mail put in through the real SMTP
// listener: every command of the issue, through imapflow and (for exact bytes) a raw client,
// and \Seen / EXPUNGE cross-checked against the REST API.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, type Instance } from "../../support/harness";
import { connected, imapflow, newBox, RawImap, send, sendRawMail, type Box } from "../../support/imap";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd();
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const RAW_PLAIN = (to: string, subject: string, body: string, from = "alice@example.com") =>
  [
    `From: Alice <${from}>`,
    `To: ${to}`,
    `Subject: ${subject}`,
    "Message-ID: <" + subject.replace(/\W/g, "") + "@example.com>",
    "Date: Mon, 02 Mar 2026 10:00:00 +0000",
    "",
    body,
    "",
  ].join("\r\n");

/** REST view of an inbox's messages, oldest first (IMAP sequence order). */
async function rest(box: Box): Promise<any[]> {
  const r = await json(inst.api(`/v1/inboxes/${box.id}/messages?limit=100`));
  expect(r.status).toBe(200);
  return [...r.body.data].reverse();
}

/** Waits until the inbox holds n messages (ingest is durable at the 250, this is belt and braces). */
async function settle(box: Box, n: number) {
  for (let i = 0; i < 100 && (await rest(box)).length < n; i++) await Bun.sleep(50);
}

describe("not authenticated", () => {
  test("greeting and CAPABILITY: AUTH=PLAIN, LITERAL+, SASL-IR, IDLE, UIDPLUS…; no STARTTLS on the TLS port", async () => {
    const r = await RawImap.open(inst.ports.imap!);
    const greeting = await r.until("* OK");
    expect(greeting).toContain("[CAPABILITY IMAP4rev1");
    const caps = await r.cmd("c1", "CAPABILITY");
    const line = caps
      .split("\r\n")
      .find((l) => l.startsWith("* CAPABILITY"))!
      .split(" ");
    for (const c of ["IMAP4rev1", "AUTH=PLAIN", "LITERAL+", "SASL-IR", "IDLE", "UIDPLUS", "UNSELECT", "NAMESPACE", "ID", "ENABLE"]) {
      expect(line).toContain(c);
    }
    expect(line).not.toContain("STARTTLS");
    expect(line).not.toContain("LOGINDISABLED");
    expect(caps).toContain("c1 OK");
    expect(await r.cmd("c2", "STARTTLS")).toContain("c2 BAD");
    expect(await r.cmd("c3", "NOOP")).toContain("c3 OK");
    // Authenticated-state commands are refused before log-in, and the session goes on.
    expect(await r.cmd("c4", "SELECT INBOX")).toContain("c4 BAD");
    expect(await r.cmd("c5", 'LIST "" *')).toContain("c5 BAD");
    expect(await r.cmd("c6", "ID NIL")).toContain('* ID ("name" "inboxd"');
    const bye = await r.cmd("c7", "LOGOUT");
    expect(bye).toContain("* BYE");
    expect(bye).toContain("c7 OK");
    expect(await r.waitClosed()).toBe(true);
  });

  test("LOGIN: wrong password is NO [AUTHENTICATIONFAILED], the right one logs in (quoted and literal forms)", async () => {
    const box = await newBox(inst);
    const r = await RawImap.open(inst.ports.imap!);
    await r.until("* OK");
    expect(await r.cmd("a1", `LOGIN ${box.address} wrong-password`)).toContain("a1 NO [AUTHENTICATIONFAILED]");
    expect(await r.cmd("a2", `LOGIN nobody@nowhere.test "${box.password}"`)).toContain("a2 NO [AUTHENTICATIONFAILED]");
    r.write(`a3 LOGIN {${box.address.length}}\r\n`);
    expect(await r.until("+")).toStartWith("+");
    r.write(`${box.address} "${box.password}"\r\n`);
    const ok = await r.until("a3 ");
    expect(ok).toMatch(/a3 OK \[CAPABILITY [^\]]*IMAP4rev1/);
    expect(await r.cmd("a4", `LOGIN ${box.address} x`)).toContain("a4 BAD");
    r.close();
  });

  test("AUTHENTICATE PLAIN with SASL-IR, with a continuation, and cancelled", async () => {
    const box = await newBox(inst);
    const ir = Buffer.from(`\0${box.address}\0${box.password}`).toString("base64");
    const r1 = await RawImap.open(inst.ports.imap!);
    await r1.until("* OK");
    expect(await r1.cmd("p1", `AUTHENTICATE PLAIN ${ir}`)).toContain("p1 OK");
    expect(await r1.cmd("p2", "SELECT INBOX")).toContain("p2 OK [READ-WRITE]");
    r1.close();

    const r2 = await RawImap.open(inst.ports.imap!);
    await r2.until("* OK");
    r2.write("q1 AUTHENTICATE PLAIN\r\n");
    expect(await r2.until("+")).toBe("+ \r\n");
    r2.write("*\r\n");
    expect(await r2.until("q1 ")).toContain("q1 BAD");
    r2.write("q2 AUTHENTICATE PLAIN\r\n");
    await r2.until("+");
    r2.write(Buffer.from(`${box.address}\0${box.address}\0${box.password}`).toString("base64") + "\r\n");
    expect(await r2.until("q2 ")).toContain("q2 OK");
    expect(await r2.cmd("q3", "AUTHENTICATE PLAIN =")).toContain("q3 BAD"); // already authenticated
    r2.close();

    // imapflow logs in the same way a mail client would.
    const c = await connected(inst, box);
    expect(c.authenticated).toBeTruthy();
    await c.logout();
  });
});

describe("authenticated state", () => {
  test("ID, ENABLE, NAMESPACE, LIST/LSUB (INBOX and the special-use set), STATUS, unknown mailboxes", async () => {
    const box = await newBox(inst);
    await sendRawMail(inst, box.address, RAW_PLAIN(box.address, "status one", "hello"));
    await sendRawMail(inst, box.address, RAW_PLAIN(box.address, "status two", "hello"));
    await settle(box, 2);
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    expect(await r.cmd("i1", 'ID ("name" "test-client")')).toMatch(/\* ID \("name" "inboxd"[^\r]*\r\ni1 OK/);
    expect(await r.cmd("i2", "ENABLE X-UNKNOWN")).toContain("* ENABLED\r\ni2 OK");
    expect(await r.cmd("i2b", "ENABLE CONDSTORE")).toContain("* ENABLED CONDSTORE\r\ni2b OK");
    expect(await r.cmd("i3", "NAMESPACE")).toContain('* NAMESPACE (("" "/")) NIL NIL\r\ni3 OK');
    expect(await r.cmd("i4", 'LIST "" "*"')).toBe(
      [
        '* LIST (\\HasNoChildren) "/" INBOX',
        '* LIST (\\HasNoChildren \\Archive) "/" "Archive"',
        '* LIST (\\HasNoChildren \\Drafts) "/" "Drafts"',
        '* LIST (\\HasNoChildren \\Junk) "/" "Junk"',
        '* LIST (\\HasNoChildren \\Sent) "/" "Sent"',
        '* LIST (\\HasNoChildren \\Trash) "/" "Trash"',
        "i4 OK LIST completed\r\n",
      ].join("\r\n"),
    );
    expect(await r.cmd("i5", 'LIST "" ""')).toContain('* LIST (\\Noselect) "/" ""');
    expect(await r.cmd("i6", 'LIST "" "Sent*"')).toBe('* LIST (\\HasNoChildren \\Sent) "/" "Sent"\r\ni6 OK LIST completed\r\n');
    expect(await r.cmd("i7", 'LIST "" "in%"')).toContain("INBOX");
    expect(await r.cmd("i8", 'LSUB "" "*"')).toContain('* LSUB (\\HasNoChildren) "/" INBOX');
    const uidValidity = (await json(inst.api(`/v1/inboxes/${box.id}`))).body.data;
    const st = await r.cmd("i9", "STATUS inbox (MESSAGES UNSEEN UIDNEXT UIDVALIDITY RECENT)");
    expect(st).toMatch(/\* STATUS INBOX \(MESSAGES 2 UNSEEN 2 UIDNEXT 3 UIDVALIDITY \d+ RECENT 0\)/);
    expect(uidValidity.message_count).toBe(2);
    expect(await r.cmd("i10", "STATUS Nowhere (MESSAGES)")).toContain("i10 NO [NONEXISTENT]");
    expect(await r.cmd("i11", "SELECT Nowhere")).toContain("i11 NO [NONEXISTENT]");
    expect(await r.cmd("i12", "CREATE Trash")).toContain("i12 NO [ALREADYEXISTS]");
    expect(await r.cmd("i13", "FETCH 1 FLAGS")).toContain("i13 BAD"); // nothing selected
    expect(await r.cmd("i14", "SUBSCRIBE INBOX")).toContain("i14 OK");
    r.close();

    const c = await connected(inst, box);
    const boxes = await c.list();
    // imapflow reads the special-use attributes (RFC 6154) and orders the special folders itself.
    expect(Object.fromEntries(boxes.map((b: any) => [b.path, b.specialUse ?? null]))).toEqual({
      INBOX: "\\Inbox",
      Sent: "\\Sent",
      Drafts: "\\Drafts",
      Archive: "\\Archive",
      Junk: "\\Junk",
      Trash: "\\Trash",
    });
    const status = await c.status("INBOX", { messages: true, unseen: true, uidNext: true, uidValidity: true });
    expect(status).toMatchObject({ messages: 2, unseen: 2, uidNext: 3 });
    await c.logout();
  });
});

describe("selected state", () => {
  let box: Box;
  const rawTwo = (to: string) => RAW_PLAIN(to, "Invoice 42", "Please pay invoice 42.\r\nThanks");

  beforeAll(async () => {
    box = await newBox(inst);
    // 1: multipart/alternative with two attachments (nodemailer builds the MIME).
    await send(inst, box.address, {
      subject: "Welcome aboard",
      text: "Your code is 123456",
      html: "<p>Your code is <b>123456</b></p>",
      attachments: [
        { filename: "report.pdf", content: Buffer.from("%PDF-1.4 fake"), contentType: "application/pdf" },
        { filename: "notes.txt", content: "some notes" },
      ],
    });
    // 2: exact bytes, to compare BODY[] byte for byte.
    await sendRawMail(inst, box.address, rawTwo(box.address));
    // 3: a larger plain message from someone else.
    await send(inst, box.address, { from: "Bob <bob@example.org>", subject: "Zebra facts", text: "The zebra is striped.\n".repeat(200) });
    await settle(box, 3);
  });

  test("SELECT and EXAMINE report EXISTS, UIDVALIDITY, UIDNEXT and flags", async () => {
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    const sel = await r.cmd("s1", "SELECT INBOX");
    expect(sel).toContain("* 3 EXISTS");
    expect(sel).toContain("* OK [PERMANENTFLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft \\*)]");
    expect(sel).toMatch(/\* OK \[UIDVALIDITY \d+\]/);
    expect(sel).toContain("* OK [UIDNEXT 4]");
    expect(sel).toContain("s1 OK [READ-WRITE]");
    const ex = await r.cmd("s2", "EXAMINE INBOX");
    expect(ex).toContain("s2 OK [READ-ONLY]");
    expect(await r.cmd("s3", "STORE 1 +FLAGS (\\Flagged)")).toContain("s3 NO [READ-ONLY]");
    // BODY[] under EXAMINE does not set \Seen.
    expect(await r.cmd("s4", "FETCH 2 (BODY[])")).not.toContain("\\Seen");
    expect((await rest(box))[1].read).toBe(false);
    expect(await r.cmd("s5", "CHECK")).toContain("s5 OK");
    expect(await r.cmd("s6", "UNSELECT")).toContain("s6 OK");
    expect(await r.cmd("s7", "FETCH 1 FLAGS")).toContain("s7 BAD");
    r.close();

    const c = await connected(inst, box);
    const mb = await c.mailboxOpen("INBOX");
    expect(mb.exists).toBe(3);
    expect(Number(mb.uidNext)).toBe(4);
    await c.logout();
  });

  test("FETCH: FLAGS, INTERNALDATE, RFC822.SIZE, ENVELOPE, UID agree with REST; BODY[] is byte-identical", async () => {
    const msgs = await rest(box);
    const c = await connected(inst, box);
    await c.mailboxOpen("INBOX");
    const got: any[] = [];
    for await (const m of c.fetch("1:*", { uid: true, flags: true, internalDate: true, size: true, envelope: true })) got.push(m);
    expect(got.map((m) => m.uid)).toEqual([1, 2, 3]);
    expect(got.map((m) => m.size)).toEqual(msgs.map((m) => m.size_bytes));
    expect(got[1].envelope.subject).toBe("Invoice 42");
    expect(got[1].envelope.from).toEqual([{ name: "Alice", address: "alice@example.com" }]);
    expect(got[1].envelope.to[0].address).toBe(box.address);
    expect(got[1].envelope.messageId).toBe("<Invoice42@example.com>");
    expect(got[2].envelope.from[0].address).toBe("bob@example.org");
    for (let i = 0; i < 3; i++) {
      expect(Math.abs(new Date(got[i].internalDate).getTime() - new Date(msgs[i].received_at).getTime())).toBeLessThan(1000);
    }
    const two = await (c as any).fetchOne("2", { source: true });
    expect(two.source.toString("latin1")).toBe(rawTwo(box.address));
    const byUid = await (c as any).fetchOne("3", { source: true }, { uid: true });
    expect(byUid.source.length).toBe(msgs[2].size_bytes);
    await c.logout();
  });

  test("BODYSTRUCTURE of multipart/alternative with attachments, and fetching its parts", async () => {
    const c = await connected(inst, box);
    await c.mailboxOpen("INBOX");
    const m = await (c as any).fetchOne("1", { bodyStructure: true });
    const bs = m.bodyStructure;
    expect(bs.type).toBe("multipart/mixed");
    expect(bs.childNodes.map((n: any) => n.type)).toEqual(["multipart/alternative", "application/pdf", "text/plain"]);
    expect(bs.childNodes[0].childNodes.map((n: any) => [n.part, n.type])).toEqual([
      ["1.1", "text/plain"],
      ["1.2", "text/html"],
    ]);
    expect(bs.childNodes[1]).toMatchObject({ part: "2", disposition: "attachment", dispositionParameters: { filename: "report.pdf" } });
    expect(bs.childNodes[2]).toMatchObject({ part: "3", disposition: "attachment", dispositionParameters: { filename: "notes.txt" } });
    const parts = await (c as any).fetchOne("1", { bodyParts: ["1.1", "1.2", "2", "2.mime"] });
    expect(parts.bodyParts.get("1.1").toString()).toContain("Your code is 123456");
    expect(parts.bodyParts.get("1.2").toString()).toContain("<b>123456</b>");
    expect(Buffer.from(parts.bodyParts.get("2").toString(), "base64").toString()).toBe("%PDF-1.4 fake");
    expect(parts.bodyParts.get("2.mime").toString()).toMatch(/Content-Type: application\/pdf/i);
    const dl = await c.download("1", "3");
    expect(await new Response(dl.content as any).text()).toBe("some notes");
    await c.logout();
  });

  test("sections over the wire: HEADER, HEADER.FIELDS (NOT), TEXT, MIME, partials, RFC822.*, and BODY.PEEK vs \\Seen", async () => {
    const raw = rawTwo(box.address);
    const header = raw.slice(0, raw.indexOf("\r\n\r\n") + 4);
    const text = raw.slice(raw.indexOf("\r\n\r\n") + 4);
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    await r.cmd("f0", "SELECT INBOX");
    const lit = (name: string, v: string) => `${name} {${Buffer.byteLength(v)}}\r\n${v}`;
    expect(await r.cmd("f1", "FETCH 2 (BODY.PEEK[HEADER])")).toBe(
      `* 2 FETCH (${lit("BODY[HEADER]", header)})\r\nf1 OK FETCH completed\r\n`,
    );
    expect(await r.cmd("f2", "FETCH 2 (BODY.PEEK[HEADER.FIELDS (subject FROM)])")).toContain(
      lit("BODY[HEADER.FIELDS (SUBJECT FROM)]", "From: Alice <alice@example.com>\r\nSubject: Invoice 42\r\n\r\n"),
    );
    const not = await r.cmd("f3", "FETCH 2 (BODY.PEEK[HEADER.FIELDS.NOT (Subject From To Message-ID)])");
    expect(not).toContain(lit("BODY[HEADER.FIELDS.NOT (SUBJECT FROM TO MESSAGE-ID)]", "Date: Mon, 02 Mar 2026 10:00:00 +0000\r\n\r\n"));
    expect(await r.cmd("f4", "FETCH 2 (BODY.PEEK[TEXT])")).toContain(lit("BODY[TEXT]", text));
    expect(await r.cmd("f5", "FETCH 2 (BODY.PEEK[]<6.5>)")).toContain(lit("BODY[]<6>", raw.slice(6, 11)));
    expect(await r.cmd("f6", "FETCH 2 (BODY.PEEK[TEXT]<7.3>)")).toContain(lit("BODY[TEXT]<7>", text.slice(7, 10)));
    expect(await r.cmd("f7", "FETCH 2 (BODY.PEEK[]<100000.10>)")).toContain(lit("BODY[]<100000>", ""));
    expect(await r.cmd("f8", "FETCH 2 (BODY.PEEK[1])")).toContain(lit("BODY[1]", text));
    expect(await r.cmd("f9", "FETCH 2 (RFC822.HEADER)")).toContain(lit("RFC822.HEADER", header));
    expect(await r.cmd("f10", "FETCH 2 (FLAGS)")).toContain("* 2 FETCH (FLAGS ())");
    expect((await rest(box))[1].read).toBe(false);
    // RFC822.TEXT and BODY[...] (non-PEEK) set \Seen, which is REST's `read`.
    const t = await r.cmd("f11", "FETCH 2 (RFC822.TEXT)");
    expect(t).toContain(lit("RFC822.TEXT", text));
    expect(t).toContain("FLAGS (\\Seen)");
    expect((await rest(box))[1].read).toBe(true);
    expect(await r.cmd("f12", "FETCH 2 (RFC822)")).toContain(lit("RFC822", raw));
    const all = await r.cmd("f13", "FETCH 2 ALL");
    expect(all).toMatch(/\* 2 FETCH \(FLAGS \(\\Seen\) INTERNALDATE "\d\d-\w{3}-\d{4} \d\d:\d\d:\d\d \+0000" RFC822.SIZE \d+ ENVELOPE \(/);
    expect(await r.cmd("f14", "FETCH 1 (BODY)")).toMatch(/BODY \(\(\("text" "plain"/);
    expect(await r.cmd("f15", "UID FETCH 2:* (FLAGS)")).toBe(
      "* 2 FETCH (UID 2 FLAGS (\\Seen))\r\n* 3 FETCH (UID 3 FLAGS ())\r\nf15 OK UID FETCH completed\r\n",
    );
    expect(await r.cmd("f16", "FETCH 1 (BODY[NOPE])")).toContain("f16 BAD");
    // Put it back for the other tests.
    expect(await r.cmd("f17", "STORE 2 -FLAGS.SILENT (\\Seen)")).toBe("f17 OK STORE completed\r\n");
    expect((await rest(box))[1].read).toBe(false);
    r.close();
  });

  test("SEARCH and UID SEARCH: flags, addresses, text, dates, sizes, sets, NOT and OR", async () => {
    const c = await connected(inst, box);
    await c.mailboxOpen("INBOX");
    const s = (q: any) => c.search(q, { uid: true });
    expect(await s({ all: true })).toEqual([1, 2, 3]);
    expect(await s({ seen: false })).toEqual([1, 2, 3]);
    expect(await s({ seen: true })).toEqual([]);
    expect(await s({ from: "alice@example.com" })).toEqual([2]);
    expect(await s({ from: "bob" })).toEqual([3]);
    expect(await s({ to: box.address })).toEqual([1, 2, 3]);
    expect(await s({ subject: "invoice" })).toEqual([2]);
    expect(await s({ body: "zebra is striped" })).toEqual([3]);
    expect(await s({ body: "123456" })).toEqual([1]);
    expect(await s({ text: "welcome" })).toEqual([1]);
    // Midnight UTC: imapflow moves a BEFORE date with a time of day to the next day.
    const today = new Date(new Date().toISOString().slice(0, 10));
    const tomorrow = new Date(today.getTime() + 86_400_000);
    expect(await s({ since: today })).toEqual([1, 2, 3]);
    expect(await s({ on: today })).toEqual([1, 2, 3]);
    expect(await s({ before: today })).toEqual([]);
    expect(await s({ before: tomorrow })).toEqual([1, 2, 3]);
    expect(await s({ uid: "2:*" })).toEqual([2, 3]);
    expect(await s({ larger: 3000 })).toEqual([3]);
    expect(await s({ smaller: 3000 })).toEqual([1, 2]);
    expect(await s({ not: { from: "bob" } })).toEqual([1, 2]);
    expect(await s({ or: [{ subject: "zebra" }, { subject: "welcome" }] })).toEqual([1, 3]);
    expect(await c.search({ seq: "2:3" })).toEqual([2, 3]);
    await c.logout();

    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    await r.cmd("x0", "SELECT INBOX");
    expect(await r.cmd("x1", "SEARCH 1,3 UNSEEN")).toContain("* SEARCH 1 3\r\n");
    expect(await r.cmd("x2", 'SEARCH CHARSET UTF-8 SUBJECT "invoice 42"')).toContain("* SEARCH 2\r\n");
    expect(await r.cmd("x3", "SEARCH CHARSET KOI8-R ALL")).toContain("x3 NO [BADCHARSET");
    expect(await r.cmd("x4", "SEARCH HEADER Message-ID Invoice42")).toContain("* SEARCH 2\r\n");
    expect(await r.cmd("x5", "SEARCH SENTON 2-Mar-2026")).toContain("* SEARCH 2\r\n");
    expect(await r.cmd("x6", "SEARCH FLAGGED")).toContain("* SEARCH\r\n");
    expect(await r.cmd("x7", "SEARCH BOGUS")).toContain("x7 BAD");
    r.close();
  });

  test("STORE and UID STORE: FLAGS, +FLAGS, -FLAGS, .SILENT; \\Seen is REST `read` in both directions", async () => {
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    await r.cmd("t0", "SELECT INBOX");
    expect(await r.cmd("t1", "STORE 1 +FLAGS (\\Flagged)")).toBe("* 1 FETCH (FLAGS (\\Flagged))\r\nt1 OK STORE completed\r\n");
    expect(await r.cmd("t2", "UID STORE 1 +FLAGS (\\Seen)")).toBe(
      "* 1 FETCH (UID 1 FLAGS (\\Seen \\Flagged))\r\nt2 OK UID STORE completed\r\n",
    );
    let msgs = await rest(box);
    expect(msgs[0].read).toBe(true);
    expect(await r.cmd("t3", "STORE 1 FLAGS (\\Seen)")).toBe("* 1 FETCH (FLAGS (\\Seen))\r\nt3 OK STORE completed\r\n");
    expect(await r.cmd("t4", "STORE 1 -FLAGS.SILENT \\Seen")).toBe("t4 OK STORE completed\r\n");
    // .SILENT means no new value for UID STORE too (RFC 3501 §6.4.6), with a keyword new to the session as well.
    expect(await r.cmd("t4a", "UID STORE 1 +FLAGS.SILENT (\\Draft $Fresh)")).toBe("t4a OK UID STORE completed\r\n");
    expect(await r.cmd("t4b", "UID STORE 1 -FLAGS.SILENT (\\Draft $Fresh)")).toBe("t4b OK UID STORE completed\r\n");
    msgs = await rest(box);
    expect(msgs[0].read).toBe(false);
    // Keywords are kept (mailboxes.test.ts covers them); this one goes again.
    // A new keyword is announced (FLAGS, PERMANENTFLAGS) before its first use.
    expect(await r.cmd("t5", "STORE 1 +FLAGS ($Junk)")).toBe(
      [
        "* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft $Junk)",
        "* OK [PERMANENTFLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft $Junk \\*)] Flags permitted",
        "* 1 FETCH (FLAGS ($Junk))",
        "t5 OK STORE completed\r\n",
      ].join("\r\n"),
    );
    expect(await r.cmd("t5a", "STORE 1 -FLAGS.SILENT ($Junk)")).toBe("t5a OK STORE completed\r\n");
    expect(await r.cmd("t6", "STORE 1 +FLAGS (\\Bogus)")).toContain("t6 BAD");
    expect(await r.cmd("t7", "STORE 1 REPLACE (\\Seen)")).toContain("t7 BAD");

    // REST → IMAP: mark-read shows up as an untagged FETCH FLAGS at the next command.
    const inbox = await rest(box);
    const mr = await json(inst.api(`/v1/inboxes/${box.id}/mark-read`, { method: "POST", json: { last_read_ulid: inbox[1].id } }));
    expect(mr.status).toBe(200);
    const noop = await r.cmd("t8", "NOOP");
    expect(noop).toContain("* 1 FETCH (UID 1 FLAGS (\\Seen))");
    expect(noop).toContain("* 2 FETCH (UID 2 FLAGS (\\Seen))");
    expect(await r.cmd("t9", "FETCH 1:3 FLAGS")).toBe(
      "* 1 FETCH (FLAGS (\\Seen))\r\n* 2 FETCH (FLAGS (\\Seen))\r\n* 3 FETCH (FLAGS ())\r\nt9 OK FETCH completed\r\n",
    );
    // …and so does un-reading one message (PATCH read=false).
    const patched = await json(inst.api(`/v1/messages/${inbox[0].id}`, { method: "PATCH", json: { read: false } }));
    expect(patched.status).toBe(200);
    expect(await r.cmd("t9a", "NOOP")).toBe("* 1 FETCH (UID 1 FLAGS ())\r\nt9a OK NOOP completed\r\n");
    expect(await r.cmd("t10", "STORE 1:2 -FLAGS.SILENT (\\Seen)")).toContain("t10 OK");
    expect((await rest(box)).map((m) => m.read)).toEqual([false, false, false]);
    const unread = (await json(inst.api(`/v1/inboxes/${box.id}`))).body.data.unread_count;
    expect(unread).toBe(3);
    r.close();

    // imapflow's flag helpers.
    const c = await connected(inst, box);
    await c.mailboxOpen("INBOX");
    await c.messageFlagsAdd("3", ["\\Seen", "\\Flagged"], { uid: true });
    expect((await (c as any).fetchOne("3", { flags: true })).flags).toEqual(new Set(["\\Seen", "\\Flagged"]));
    await c.messageFlagsSet("3", ["\\Flagged"]);
    expect((await rest(box))[2].read).toBe(false);
    await c.messageFlagsRemove("1:*", ["\\Flagged"]);
    await c.logout();
  });
});

describe("non-ASCII", () => {
  test("SEARCH finds encoded-word subjects and UTF-8 bodies; ENVELOPE keeps the encoded form", async () => {
    const box = await newBox(inst);
    await send(inst, box.address, {
      from: "Jürgen Groß <jg@example.com>",
      subject: "Grüße aus Köln",
      text: "Schöne Grüße, ½ € and 日本語",
    });
    await send(inst, box.address, { subject: "plain ascii", text: "nothing special" });
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    await r.cmd("n0", "SELECT INBOX");
    const lit = (v: string) => `{${Buffer.byteLength(v)}+}\r\n${v}`;
    expect(await r.cmd("n1", `SEARCH CHARSET UTF-8 SUBJECT ${lit("grüße")}`)).toContain("* SEARCH 1\r\n");
    expect(await r.cmd("n2", `SEARCH CHARSET UTF-8 BODY ${lit("日本語")}`)).toContain("* SEARCH 1\r\n");
    expect(await r.cmd("n3", `SEARCH CHARSET UTF-8 FROM ${lit("Jürgen")}`)).toContain("* SEARCH 1\r\n");
    const env = await r.cmd("n4", "FETCH 1 (ENVELOPE)");
    expect(env).toMatch(/ENVELOPE \("[^"]+" "=\?UTF-8\?Q\?Gr=C3=BC=C3=9Fe/i);
    r.close();
    const c = await connected(inst, box);
    await c.mailboxOpen("INBOX");
    const m = await (c as any).fetchOne("1", { envelope: true });
    expect(m.envelope.subject).toBe("Grüße aus Köln");
    expect(m.envelope.from[0]).toEqual({ name: "Jürgen Groß", address: "jg@example.com" });
    await c.logout();
  });

  test("text keys fold the case of every letter, not only ASCII's, in stored and compressed bodies, as Dovecot", async () => {
    const box = await newBox(inst);
    // The second body is long enough to be stored compressed (out of SQL's reach on SQLite).
    await send(inst, box.address, { from: "Jürgen Müller <jm@example.com>", subject: "Grüße aus Köln – テスト", text: "Straße" });
    await send(inst, box.address, { subject: "plain", text: `${"filler words here. ".repeat(40)}ÜBERWEISUNG bestätigt` });
    await send(inst, box.address, { subject: "koln without the umlaut", text: "uberweisung" });
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    await r.cmd("u0", "SELECT INBOX");
    const lit = (v: string) => `{${Buffer.byteLength(v)}+}\r\n${v}`;
    const search = async (tag: string, q: string) => (await r.cmd(tag, `SEARCH CHARSET UTF-8 ${q}`)).split("\r\n")[0];
    expect(await search("u1", `SUBJECT ${lit("KÖLN")}`)).toBe("* SEARCH 1");
    expect(await search("u2", `SUBJECT ${lit("gRÜße")}`)).toBe("* SEARCH 1");
    expect(await search("u3", `FROM ${lit("MÜLLER")}`)).toBe("* SEARCH 1");
    expect(await search("u4", `HEADER Subject ${lit("KÖLN")}`)).toBe("* SEARCH 1");
    expect(await search("u5", `BODY ${lit("überweisung")}`)).toBe("* SEARCH 2");
    expect(await search("u6", `TEXT ${lit("Überweisung BESTÄTIGT")}`)).toBe("* SEARCH 2");
    expect(await search("u7", `TEXT ${lit("STRASSE")}`)).toBe("* SEARCH");
    // A decomposed ö (o + U+0308) is the same letter.
    expect(await search("u8", `SUBJECT ${lit("Ko\u0308ln")}`)).toBe("* SEARCH 1");
    expect(await search("u9", `SUBJECT ${lit("テスト")}`)).toBe("* SEARCH 1");
    r.close();
  });

  test("TEXT finds header field names too (RFC 3501: the header), as Dovecot", async () => {
    const box = await newBox(inst);
    await sendRawMail(inst, box.address, "Subject: one\r\nX-Campaign-Tracker: abc\r\nMIME-Version: 1.0\r\n\r\nbody\r\n");
    await sendRawMail(inst, box.address, "Subject: two\r\n\r\nbody\r\n");
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    await r.cmd("h0", "SELECT INBOX");
    const search = async (tag: string, q: string) => (await r.cmd(tag, `SEARCH ${q}`)).split("\r\n")[0];
    expect(await search("h1", 'TEXT "x-campaign-tracker"')).toBe("* SEARCH 1");
    expect(await search("h2", 'TEXT "Tracker: ABC"')).toBe("* SEARCH 1");
    expect(await search("h3", `CHARSET UTF-8 TEXT {${Buffer.byteLength("TRACKER: ÄBC")}+}\r\nTRACKER: ÄBC`)).toBe("* SEARCH");
    r.close();
  });
});

describe("large messages", () => {
  test("a 6 MB message comes back byte-identical to REST's raw, whole and in partial chunks", async () => {
    const box = await newBox(inst);
    const big = Buffer.alloc(4.5 * 1024 * 1024);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) & 0xff;
    await send(inst, box.address, { subject: "big one", text: "see attachment", attachments: [{ filename: "big.bin", content: big }] });
    const raw = Buffer.from(
      await (await inst.api(`/v1/messages/${(await json(inst.api(`/v1/inboxes/${box.id}/messages`))).body.data[0].id}/raw`)).arrayBuffer(),
    );
    expect(raw.length).toBeGreaterThan(6_000_000);
    const c = await connected(inst, box);
    await c.mailboxOpen("INBOX");
    const m = await (c as any).fetchOne("1", { source: true, size: true });
    expect(m.size).toBe(raw.length);
    expect(Buffer.compare(m.source, raw)).toBe(0);
    const chunks: Buffer[] = [];
    for (let start = 0; start < raw.length; start += 2_000_000) {
      const part = await (c as any).fetchOne("1", { source: { start, maxLength: 2_000_000 } });
      chunks.push(part.source);
    }
    expect(Buffer.compare(Buffer.concat(chunks), raw)).toBe(0);
    const att = await c.download("1", "2");
    expect(Buffer.compare(Buffer.from(await new Response(att.content as any).arrayBuffer()), big)).toBe(0);
    await c.logout();
  }, 30_000);
});

describe("expunge", () => {
  test("EXPUNGE removes \\Deleted messages everywhere (REST 404, counts), UID EXPUNGE only the named UIDs", async () => {
    const box = await newBox(inst);
    for (const n of [1, 2, 3, 4]) await sendRawMail(inst, box.address, RAW_PLAIN(box.address, `msg ${n}`, `body ${n}`));
    await settle(box, 4);
    const before = await rest(box);
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    await r.cmd("e0", "SELECT INBOX");
    await r.cmd("e1", "STORE 2,4 +FLAGS.SILENT (\\Deleted)");
    expect(await r.cmd("e2", "SEARCH DELETED")).toContain("* SEARCH 2 4\r\n");
    expect(await r.cmd("e3", "UID EXPUNGE 4")).toBe("* 4 EXPUNGE\r\ne3 OK UID EXPUNGE completed\r\n");
    expect((await json(inst.api(`/v1/messages/${before[3].id}`))).status).toBe(404);
    expect((await json(inst.api(`/v1/messages/${before[1].id}`))).status).toBe(200);
    expect(await r.cmd("e4", "EXPUNGE")).toBe("* 2 EXPUNGE\r\ne4 OK EXPUNGE completed\r\n");
    expect((await json(inst.api(`/v1/messages/${before[1].id}`))).status).toBe(404);
    expect((await rest(box)).map((m) => m.subject)).toEqual(["msg 1", "msg 3"]);
    expect((await json(inst.api(`/v1/inboxes/${box.id}`))).body.data.message_count).toBe(2);
    expect(await r.cmd("e5", "UID FETCH 1:* (FLAGS)")).toBe(
      "* 1 FETCH (UID 1 FLAGS ())\r\n* 2 FETCH (UID 3 FLAGS ())\r\ne5 OK UID FETCH completed\r\n",
    );

    // CLOSE expunges silently; UNSELECT does not expunge.
    await r.cmd("e6", "STORE 1 +FLAGS.SILENT (\\Deleted)");
    expect(await r.cmd("e7", "UNSELECT")).toBe("e7 OK UNSELECT completed\r\n");
    expect((await rest(box)).length).toBe(2);
    await r.cmd("e8", "SELECT INBOX");
    expect(await r.cmd("e9", "CLOSE")).toBe("e9 OK CLOSE completed\r\n");
    expect((await rest(box)).map((m) => m.subject)).toEqual(["msg 3"]);
    const st = await r.cmd("e10", "STATUS INBOX (MESSAGES UIDNEXT)");
    expect(st).toContain("(MESSAGES 1 UIDNEXT 5)");
    r.close();

    // imapflow's delete (STORE \Deleted + UID EXPUNGE).
    const c = imapflow(inst, box);
    await c.connect();
    await c.mailboxOpen("INBOX");
    await c.messageDelete("3", { uid: true });
    expect(await rest(box)).toEqual([]);
    await c.logout();
  });
});
