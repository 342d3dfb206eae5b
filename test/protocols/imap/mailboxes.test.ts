// IMAP as a mail store (issue 21): mailboxes per inbox (CREATE, DELETE, RENAME, SUBSCRIBE, LIST
// with hierarchy and special use, STATUS, SELECT of any mailbox), APPEND, COPY and MOVE with
// UIDPLUS answers, and the same mail seen through REST (folder field and filter), the storage
// counters and POP3 (INBOX only). imapflow for what a client does, a raw client for exact bytes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, type Instance } from "../../support/harness";
import { connected, newBox, RawImap, sendRawMail, type Box } from "../../support/imap";
import { Pop3Client } from "../../support/pop3-client";
import type { ImapFlow } from "imapflow";
import { withDatabase } from "../../support/database-rows";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd();
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const mail = (subject: string, body = "hello", from = "alice@example.com") =>
  [`From: Alice <${from}>`, "To: someone@example.com", `Subject: ${subject}`, "Date: Mon, 02 Mar 2026 10:00:00 +0000", "", body, ""].join(
    "\r\n",
  );

/** REST list of the inbox's messages (full view: it carries `folder`), newest first, optionally of one folder. */
async function rest(box: Box, folder?: string): Promise<any[]> {
  const r = await json(
    inst.api(`/v1/inboxes/${box.id}/messages?view=full&limit=100${folder ? `&folder=${encodeURIComponent(folder)}` : ""}`),
  );
  expect(r.status).toBe(200);
  return r.body.data;
}

// imapflow answers false when a command fails: these throw instead, so a result is always an object.
const must = <T>(v: T | false, what: string): T => {
  if (v === false) throw new Error(`${what} failed`);
  return v;
};
const stat = async (c: ImapFlow, path: string, q: Parameters<ImapFlow["status"]>[1]) => must(await c.status(path, q), "STATUS");
const appendTo = async (c: ImapFlow, ...a: Parameters<ImapFlow["append"]>) => must(await c.append(...a), "APPEND");
const copyOf = async (c: ImapFlow, ...a: Parameters<ImapFlow["messageCopy"]>) => must(await c.messageCopy(...a), "COPY");
const moveOf = async (c: ImapFlow, ...a: Parameters<ImapFlow["messageMove"]>) => must(await c.messageMove(...a), "MOVE");

const inboxOf = async (box: Box) => (await json(inst.api(`/v1/inboxes/${box.id}`))).body.data;

