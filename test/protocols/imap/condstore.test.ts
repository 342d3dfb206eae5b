// CONDSTORE, QRESYNC, ENABLE and ESEARCH (RFC 7162, RFC 5161, RFC 4731; issue 21) and the
// announcement of every flag change across sessions and channels. Raw sockets for exact bytes,
// imapflow for what a real client does with them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, type Instance } from "../../support/harness";
import { connected, imapflow, newBox, RawImap, sendRawMail, type Box } from "../../support/imap";
import { Pop3Client } from "../../support/pop3-client";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd();
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const mail = (subject: string) =>
  [`From: Alice <alice@example.com>`, "To: someone@example.com", `Subject: ${subject}`, "", "hello", ""].join("\r\n");

async function boxWith(n: number): Promise<Box> {
  const box = await newBox(inst);
  for (let i = 1; i <= n; i++) await sendRawMail(inst, box.address, mail(`m${i}`));
  return box;
}

const num = (text: string, re: RegExp): number => {
  const m = re.exec(text);
  if (!m) throw new Error(`no ${re} in ${text}`);
  return Number(m[1]);
};

async function raw(box: Box): Promise<RawImap> {
  const r = await RawImap.open(inst.ports.imap!);
  await r.login(box);
  return r;
}

describe("CONDSTORE", () => {
  test("capabilities, ENABLE, SELECT HIGHESTMODSEQ, STORE bumps MODSEQ, FETCH MODSEQ/CHANGEDSINCE, STATUS", async () => {
    const box = await boxWith(3);
    const r = await raw(box);
    const caps = await r.cmd("c", "CAPABILITY");
    for (const cap of ["CONDSTORE", "QRESYNC", "ESEARCH", "ENABLE"]) expect(caps).toContain(` ${cap}`);
    expect(await r.cmd("e", "ENABLE CONDSTORE")).toContain("* ENABLED CONDSTORE\r\n");
    const sel = await r.cmd("s", "SELECT INBOX");
    const h0 = num(sel, /\[HIGHESTMODSEQ (\d+)\]/);
    const st1 = await r.cmd("t1", "STORE 1 +FLAGS (\\Seen)");
    const m1 = num(st1, /\* 1 FETCH \(FLAGS \(\\Seen\) MODSEQ \((\d+)\)\)/);
    expect(m1).toBeGreaterThan(h0);
    const st2 = await r.cmd("t2", "STORE 2 +FLAGS ($Work)");
    const m2 = num(st2, /\* 2 FETCH .*MODSEQ \((\d+)\)/);
    expect(m2).toBeGreaterThan(m1);
    const f = await r.cmd("f", "FETCH 1:* (FLAGS) (CHANGEDSINCE " + m1 + ")");
    expect(f).toContain(`* 2 FETCH (FLAGS ($Work) MODSEQ (${m2}))`);
    expect(f).not.toContain("* 1 FETCH");
    expect(f).not.toContain("* 3 FETCH");
    const all = await r.cmd("f2", "UID FETCH 1:* (MODSEQ)");
    expect(all.match(/MODSEQ \(\d+\)/g)?.length).toBe(3);
    const status = await r.cmd("st", "STATUS INBOX (HIGHESTMODSEQ MESSAGES)");
    expect(num(status, /HIGHESTMODSEQ (\d+)/)).toBe(m2);
    r.close();
  });

  test("the implicit \\Seen of FETCH BODY[] is committed before the OK: its FETCH reports the new MODSEQ, REST and a second session see it", async () => {
    const box = await boxWith(2);
    const r = await raw(box);
    const h0 = num(await r.cmd("s", "SELECT INBOX (CONDSTORE)"), /\[HIGHESTMODSEQ (\d+)\]/);
    const f = await r.cmd("f", "FETCH 1:2 (BODY[] MODSEQ)");
    expect(f).toContain("f OK");
    const m1 = num(f, /\* 1 FETCH \(BODY\[\] \{\d+\}\r\n[\s\S]*?MODSEQ \((\d+)\) FLAGS \(\\Seen\)\)/);
    const m2 = num(f, /\* 2 FETCH \(BODY\[\] \{\d+\}\r\n[\s\S]*?MODSEQ \((\d+)\) FLAGS \(\\Seen\)\)/);
    expect(m1).toBeGreaterThan(h0);
    expect(m2).toBeGreaterThan(h0);
    // Right after the OK, nothing to wait for: the change and its modseq are in the database.
    const list = await json(inst.api(`/v1/inboxes/${box.id}/messages`));
    expect(list.body.data.map((m: any) => m.read)).toEqual([true, true]);
    const other = await raw(box);
    const status = await other.cmd("st", "STATUS INBOX (HIGHESTMODSEQ UNSEEN)");
    expect(status).toContain("UNSEEN 0");
    expect(num(status, /HIGHESTMODSEQ (\d+)/)).toBe(Math.max(m1, m2));
    // A second FETCH of the body changes nothing: no FLAGS appended, the MODSEQ stays.
    const again = await r.cmd("g", "FETCH 1 (BODY[] MODSEQ)");
    expect(again).toContain(`MODSEQ (${m1}))`);
    expect(again).not.toContain("FLAGS");
    r.close();
    other.close();
  });
});

