// CONDSTORE, QRESYNC, ENABLE and ESEARCH (RFC 7162, RFC 5161, RFC 4731; issue 21) and the
// announcement of every flag change across sessions and channels. Raw sockets for exact bytes,
// imapflow for what a real client does with them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, type Instance } from "../../support/harness";
import { connected, newBox, RawImap, sendRawMail, type Box } from "../../support/imap";
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
