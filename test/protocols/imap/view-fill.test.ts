// A SELECT's view fills in the background from a snapshot (issue 19): a command on the part it
// names is answered before the rest is read, and that part is the mailbox as SELECT saw it, even
// when messages are deleted and delivered meanwhile. INBOXD_IMAP_VIEW_FILL_HOLD stops the fill
// after 3 messages until a command needs more: a command that waited for the whole view would
// never be answered (the test would time out), so each answer below came from a partial view.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, type Instance } from "../../support/harness";
import { newBox, RawImap, send, type Box } from "../../support/imap";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd({ INBOXD_IMAP_VIEW_FILL_HOLD: "3" });
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

async function withMessages(n: number): Promise<Box> {
  const box = await newBox(inst);
  for (let i = 1; i <= n; i++) await send(inst, box.address, { subject: `m${i}`, text: `body ${i}` });
  return box;
}

/** Message ids, oldest first (UID order). */
async function restIds(box: Box): Promise<string[]> {
  const r = await json(inst.api(`/v1/inboxes/${box.id}/messages?limit=100`));
  return r.body.data.map((m: any) => m.id).reverse();
}

describe("IMAP view filled on demand", () => {
  test("FETCH, UID FETCH and STORE on the filled part answer while the rest is unread", async () => {
    const box = await withMessages(8);
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    expect(await r.cmd("a1", "SELECT INBOX")).toContain("* 8 EXISTS");
    const head = await r.cmd("a2", "FETCH 1:3 (UID BODY.PEEK[HEADER.FIELDS (SUBJECT)])");
    expect(head).toContain("* 1 FETCH (UID 1 ");
    expect(head).toContain("Subject: m3");
    expect(head).toContain("a2 OK");
    expect(await r.cmd("a3", "UID FETCH 2 (UID FLAGS)")).toContain("* 2 FETCH (UID 2 FLAGS ())");
    expect(await r.cmd("a4", "STORE 3 +FLAGS (\\Flagged)")).toContain("* 3 FETCH (FLAGS (\\Flagged");
    // A deletion since SELECT is announced with the reply of the next command that may announce it
    // (a UID command) once the view is whole; the event is in before the REST reply. The view is
    // not whole yet: the reply carries no EXPUNGE (NOOP below, which needs the whole, does).
    const ids = await restIds(box);
    expect((await inst.api(`/v1/messages/${ids[1]}`, { method: "DELETE" })).status).toBe(204);
    const partial = await r.cmd("a5", "UID FETCH 1,3 (UID)");
    expect(partial).toContain("* 3 FETCH (UID 3)");
    expect(partial).not.toContain("EXPUNGE");
    // The whole view is still there to be had: 1:* needs all of it and lifts the hold.
    const all = await r.cmd("a6", "FETCH 1:* (UID FLAGS)");
    expect(all).toContain("* 8 FETCH (UID 8 ");
    expect(all).toContain("* 3 FETCH (UID 3 FLAGS (\\Flagged))");
    const noop = await r.cmd("a7", "NOOP");
    expect(noop).toContain("* 2 EXPUNGE");
    expect(noop).toContain("a7 OK");
    r.close();
  });

  test("the part filled after SELECT is the mailbox at SELECT: deletions and arrivals since wait for NOOP", async () => {
    const box = await withMessages(8);
    const ids = await restIds(box);
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    expect(await r.cmd("a1", "SELECT INBOX")).toContain("* 8 EXISTS");
    expect(await r.cmd("a2", "FETCH 2 (UID)")).toContain("* 2 FETCH (UID 2)");
    // After SELECT, before the fill reaches them: UID 5 deleted, one message delivered.
    expect((await inst.api(`/v1/messages/${ids[4]}`, { method: "DELETE" })).status).toBe(204);
    await send(inst, box.address, { subject: "m9", text: "late" });
    // Sequence numbers are still SELECT's: 6 is UID 6 (a fill from the live rows would say UID 7).
    const mid = await r.cmd("a3", "FETCH 6:7 (UID)");
    expect(mid).toContain("* 6 FETCH (UID 6)");
    expect(mid).toContain("* 7 FETCH (UID 7)");
    expect(mid).not.toContain("EXPUNGE");
    // UID 8 is the last of SELECT's: once filled, the view is whole and the updates may follow
    // this answer already (UID commands may announce EXPUNGE); NOOP's answer at the latest.
    const last = await r.cmd("a4", "UID FETCH 8 (UID)");
    expect(last).toContain("* 8 FETCH (UID 8)");
    let noop = last + (await r.cmd("a5", "NOOP"));
    // The arrival's event may reach the session after this NOOP (delivery publishes it after the
    // SMTP answer): ask again until it has.
    for (let i = 0; i < 50 && !noop.includes("EXISTS"); i++) {
      await Bun.sleep(20);
      noop += await r.cmd(`n${i}`, "NOOP");
    }
    expect(noop).toContain("* 5 EXPUNGE");
    expect(noop).toContain("* 8 EXISTS");
    expect(await r.cmd("a6", "UID SEARCH ALL")).toContain("* SEARCH 1 2 3 4 6 7 8 9\r\n");
    expect(await r.cmd("a7", "FETCH 5 (UID)")).toContain("* 5 FETCH (UID 6)");
    r.close();
  });

  test("commands on the whole mailbox, a second SELECT and LOGOUT do not wait on a held fill", async () => {
    const box = await withMessages(6);
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    await r.cmd("a1", "SELECT INBOX");
    expect(await r.cmd("a2", "SEARCH ALL")).toContain("* SEARCH 1 2 3 4 5 6\r\n");
    expect(await r.cmd("a3", "SELECT INBOX")).toContain("* 6 EXISTS");
    expect(await r.cmd("a4", "FETCH 1 (UID)")).toContain("* 1 FETCH (UID 1)");
    expect(await r.cmd("a5", "LOGOUT")).toContain("a5 OK");
    expect(await r.waitClosed()).toBe(true);
  });
});
