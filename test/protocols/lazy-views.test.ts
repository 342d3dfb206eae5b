// The IMAP view and the POP3 maildrop of a big mailbox fill in the background after SELECT /
// log-in, which answer from the inbox's counters (issue 19). These tests change the mailbox while
// the fill is under way (the first page is read at once, the rest after turns of the event loop)
// and check that what the client was told stays true: IMAP's count and sequence numbers after the
// announced expunges and arrivals, POP3's numbering fixed at log-in. The server runs in this
// process so that the tests can hold a view between its pages.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Mailbox } from "../../src/protocols/imap/mailbox";
import { Maildrop } from "../../src/protocols/pop3/maildrop";
import { RawImap } from "../support/imap";
import { startInProcess, type InProcess } from "../support/in-process";
import { withDatabase } from "../support/database-rows";

/** More than two of the views' pages (2,000 rows each). */
const N = 4200;
let inst: InProcess;
const api = (path: string, init?: RequestInit) => inst.api(path, init);
const raw = (i: number) =>
  `From: Alice <alice@example.com>\r\nTo: box@example.com\r\nSubject: m${i}\r\nMessage-ID: <lazy-${i}-${Math.random()}@example.com>\r\n\r\nBody ${i}.\r\n`;

/** Each test's inbox, filled before the tests: side by side, three inboxes' imports share group commits. */
let seeded: { imap: string; wire: string; pop3: string };

beforeAll(async () => {
  inst = await startInProcess({ INBOXD_PLAN: "" });
  const [imap, wire, pop3] = await Promise.all([inboxWith(N), inboxWith(2100), inboxWith(N)]);
  seeded = { imap, wire, pop3 };
}, 120_000);
afterAll(() => inst.stop());

async function importOne(inboxId: string, i: number): Promise<void> {
  const r = await api(`/v1/inboxes/${inboxId}/messages`, { method: "POST", headers: { "content-type": "message/rfc822" }, body: raw(i) });
  if (r.status !== 201) throw new Error(`import: ${r.status}`);
}