describe("mailboxes", () => {
  test("an atom with '[' names an unknown mailbox: NO, not BAD (imaptest's atom test)", async () => {
    const box = await newBox(inst);
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    expect(await r.cmd("a1", "SELECT !#$&'+,-.0123456789:;<=>?@^_`|[}")).toContain("a1 NO [NONEXISTENT]");
    expect(await r.cmd("a2", "CREATE a[b]")).toContain("a2 OK");
    expect(await r.cmd("a3", "SELECT a[b]")).toContain("a3 OK [READ-WRITE]");
    r.close();
  });

  test("names are modified UTF-7: 8-bit and broken &-runs are refused (as Dovecot), valid ones listed and selected as sent", async () => {
    const box = await newBox(inst);
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    const lit = (v: string) => `{${Buffer.byteLength(v)}+}\r\n${v}`;
    // Raw UTF-8 (no UTF8=ACCEPT here), a run without its "-", one that is not base64, one encoding ASCII.
    for (const [tag, name] of [
      ["u1", lit("Ünïcode")],
      ["u2", '"bad&Jjo"'],
      ["u3", '"x&AOQ"'],
      ["u4", '"a&AGE-"'],
    ] as const) {
      expect(await r.cmd(tag, `CREATE ${name}`)).toContain(`${tag} NO [CANNOT] Mailbox name is not valid modified UTF-7`);
    }
    expect(await r.cmd("u5", "CREATE Work")).toContain("u5 OK");
    expect(await r.cmd("u6", `RENAME Work ${lit("Wörk")}`)).toContain("u6 NO [CANNOT]");
    expect(await r.cmd("u7", 'CREATE "Entw&APw-rfe"')).toContain("u7 OK");
    expect(await r.cmd("u8", 'CREATE "R&-D/&2D3eAA-"')).toContain("u8 OK");
    const list = await r.cmd("u9", 'LIST "" "*"');
    expect(list).toContain('"/" "Entw&APw-rfe"\r\n');
    expect(list).toContain('"/" "R&-D/&2D3eAA-"\r\n');
    expect(list).not.toContain("code");
    expect(await r.cmd("u10", 'SELECT "Entw&APw-rfe"')).toContain("u10 OK [READ-WRITE]");
    r.close();
  });

  test("CREATE with hierarchy, LIST with \\HasChildren, %, *, LIST-EXTENDED, DELETE, RENAME, SUBSCRIBE/LSUB", async () => {
    const box = await newBox(inst);
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    expect(await r.cmd("c1", "CREATE Projects/2026/Q1")).toContain("c1 OK CREATE completed");
    expect(await r.cmd("c2", "CREATE Projects")).toContain("c2 NO [ALREADYEXISTS]");
    expect(await r.cmd("c3", "CREATE INBOX")).toContain("c3 NO [ALREADYEXISTS]");
    expect(await r.cmd("c4", 'CREATE "bad*name"')).toContain("c4 NO [CANNOT]");
    expect(await r.cmd("c5", "CREATE /lead")).toContain("c5 NO [CANNOT]");
    expect(await r.cmd("l1", 'LIST "" "Projects*"')).toBe(
      [
        '* LIST (\\HasChildren) "/" "Projects"',
        '* LIST (\\HasChildren) "/" "Projects/2026"',
        '* LIST (\\HasNoChildren) "/" "Projects/2026/Q1"',
        "l1 OK LIST completed\r\n",
      ].join("\r\n"),
    );
    expect(await r.cmd("l2", 'LIST "Projects/" "%"')).toBe('* LIST (\\HasChildren) "/" "Projects/2026"\r\nl2 OK LIST completed\r\n');
    // LIST-EXTENDED: only the special-use mailboxes; several patterns; RETURN (SUBSCRIBED).
    const special = await r.cmd("l3", 'LIST (SPECIAL-USE) "" "*"');
    expect(special.match(/^\* LIST/gm)).toHaveLength(5);
    expect(special).not.toContain("Projects");
    expect(await r.cmd("l4", 'LIST "" ("inbox" "Trash") RETURN (SUBSCRIBED)')).toBe(
      [
        '* LIST (\\HasNoChildren \\Subscribed) "/" INBOX',
        '* LIST (\\HasNoChildren \\Trash \\Subscribed) "/" "Trash"',
        "l4 OK LIST completed\r\n",
      ].join("\r\n"),
    );

    // SUBSCRIBE / UNSUBSCRIBE and LSUB. CREATE does not subscribe; the special-use mailboxes are.
    expect(await r.cmd("s0", 'LSUB "" "Projects*"')).toBe("s0 OK LSUB completed\r\n");
    expect(await r.cmd("s1", "SUBSCRIBE Projects/2026/Q1")).toContain("s1 OK");
    expect(await r.cmd("s1a", "SUBSCRIBE Projects")).toContain("s1a OK");
    expect(await r.cmd("s2", 'LSUB "" "Projects*"')).toBe(
      ['* LSUB (\\HasChildren) "/" "Projects"', '* LSUB (\\HasNoChildren) "/" "Projects/2026/Q1"', "s2 OK LSUB completed\r\n"].join("\r\n"),
    );
    // "%" stops at Projects/2026, unsubscribed with a subscribed mailbox under it: \Noselect (RFC 3501 §6.3.9).
    expect(await r.cmd("s2a", 'LSUB "" "Projects/%"')).toBe('* LSUB (\\Noselect) "/" "Projects/2026"\r\ns2a OK LSUB completed\r\n');
    expect(await r.cmd("s2b", "UNSUBSCRIBE Projects")).toContain("s2b OK");
    expect(await r.cmd("s2e", 'LIST (SUBSCRIBED RECURSIVEMATCH) "" "Projects"')).toBe(
      '* LIST (\\HasChildren) "/" "Projects" ("CHILDINFO" ("SUBSCRIBED"))\r\ns2e OK LIST completed\r\n',
    );
    expect(await r.cmd("s2f", 'LIST (RECURSIVEMATCH) "" "*"')).toContain("s2f BAD");
    expect(await r.cmd("s2c", 'LSUB "" "%"')).toContain('* LSUB (\\Noselect) "/" "Projects"');
    expect(await r.cmd("s2d", 'LSUB "" "%"')).toContain('* LSUB (\\HasNoChildren \\Trash) "/" "Trash"');
    expect(await r.cmd("s3", "SUBSCRIBE Nowhere")).toContain("s3 NO [NONEXISTENT]");
    expect(await r.cmd("s4", "UNSUBSCRIBE INBOX")).toContain("s4 OK");
    expect(await r.cmd("s5", 'LSUB "" INBOX')).toContain('* LSUB (\\HasNoChildren) "/" INBOX');

    // RENAME carries the mailboxes under it; DELETE refuses a mailbox with children, INBOX and unknown names.
    expect(await r.cmd("r1", "RENAME Projects Work")).toContain("r1 OK RENAME completed");
    const after = await r.cmd("r2", 'LIST "" "*"');
    expect(after).toContain('"Work/2026/Q1"');
    expect(after).not.toContain("Projects");
    expect(await r.cmd("r3", "RENAME Work Trash")).toContain("r3 NO [ALREADYEXISTS]");
    expect(await r.cmd("r4", "RENAME Nowhere Else")).toContain("r4 NO [NONEXISTENT]");
    expect(await r.cmd("r5", "RENAME Work Work/inside")).toContain("r5 NO [CANNOT]");
    expect(await r.cmd("d1", "DELETE Work")).toContain("d1 NO [INUSE]");
    expect(await r.cmd("d2", "DELETE INBOX")).toContain("d2 NO [CANNOT]");
    expect(await r.cmd("d3", "DELETE Nowhere")).toContain("d3 NO [NONEXISTENT]");
    expect(await r.cmd("d4", "DELETE Work/2026/Q1")).toContain("d4 OK");
    expect(await r.cmd("d5", "DELETE Work/2026")).toContain("d5 OK");
    expect(await r.cmd("d6", 'LIST "" "Work*"')).toBe('* LIST (\\HasNoChildren) "/" "Work"\r\nd6 OK LIST completed\r\n');
    // Wrong arity is BAD; the session goes on.
    expect(await r.cmd("b1", "CREATE")).toContain("b1 BAD");
    expect(await r.cmd("b2", "RENAME a")).toContain("b2 BAD");
    expect(await r.cmd("b3", "NOOP")).toContain("b3 OK");
    r.close();
  });

  test("APPEND with flags and internal date answers APPENDUID; STATUS and SELECT of the mailbox agree; LITERAL+", async () => {
    const box = await newBox(inst);
    const c = await connected(inst, box);
    const res = await appendTo(c, "Drafts", mail("draft one"), ["\\Seen", "\\Flagged"], new Date("2024-05-01T10:00:00Z"));
    expect(res).toMatchObject({ destination: "Drafts" });
    expect(res.uid).toBeGreaterThan(0);
    expect(res.uidValidity).toBeGreaterThan(0);
    const st = await stat(c, "Drafts", { messages: true, unseen: true, uidNext: true, uidValidity: true });
    expect(st).toMatchObject({ messages: 1, unseen: 0, uidNext: res.uid! + 1 });
    expect(BigInt(st.uidValidity!)).toBe(BigInt(res.uidValidity!));
    // INBOX is not touched by an APPEND elsewhere.
    expect((await stat(c, "INBOX", { messages: true })).messages).toBe(0);
    const mb = await c.mailboxOpen("Drafts");
    expect(mb.exists).toBe(1);
    const msg = must(await c.fetchOne("1", { uid: true, flags: true, internalDate: true, envelope: true, source: true }), "FETCH");
    expect(msg.uid).toBe(res.uid!);
    // The first session to select Drafts since the APPEND: the message is \Recent in it.
    expect([...msg.flags!].sort()).toEqual(["\\Flagged", "\\Recent", "\\Seen"]);
    expect(new Date(msg.internalDate as Date).toISOString()).toBe("2024-05-01T10:00:00.000Z");
    expect(msg.envelope!.subject).toBe("draft one");
    expect(msg.source!.toString()).toBe(mail("draft one"));
    await c.logout();

    // Raw: LITERAL+ (no continuation), a time zone in the date, unknown mailbox, bad date.
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    const body = mail("raw append");
    r.write(`p1 APPEND Sent (\\Seen) "05-Jan-2025 23:30:00 -0200" {${Buffer.byteLength(body)}+}\r\n${body}\r\n`);
    const ok = await r.until("p1 ");
    expect(ok).toMatch(/p1 OK \[APPENDUID \d+ \d+\] APPEND completed/);
    expect(await r.cmd("p2", `APPEND Nowhere {1+}\r\nx`)).toContain("p2 NO [TRYCREATE]");
    expect(await r.cmd("p3", `APPEND Sent "99-Foo-2025 00:00:00 +0000" {1+}\r\nx`)).toContain("p3 BAD");
    expect(await r.cmd("p4", `APPEND Sent (\\Bogus) {1+}\r\nx`)).toContain("p4 BAD");
    r.close();
    const sent = await rest(box, "Sent");
    expect(sent.map((m) => [m.subject, m.folder, m.read, m.received_at])).toEqual([
      ["raw append", "Sent", true, "2025-01-06T01:30:00.000Z"],
    ]);
  });

  test("APPEND takes messages up to the SMTP size limit once logged in (literals stay at 1 MB before log-in)", async () => {
    const box = await newBox(inst);
    const pre = await RawImap.open(inst.ports.imap!);
    await pre.until("* OK");
    pre.write("a1 LOGIN {2000000}\r\n");
    expect(await pre.until("a1 ")).toContain("a1 BAD Literal too large");
    pre.close();
    const c = await connected(inst, box);
    const big = mail("big one", `${"0123456789abcdef".repeat(64)}\r\n`.repeat(3 * 1024));
    expect(Buffer.byteLength(big)).toBeGreaterThan(3 * 1024 * 1024);
    const res = await appendTo(c, "Sent", big, ["\\Seen"]);
    expect(res.uid).toBeGreaterThan(0);
    await c.logout();
    const [m] = await rest(box, "Sent");
    expect(m.size_bytes).toBe(Buffer.byteLength(big));
    const raw = await inst.api(`/v1/messages/${m.id}/raw`);
    expect(Buffer.from(await raw.arrayBuffer()).equals(Buffer.from(big))).toBe(true);
  });

  test("COPY and MOVE answer COPYUID; MOVE expunges the sources; the selected target sees EXISTS", async () => {
    const box = await newBox(inst);
    for (const s of ["m1", "m2", "m3"]) await sendRawMail(inst, box.address, mail(s));
    const c = await connected(inst, box);
    await c.mailboxCreate("Keep");
    await c.mailboxOpen("INBOX");
    const copied = await copyOf(c, "1:2", "Keep");
    expect(copied).toMatchObject({ path: "INBOX", destination: "Keep" });
    expect(copied.uidMap!.size).toBe(2);
    const srcUids = [...copied.uidMap!.keys()];
    expect(srcUids).toEqual([1, 2]);
    expect((await stat(c, "Keep", { messages: true })).messages).toBe(2);
    expect((await stat(c, "INBOX", { messages: true })).messages).toBe(3);

    // A second session watching Keep hears the move arrive.
    const watcher = await connected(inst, box);
    await watcher.mailboxOpen("Keep");
    const moved = await moveOf(c, "3", "Keep");
    expect(moved).toMatchObject({ destination: "Keep" });
    expect([...moved.uidMap!.keys()]).toEqual([3]);
    const newUid = moved.uidMap!.get(3)!;
    expect(c.mailbox && (c.mailbox as any).exists).toBe(2);
    expect((await stat(c, "INBOX", { messages: true })).messages).toBe(2);
    await watcher.noop();
    expect((watcher.mailbox as any).exists).toBe(3);
    const inKeep = await watcher.fetchAll("1:*", { uid: true, envelope: true });
    expect(inKeep.map((m) => m.envelope!.subject)).toEqual(["m1", "m2", "m3"]);
    expect(inKeep.at(-1)!.uid).toBe(newUid);
    await watcher.logout();

    // UID MOVE of nothing is OK without a code; COPY to an unknown mailbox is TRYCREATE.
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    await r.cmd("x0", "SELECT INBOX");
    expect(await r.cmd("x1", "UID MOVE 999 Keep")).toContain("x1 OK UID MOVE completed");
    expect(await r.cmd("x2", "COPY 1 Nowhere")).toContain("x2 NO [TRYCREATE]");
    expect(await r.cmd("x3", "UID COPY 1 Keep")).toMatch(/\* OK|x3 OK \[COPYUID \d+ 1 \d+\] UID COPY completed/);
    await r.cmd("x4", "EXAMINE INBOX");
    expect(await r.cmd("x5", "MOVE 1 Keep")).toContain("x5 NO [READ-ONLY]");
    r.close();
    await c.logout();

    // REST: every message with its folder; the filter picks one mailbox.
    const all = await rest(box);
    expect(all.map((m) => m.folder).sort()).toEqual(["INBOX", "INBOX", "Keep", "Keep", "Keep", "Keep"]);
    expect((await rest(box, "inbox")).map((m) => m.subject).sort()).toEqual(["m1", "m2"]);
    expect((await rest(box, "Keep")).length).toBe(4);
    expect(await rest(box, "Nowhere")).toEqual([]);
    const one = await json(inst.api(`/v1/messages/${all[0].id}`));
    expect(one.body.data.folder).toBe(all[0].folder);
    const q = await json(inst.api(`/v1/messages?view=full&q=${encodeURIComponent("folder:Keep m3")}`));
    expect(q.body.data.map((m: any) => [m.subject, m.folder])).toEqual([["m3", "Keep"]]);
  });

  test("DELETE of a mailbox removes its mail everywhere; counters and quota usage follow appends and copies", async () => {
    const box = await newBox(inst);
    await sendRawMail(inst, box.address, mail("received"));
    const before = await inboxOf(box);
    const c = await connected(inst, box);
    await c.mailboxCreate("Tmp");
    const body = mail("appended", "x".repeat(5000));
    await appendTo(c, "Tmp", body);
    await c.mailboxOpen("INBOX");
    await copyOf(c, "1", "Tmp");
    const mid = await inboxOf(box);
    expect(mid.message_count).toBe(3);
    expect(mid.storage.inbox.used_bytes).toBe(before.storage.inbox.used_bytes * 2 + Buffer.byteLength(body));
    await c.mailboxClose();
    await c.mailboxDelete("Tmp");
    const end = await inboxOf(box);
    expect(end.message_count).toBe(1);
    expect(end.storage.inbox.used_bytes).toBe(before.storage.inbox.used_bytes);
    expect((await rest(box)).map((m) => m.subject)).toEqual(["received"]);
    await c.logout();
  });

  test("RENAME INBOX moves its mail to the new mailbox and leaves INBOX empty; POP3 serves INBOX only", async () => {
    const box = await newBox(inst);
    for (const s of ["old1", "old2"]) await sendRawMail(inst, box.address, mail(s));
    const c = await connected(inst, box);
    await appendTo(c, "Sent", mail("sent one"));
    await c.mailboxRename("INBOX", "Old");
    expect((await stat(c, "INBOX", { messages: true })).messages).toBe(0);
    expect((await stat(c, "Old", { messages: true })).messages).toBe(2);
    await sendRawMail(inst, box.address, mail("new1"));
    expect((await stat(c, "INBOX", { messages: true, unseen: true })).messages).toBe(1);
    await c.logout();

    const p = await Pop3Client.connect(inst.ports.pop3!);
    expect(await p.line()).toStartWith("+OK");
    expect(await p.login(box.address, box.password)).toStartWith("+OK");
    expect(await p.cmd("STAT")).toMatch(/^\+OK 1 \d+/);
    const top = await p.multi("TOP 1 0");
    expect(top.body.toString()).toContain("Subject: new1");
    await p.cmd("QUIT");
    expect((await rest(box, "Old")).map((m) => m.subject).sort()).toEqual(["old1", "old2"]);
  });
});