describe("STORE UNCHANGEDSINCE, SEARCH MODSEQ, ESEARCH", () => {
  test("a conditional STORE leaves messages changed since alone and names them in [MODIFIED]", async () => {
    const box = await boxWith(3);
    const r = await raw(box);
    const sel = await r.cmd("s", "SELECT INBOX (CONDSTORE)");
    const h0 = num(sel, /\[HIGHESTMODSEQ (\d+)\]/);
    await r.cmd("a", "STORE 2 +FLAGS (\\Flagged)");
    const st = await r.cmd("b", `STORE 1:3 (UNCHANGEDSINCE ${h0}) +FLAGS (\\Seen)`);
    expect(st).toContain("b OK [MODIFIED 2]");
    expect(st).toMatch(/\* 1 FETCH \(FLAGS \(\\Seen\) MODSEQ \(\d+\)\)/);
    expect(st).not.toMatch(/\* 2 FETCH \(FLAGS \([^)]*\\Seen/);
    const uid = await r.cmd("c", "UID FETCH 1:* (UID)");
    const uid2 = num(uid, /\* 2 FETCH \(UID (\d+)\)/);
    expect(await r.cmd("d", `UID STORE ${uid2} (UNCHANGEDSINCE 1) FLAGS.SILENT (\\Deleted)`)).toContain(`d OK [MODIFIED ${uid2}]`);
    expect(await r.cmd("e", "STORE 1 (UNCHANGEDSINCE x) +FLAGS (\\Seen)")).toContain("e BAD");
    r.close();
  });

  test("SEARCH MODSEQ answers the highest modseq; ESEARCH RETURN MIN MAX ALL COUNT, UID form", async () => {
    const box = await boxWith(4);
    const r = await raw(box);
    await r.cmd("s", "SELECT INBOX");
    // The first CONDSTORE-enabling command in a selected mailbox tells the HIGHESTMODSEQ (RFC 7162 §3.1).
    expect(await r.cmd("z", "FETCH 1 (MODSEQ)")).toMatch(/^\* OK \[HIGHESTMODSEQ \d+\]/);
    const m3 = num(await r.cmd("a", "STORE 3 +FLAGS (\\Seen)"), /MODSEQ \((\d+)\)/);
    const m4 = num(await r.cmd("b", "STORE 4 +FLAGS (\\Seen)"), /MODSEQ \((\d+)\)/);
    expect(await r.cmd("c", `SEARCH MODSEQ ${m3}`)).toContain(`* SEARCH 3 4 (MODSEQ ${m4})\r\n`);
    expect(await r.cmd("d", `SEARCH MODSEQ "/flags/\\\\seen" all ${m4 + 1}`)).toContain("* SEARCH\r\n");
    expect(await r.cmd("e", "SEARCH RETURN (MIN MAX COUNT ALL) ALL")).toContain('* ESEARCH (TAG "e") MIN 1 MAX 4 ALL 1:4 COUNT 4\r\n');
    expect(await r.cmd("f", "SEARCH RETURN () SEEN")).toContain('* ESEARCH (TAG "f") ALL 3:4\r\n');
    expect(await r.cmd("g", "SEARCH RETURN (COUNT) 99")).toContain('* ESEARCH (TAG "g") COUNT 0\r\n');
    const uids = await r.cmd("h", "UID SEARCH RETURN (MIN MAX) SEEN");
    expect(uids).toMatch(/\* ESEARCH \(TAG "h"\) UID MIN \d+ MAX \d+\r\n/);
    expect(await r.cmd("i", `SEARCH RETURN (MAX) MODSEQ ${m3}`)).toContain(`* ESEARCH (TAG "i") MAX 4 MODSEQ ${m4}\r\n`);
    expect(await r.cmd("j", "SEARCH RETURN (SAVE) ALL")).toContain("j BAD");
    r.close();
  });
});

describe("QRESYNC", () => {
  test("raw: SELECT (QRESYNC …) reports VANISHED (EARLIER) and changed flags; VANISHED replaces EXPUNGE; UID FETCH … VANISHED", async () => {
    const box = await boxWith(4);
    const a = await raw(box);
    expect(await a.cmd("q0", "SELECT INBOX (QRESYNC (1 1))")).toContain("q0 BAD");
    expect(await a.cmd("e", "ENABLE QRESYNC")).toContain("* ENABLED QRESYNC\r\n");
    const sel = await a.cmd("s", "SELECT INBOX");
    const uidValidity = num(sel, /\[UIDVALIDITY (\d+)\]/);
    const h0 = num(sel, /\[HIGHESTMODSEQ (\d+)\]/);
    const uids = [...(await a.cmd("u", "UID SEARCH ALL")).matchAll(/\d+/g)].map((m) => Number(m[0]));
    expect(uids.length).toBe(4);
    // Another session: \Answered on the first, the second expunged.
    const b = await raw(box);
    await b.cmd("s", "SELECT INBOX");
    await b.cmd("a", "STORE 1 +FLAGS (\\Answered)");
    await b.cmd("d", "STORE 2 +FLAGS (\\Deleted)");
    expect(await b.cmd("x", "EXPUNGE")).toContain("* 2 EXPUNGE");
    b.close();
    // A (QRESYNC on) hears of both: FETCH with MODSEQ, and VANISHED instead of EXPUNGE.
    const noop = await a.cmd("n", "NOOP");
    expect(noop).toMatch(new RegExp(`\\* 1 FETCH \\(UID ${uids[0]} FLAGS \\(\\\\Answered\\) MODSEQ \\(\\d+\\)\\)`));
    expect(noop).toContain(`* VANISHED ${uids[1]}\r\n`);
    expect(noop).not.toContain("EXPUNGE");
    // UID FETCH … (CHANGEDSINCE h0 VANISHED): the expunged UID (EARLIER) and the changed message.
    const f = await a.cmd("f", `UID FETCH 1:* (FLAGS) (CHANGEDSINCE ${h0} VANISHED)`);
    expect(f).toContain(`* VANISHED (EARLIER) ${uids[1]}\r\n`);
    expect(f).toMatch(new RegExp(`UID ${uids[0]} .*MODSEQ`));
    expect(await a.cmd("g", `FETCH 1:* (FLAGS) (CHANGEDSINCE ${h0} VANISHED)`)).toContain("g BAD");
    // Reselect with the old state: [CLOSED], VANISHED (EARLIER), the changed flags.
    const re = await a.cmd("r", `SELECT INBOX (QRESYNC (${uidValidity} ${h0} ${uids[0]}:${uids[3]}))`);
    expect(re).toContain("* OK [CLOSED]");
    expect(re).toContain(`* VANISHED (EARLIER) ${uids[1]}\r\n`);
    expect(re).toMatch(new RegExp(`\\* 1 FETCH \\(UID ${uids[0]} FLAGS \\(\\\\Answered\\) MODSEQ \\(\\d+\\)\\)`));
    expect(re).toContain("r OK [READ-WRITE]");
    // Up to date: nothing to report.
    const h1 = num(re, /\[HIGHESTMODSEQ (\d+)\]/);
    const same = await a.cmd("t", `SELECT INBOX (QRESYNC (${uidValidity} ${h1}))`);
    expect(same).not.toContain("VANISHED");
    expect(same).not.toContain("FETCH");
    // Another UIDVALIDITY: the resync part is ignored.
    expect(await a.cmd("v", `SELECT INBOX (QRESYNC (${uidValidity + 1} 1))`)).not.toContain("VANISHED");
    a.close();
  });

  test("imapflow with qresync: reopening with changedSince/uidValidity yields vanished and flag events", async () => {
    const box = await boxWith(3);
    const client = imapflow(inst, box, { qresync: true });
    await client.connect();
    const first = await client.mailboxOpen("INBOX");
    const modseq = first.highestModseq!;
    expect(typeof modseq).toBe("bigint");
    const uids: number[] = [];
    for await (const m of client.fetch("1:*", { uid: true })) uids.push(m.uid);
    await client.mailboxClose();
    const other = await connected(inst, box);
    await other.mailboxOpen("INBOX");
    await other.messageFlagsAdd({ uid: uids[2]! }, ["$Done"], { uid: true });
    await other.messageDelete({ uid: uids[0]! }, { uid: true });
    await other.logout();
    const vanished: number[] = [];
    const flags: Array<{ uid: number; flags: Set<string>; modseq?: bigint }> = [];
    client.on("expunge", (e: any) => e.vanished && vanished.push(e.uid));
    client.on("flags", (e: any) => flags.push(e));
    const again = await client.mailboxOpen("INBOX", { changedSince: modseq, uidValidity: first.uidValidity } as any);
    expect(again.highestModseq! > modseq).toBe(true);
    expect(vanished).toContain(uids[0]!);
    const f = flags.find((x) => x.uid === uids[2]);
    expect(f && [...f.flags]).toContain("$Done");
    expect(f?.modseq).toBeDefined();
    // changedSince on FETCH: only the changed message.
    const changed: number[] = [];
    for await (const m of client.fetch("1:*", { uid: true, flags: true }, { uid: true, changedSince: modseq })) changed.push(m.uid);
    expect(changed).toEqual([uids[2]!]);
    await client.logout();
  });
});

describe("announcements across sessions and channels", () => {
  test("an IDLE session on a non-INBOX mailbox hears APPEND, COPY, keyword, \\Answered and REST changes, with MODSEQ", async () => {
    const box = await boxWith(1);
    const a = await raw(box);
    await a.cmd("c", "CREATE Work");
    await a.cmd("e", "ENABLE CONDSTORE");
    await a.cmd("s", "SELECT Work");
    a.write("i IDLE\r\n");
    await a.until("+ ");
    const b = await raw(box);
    const msg = mail("appended");
    b.write(`p APPEND Work {${msg.length}+}\r\n${msg}\r\n`);
    await b.until("p OK");
    expect(await a.until("* 1 EXISTS")).toContain("* 1 EXISTS");
    await b.cmd("s", "SELECT INBOX");
    expect(await b.cmd("k", "COPY 1 Work")).toContain("k OK [COPYUID");
    expect(await a.until("* 2 EXISTS")).toContain("* 2 EXISTS");
    // MOVE in and out of the mailbox A watches. A selected it read-write, so what arrives is \Recent in A.
    await sendRawMail(inst, box.address, mail("to move"));
    await b.cmd("n", "NOOP");
    expect(await b.cmd("m", "MOVE 2 Work")).toContain("m OK");
    expect(await a.until("* 3 EXISTS")).toContain("* 3 EXISTS");
    await b.cmd("w", "SELECT Work");
    expect(await b.cmd("m2", "MOVE 3 INBOX")).toContain("* 3 EXPUNGE");
    expect(await a.until("* 3 EXPUNGE")).toContain("* 3 EXPUNGE");
    await b.cmd("x", "STORE 1 +FLAGS (\\Answered $Label1)");
    expect(await a.until("* 1 FETCH")).toMatch(/\* 1 FETCH \(UID \d+ FLAGS \(\\Recent \\Answered \$Label1\) MODSEQ \(\d+\)\)/);
    await b.cmd("y", "STORE 2 +FLAGS (\\Draft)");
    expect(await a.until("* 2 FETCH")).toMatch(/\* 2 FETCH \(UID \d+ FLAGS \(\\Recent \\Draft\) MODSEQ \(\d+\)\)/);
    b.close();
    // REST marks everything read: \Seen shows up, the extra flags kept in the line.
    const newest = (await json(inst.api(`/v1/inboxes/${box.id}/messages?limit=1`))).body.data[0].id;
    const marked = await inst.api(`/v1/inboxes/${box.id}/mark-read`, { method: "POST", json: { last_read_ulid: newest } });
    expect(marked.status).toBe(200);
    const seen = await a.until("* 2 FETCH");
    expect(seen).toMatch(/\* 2 FETCH \(UID \d+ FLAGS \(\\Recent \\Seen \\Draft\) MODSEQ \(\d+\)\)/);
    a.write("DONE\r\n");
    await a.until("i OK");
    a.close();
  });

  test("POP3 deletion reaches a selected INBOX as EXPUNGE, and bumps HIGHESTMODSEQ", async () => {
    const box = await boxWith(2);
    const a = await raw(box);
    const h0 = num(await a.cmd("s", "SELECT INBOX"), /\[HIGHESTMODSEQ (\d+)\]/);
    const p = await Pop3Client.connect(inst.ports.pop3!);
    await p.line();
    await p.login(box.address, box.password);
    expect(await p.cmd("DELE 1")).toMatch(/^\+OK/);
    expect(await p.cmd("QUIT")).toMatch(/^\+OK/);
    expect(await a.cmd("n", "NOOP")).toContain("* 1 EXPUNGE");
    const st = await a.cmd("t", "STATUS INBOX (HIGHESTMODSEQ)");
    expect(num(st, /HIGHESTMODSEQ (\d+)/)).toBeGreaterThan(h0);
    a.close();
  });
});

describe("modseq bookkeeping", () => {
  test("every mailbox has its own HIGHESTMODSEQ; APPEND, COPY, RENAME INBOX and EXPUNGE move it, reads do not", async () => {
    const box = await boxWith(2);
    const r = await raw(box);
    await r.cmd("e", "ENABLE CONDSTORE");
    await r.cmd("c", "CREATE Work");
    const hs = async (name: string) => num(await r.cmd("h", `STATUS ${name} (HIGHESTMODSEQ)`), /HIGHESTMODSEQ (\d+)/);
    const work0 = await hs("Work");
    const msg = mail("filed");
    r.write(`p APPEND Work (\\Flagged) {${msg.length}+}\r\n${msg}\r\n`);
    await r.until("p OK");
    const work1 = await hs("Work");
    expect(work1).toBeGreaterThan(work0);
    // (An APPEND is delivered through INBOX and then filed, so INBOX's counter moved too: harmless,
    // a HIGHESTMODSEQ may run ahead of its messages.)
    const inbox0 = await hs("INBOX");
    await r.cmd("s", "SELECT Work");
    // The filed message carries its mailbox's counter, whatever INBOX's is.
    expect(await r.cmd("f", "FETCH 1 (MODSEQ)")).toContain(`* 1 FETCH (MODSEQ (${work1}))`);
    await r.cmd("s2", "SELECT INBOX");
    await r.cmd("k", "COPY 1:2 Work");
    const work2 = await hs("Work");
    expect(work2).toBeGreaterThan(work1);
    await r.cmd("f2", "FETCH 1:2 (BODY.PEEK[HEADER] MODSEQ)");
    expect(await hs("INBOX")).toBe(inbox0);
    await r.cmd("d", "STORE 1 +FLAGS.SILENT (\\Deleted)");
    const inbox1 = await hs("INBOX");
    await r.cmd("x", "EXPUNGE");
    expect(await hs("INBOX")).toBeGreaterThan(inbox1);
    await r.cmd("u", "UNSELECT");
    // RENAME INBOX moves the rows without setting modseq: the migration's safety-net trigger numbers them.
    expect(await r.cmd("rn", "RENAME INBOX Old")).toContain("rn OK");
    await r.cmd("s3", "SELECT Old");
    const old = await r.cmd("f3", "FETCH 1:* (MODSEQ)");
    const oldHigh = await hs("Old");
    expect(old).toContain(`MODSEQ (${oldHigh})`);
    expect(oldHigh).toBeGreaterThan(1);
    r.close();
  });
});

describe("bad input", () => {
  test("malformed CONDSTORE/QRESYNC/ESEARCH arguments answer BAD and the session goes on", async () => {
    const box = await boxWith(2);
    const r = await raw(box);
    await r.cmd("e", "ENABLE QRESYNC");
    const bad = [
      "SELECT INBOX (CONDSTORE",
      "SELECT INBOX (FOO)",
      "SELECT INBOX (QRESYNC (0 1))",
      "SELECT INBOX (QRESYNC (1 0))",
      "SELECT INBOX (QRESYNC (1 1 x:y))",
      "SELECT INBOX (QRESYNC (1 1 1:* (1 2 3)))",
      "SELECT INBOX (QRESYNC (1 99999999999999999999))",
    ];
    for (const [i, c] of bad.entries()) expect(await r.cmd(`b${i}`, c)).toMatch(new RegExp(`b${i} BAD`));
    await r.cmd("s", "SELECT INBOX");
    const badSelected = [
      "FETCH 1 (FLAGS) (CHANGEDSINCE)",
      "FETCH 1 (FLAGS) (CHANGEDSINCE -1)",
      "FETCH 1 (FLAGS) (FOO 1)",
      "FETCH 1 (FLAGS) (CHANGEDSINCE 1) extra",
      "STORE 1 (UNCHANGEDSINCE) +FLAGS (\\Seen)",
      "STORE 1 (FOO 1) +FLAGS (\\Seen)",
      "SEARCH RETURN ALL",
      "SEARCH RETURN (FOO) ALL",
      "SEARCH MODSEQ",
      'SEARCH MODSEQ "/flags/\\\\seen" bogus 1',
      "SEARCH MODSEQ 99999999999999999999",
    ];
    for (const [i, c] of badSelected.entries()) expect(await r.cmd(`c${i}`, c)).toMatch(new RegExp(`c${i} BAD`));
    expect(await r.cmd("ok", "FETCH 1:* (UID MODSEQ)")).toContain("ok OK");
    r.close();
  });
});