async function inboxWith(n: number): Promise<string> {
  const ib = await (await api("/v1/inboxes", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json();
  const id = ib.data.id as string;
  for (let i = 0; i < n; i += 32) await Promise.all(Array.from({ length: Math.min(32, n - i) }, (_, k) => importOne(id, i + k)));
  return id;
}

const storedUids = async (inboxId: string) =>
  (
    await withDatabase(inst.dataDir, (db) => db.all<{ uid: number }>("SELECT uid FROM messages WHERE inbox_id = ? ORDER BY uid", [inboxId]))
  ).map((r) => r.uid);
const idsOf = async (inboxId: string, uids: number[]) =>
  (await inst.server.ctx.storage.messages.mailboxDetails(inboxId, null, uids)).map((d) => d.id);

/** Replays untagged EXISTS / EXPUNGE lines on a client's count, as a client does. */
function replay(count: number, lines: string[]): number {
  for (const l of lines) {
    const ex = /^\* (\d+) EXISTS$/.exec(l);
    if (ex) {
      expect(Number(ex[1])).toBeGreaterThanOrEqual(count);
      count = Number(ex[1]);
    }
    const gone = /^\* (\d+) EXPUNGE$/.exec(l);
    if (gone) {
      expect(Number(gone[1])).toBeLessThanOrEqual(count);
      count--;
    }
  }
  return count;
}

describe("IMAP view filled in the background", () => {
  test("deletes (before, between and after its pages) and new mail while it fills: the count and numbers the client keeps are right", async () => {
    const inboxId = seeded.imap;
    const all = await storedUids(inboxId);
    expect(all.length).toBe(N);
    // Deleted before SELECT behind the bus's back; its report comes late (as when removal
    // publishes after its transaction and SELECT read the counters in between).
    const early = all[10]!;
    await withDatabase(inst.dataDir, (db) => db.run("DELETE FROM messages WHERE inbox_id = ? AND uid = ?", [inboxId, early]));
    let mb!: Mailbox;
    const opened = await Mailbox.open(inst.server.ctx, inboxId, false, (m) => {
      mb = m;
      inst.server.ctx.bus.subscribe((e) => {
        if (e.type === "message.deleted" && e.inboxId === inboxId) m.noteDeleted(e.uid);
        if (e.type === "message.received" && e.inboxId === inboxId) m.noteArrived();
      });
    });
    expect(opened).toBe(mb);
    // What SELECT announces: the counters, no row read.
    let count = mb.exists;
    expect(count).toBe(N - 1);
    mb.noteDeleted(early);
    // While the later pages are still to be read: one deletion in the first page, two beyond it,
    // and two arrivals.
    const doomed = [all[5]!, all[2500]!, all[N - 3]!];
    expect(await inst.server.services.removal.deleteMessages(inst.project, await idsOf(inboxId, doomed))).toBe(3);
    await Promise.all([importOne(inboxId, N + 1), importOne(inboxId, N + 2)]);
    await mb.ready;
    const lines = await mb.refresh(true);
    count = replay(count, lines);
    // The client's count and the view agree with the rows, and each sequence number names the UID
    // the rows put there.
    const truth = await storedUids(inboxId);
    expect(truth.length).toBe(N - 1 - 3 + 2);
    expect(count).toBe(truth.length);
    expect(mb.exists).toBe(truth.length);
    expect(Array.from({ length: mb.exists }, (_, i) => mb.at(i).uid)).toEqual(truth);
    expect(lines.filter((l) => l.endsWith("EXPUNGE")).length).toBe(3);
    // A later deletion is numbered from the view as the client now holds it.
    const last = truth.at(-1)!;
    await inst.server.services.removal.deleteMessages(inst.project, await idsOf(inboxId, [last]));
    expect(await mb.refresh(true)).toContain(`* ${truth.length} EXPUNGE`);
  }, 180_000);

  test("over the wire: SELECT announces the counters; STATUS and FETCH right after it agree with the rows", async () => {
    const inboxId = seeded.wire;
    const ib = (await (await api(`/v1/inboxes/${inboxId}`)).json()).data;
    const pw = (await (await api(`/v1/inboxes/${inboxId}/credentials`)).json()).data.password;
    const c = await RawImap.open(inst.server.ctx.ports.imap!);
    const cmd = (tag: string, line: string) => c.cmd(tag, line);
    await c.login({ id: inboxId, address: ib.address, password: pw });
    const sel = await cmd("b", "SELECT INBOX");
    expect(sel).toContain("* 2100 EXISTS");
    expect(sel).toContain("* OK [UNSEEN 1]");
    expect(await cmd("c", "STATUS INBOX (MESSAGES)")).toContain("MESSAGES 2100");
    const f = await cmd("d", "FETCH 2099:* (UID)");
    const uids = await storedUids(inboxId);
    expect(f).toContain(`* 2099 FETCH (UID ${uids[2098]})`);
    expect(f).toContain(`* 2100 FETCH (UID ${uids[2099]})`);
    c.close();
  }, 180_000);
});

describe("POP3 maildrop filled in the background", () => {
  test("numbering is fixed at log-in; messages deleted while it fills keep a number, as deleted elsewhere", async () => {
    const inboxId = seeded.pop3;
    const all = await storedUids(inboxId);
    const inbox = (await inst.server.ctx.storage.inboxes.byId(inboxId))!;
    const drop = await Maildrop.open(inst.server.ctx, inst.server.services, inbox);
    expect(drop.count).toBe(N);
    const doomed = [all[3]!, all[3000]!];
    expect(await inst.server.services.removal.deleteMessages(inst.project, await idsOf(inboxId, doomed))).toBe(2);
    await importOne(inboxId, N + 1); // arrives after log-in: not in this session's drop
    await drop.ready;
    expect(drop.count).toBe(N);
    const ids = await drop.ids(Array.from({ length: N }, (_, i) => i + 1));
    const live = await idsOf(
      inboxId,
      all.filter((u) => !doomed.includes(u)),
    );
    // The messages still stored, in arrival order, each under one number; two numbers name nothing.
    expect(ids.filter(Boolean)).toEqual(live);
    expect(ids.filter((id) => id === "").length).toBe(2);
    const gone = ids.indexOf("") + 1;
    expect(await drop.raw(gone)).toBeNull();
    const kept = ids.findIndex(Boolean) + 1;
    expect(new TextDecoder().decode((await drop.raw(kept))!)).toContain("Subject: m");
  }, 180_000);
});