describe("flags", () => {
  test("\\Answered, \\Draft and keywords are stored, returned, copied; PERMANENTFLAGS has \\*", async () => {
    const box = await newBox(inst);
    await sendRawMail(inst, box.address, mail("k1"));
    await sendRawMail(inst, box.address, mail("k2"));
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    const sel = await r.cmd("f1", "SELECT INBOX");
    expect(sel).toContain("* OK [PERMANENTFLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft \\*)]");
    expect(await r.cmd("f2", "STORE 1 +FLAGS ($Label1 \\Answered)")).toContain("* 1 FETCH (FLAGS ($Label1 \\Answered))");
    expect(await r.cmd("f3", "STORE 1 +FLAGS.SILENT (\\Seen $label1 $Forwarded)")).toBe("f3 OK STORE completed\r\n");
    expect(await r.cmd("f4", "FETCH 1 FLAGS")).toContain("* 1 FETCH (FLAGS (\\Seen $Label1 \\Answered $Forwarded))");
    expect(await r.cmd("f5", "STORE 1 -FLAGS ($LABEL1)")).toContain("* 1 FETCH (FLAGS (\\Seen \\Answered $Forwarded))");
    expect(await r.cmd("f6", "UID STORE 2 FLAGS (\\Draft)")).toContain("FLAGS (\\Draft))");
    expect(await r.cmd("f7", "STORE 1 +FLAGS (\\Bogus)")).toContain("f7 BAD");
    expect(await r.cmd("f8", "COPY 1:2 Archive")).toContain("f8 OK [COPYUID");
    const body = mail("k3");
    r.write(`f9 APPEND Archive (\\Draft $Todo) {${Buffer.byteLength(body)}+}\r\n${body}\r\n`);
    expect(await r.until("f9 ")).toContain("f9 OK [APPENDUID");
    const ex = await r.cmd("g1", "EXAMINE Archive");
    expect(ex).toContain("* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft $Forwarded $Todo)");
    const f = await r.cmd("g2", "FETCH 1:* FLAGS");
    // No session has selected Archive yet: all three are \Recent (EXAMINE shows them, keeps them so).
    expect(f).toContain("* 1 FETCH (FLAGS (\\Recent \\Seen \\Answered $Forwarded))");
    expect(f).toContain("* 2 FETCH (FLAGS (\\Recent \\Draft))");
    expect(f).toContain("* 3 FETCH (FLAGS (\\Recent \\Draft $Todo))");
    expect(await r.cmd("g5", "SEARCH ANSWERED")).toContain("* SEARCH 1\r\n");
    expect(await r.cmd("g6", "SEARCH KEYWORD $todo")).toContain("* SEARCH 3\r\n");
    expect(await r.cmd("g7", "SEARCH UNDRAFT UNKEYWORD $Nothing")).toContain("* SEARCH 1\r\n");
    // STORE FLAGS () clears the extra flags too.
    await r.cmd("g3", "SELECT INBOX");
    // A change from another channel (REST read=true) is announced with the extra flags kept.
    const inboxMsgs = await rest(box, "INBOX");
    const k1 = inboxMsgs.find((m) => m.subject === "k1");
    const uidK1 = /UID (\d+)/.exec(await r.cmd("h0", "FETCH 1 UID"))![1];
    await r.cmd("h1", "STORE 1 -FLAGS.SILENT (\\Seen)");
    expect((await json(inst.api(`/v1/messages/${k1.id}`, { method: "PATCH", json: { read: true } }))).status).toBe(200);
    expect(await r.cmd("h2", "NOOP")).toBe(`* 1 FETCH (UID ${uidK1} FLAGS (\\Seen \\Answered $Forwarded))\r\nh2 OK NOOP completed\r\n`);
    expect(await r.cmd("g4", "STORE 1 FLAGS ()")).toContain("* 1 FETCH (FLAGS ())");
    r.close();
  });
});

describe("a Thunderbird-like session", () => {
  test("special folders found by attribute, APPEND to Sent, delete = MOVE to Trash, EXPUNGE there; REST sees each step", async () => {
    const box = await newBox(inst);
    await sendRawMail(inst, box.address, mail("welcome"));
    await sendRawMail(inst, box.address, mail("spam offer"));
    const c = await connected(inst, box);
    const list = await c.list();
    const byUse = Object.fromEntries(list.filter((b: any) => b.specialUse).map((b: any) => [b.specialUse, b.path]));
    expect(byUse).toMatchObject({ "\\Sent": "Sent", "\\Trash": "Trash", "\\Drafts": "Drafts", "\\Junk": "Junk", "\\Archive": "Archive" });

    // Sending: the client files its copy in Sent, read.
    const sent = await appendTo(c, byUse["\\Sent"], mail("my reply", "thanks", box.address), ["\\Seen"]);
    expect(sent.uid).toBeGreaterThan(0);

    // Deleting in INBOX: Thunderbird moves to Trash (MOVE when offered).
    await c.mailboxOpen("INBOX");
    const spam = (await c.search({ subject: "spam offer" }, { uid: true })) as number[];
    expect(spam).toHaveLength(1);
    await moveOf(c, spam, byUse["\\Trash"], { uid: true });
    expect((await rest(box, "Trash")).map((m) => m.subject)).toEqual(["spam offer"]);
    expect((await rest(box, "INBOX")).map((m) => m.subject)).toEqual(["welcome"]);

    // Emptying the Trash: \Deleted + EXPUNGE.
    await c.mailboxOpen(byUse["\\Trash"]);
    await c.messageFlagsAdd("1:*", ["\\Deleted"]);
    await c.messageDelete("1:*");
    expect((await stat(c, "Trash", { messages: true })).messages).toBe(0);
    await c.logout();

    const all = await rest(box);
    expect(all.map((m) => [m.subject, m.folder]).sort()).toEqual([
      ["my reply", "Sent"],
      ["welcome", "INBOX"],
    ]);
    expect(all.find((m) => m.folder === "Sent").read).toBe(true);
  });
});

describe("quotas count IMAP writes", () => {
  let free: Instance;
  beforeAll(async () => {
    free = await startInboxd({ INBOXD_PLAN: "free" });
  });
  afterAll(async () => {
    await free.stop();
    free.cleanup();
  });

  test("APPEND and COPY into a full inbox answer NO [OVERQUOTA] and store nothing; usage counts what was appended", async () => {
    const box = await newBox(free);
    const r = await RawImap.open(free.ports.imap!);
    await r.login(box);
    expect(await r.cmd("c", "CREATE Kept")).toContain("c OK");
    const msg = mail("appended");
    r.write(`a APPEND INBOX {${msg.length}+}\r\n${msg}\r\n`);
    expect(await r.until("a ")).toContain("a OK [APPENDUID");
    const before = (await json(free.api(`/v1/inboxes/${box.id}`))).body.data;
    expect(before.message_count).toBe(1);
    expect(before.storage.inbox.used_bytes).toBe(msg.length);
    // Fill the inbox up to 10 bytes short of its quota (the free plan's).
    const quota = before.storage.inbox.quota_bytes as number;
    await withDatabase(free.dataDir, (db) => db.run("UPDATE inboxes SET used_bytes = ? WHERE id = ?", [quota - 10, box.id]));
    r.write(`b APPEND Kept {${msg.length}+}\r\n${msg}\r\n`);
    expect(await r.until("b ")).toContain("b NO [OVERQUOTA]");
    expect(await r.cmd("s", "SELECT INBOX")).toContain("* 1 EXISTS");
    expect(await r.cmd("k", "COPY 1 Kept")).toContain("k NO [OVERQUOTA]");
    expect(await r.cmd("t", "STATUS Kept (MESSAGES)")).toContain("(MESSAGES 0)");
    expect((await json(free.api(`/v1/inboxes/${box.id}`))).body.data.message_count).toBe(1);
    r.close();
  });
});
