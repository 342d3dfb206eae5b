// Changes from other channels reach IMAP sessions: new mail from SMTP as EXISTS while IDLEing,
// REST deletes as EXPUNGE with the right sequence numbers, REST mark-read and other sessions'
// STOREs as FETCH FLAGS; EXPUNGE is held back during FETCH/STORE/SEARCH (RFC 3501 §7.4.1).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { withDatabase } from "../../support/database-rows";
import { json, startInboxd, type Instance } from "../../support/harness";
import { connected, newBox, RawImap, send, type Box } from "../../support/imap";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd();
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

async function restIds(box: Box): Promise<string[]> {
  const r = await json(inst.api(`/v1/inboxes/${box.id}/messages?limit=100`));
  return r.body.data.map((m: any) => m.id).reverse();
}

async function withMessages(n: number): Promise<Box> {
  const box = await newBox(inst);
  for (let i = 1; i <= n; i++) await send(inst, box.address, { subject: `m${i}`, text: `body ${i}` });
  return box;
}

describe("IDLE", () => {
  test("new mail is pushed as EXISTS, REST deletes as EXPUNGE, REST mark-read as FETCH FLAGS; DONE ends it", async () => {
    const box = await withMessages(2);
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    expect(await r.cmd("a1", "SELECT INBOX")).toContain("* 2 EXISTS");
    r.write("a2 IDLE\r\n");
    expect(await r.until("+")).toStartWith("+ ");

    await send(inst, box.address, { subject: "m3", text: "pushed" });
    expect(await r.until("* 3 EXISTS")).toContain("* 3 EXISTS");

    const ids = await restIds(box);
    expect((await inst.api(`/v1/messages/${ids[1]}`, { method: "DELETE" })).status).toBe(204);
    expect(await r.until("* 2 EXPUNGE")).toContain("* 2 EXPUNGE");

    const mr = await json(inst.api(`/v1/inboxes/${box.id}/mark-read`, { method: "POST", json: { last_read_ulid: ids[2] } }));
    expect(mr.status).toBe(200);
    const flags = await r.until("* 2 FETCH");
    expect(flags).toContain("* 1 FETCH (UID 1 FLAGS (\\Seen))");
    // m3 arrived while this session had INBOX selected: it is \Recent here.
    expect(flags).toContain("* 2 FETCH (UID 3 FLAGS (\\Recent \\Seen))");

    r.write("DONE\r\n");
    expect(await r.until("a2 ")).toBe("a2 OK IDLE terminated\r\n");
    expect(await r.cmd("a3", "UID SEARCH ALL")).toContain("* SEARCH 1 3\r\n");
    r.close();
  });

  test("a STORE in one session reaches another session's IDLE; a change before IDLE is reported at once", async () => {
    const box = await withMessages(2);
    const a = await RawImap.open(inst.ports.imap!);
    const b = await RawImap.open(inst.ports.imap!);
    await a.login(box);
    await b.login(box);
    await a.cmd("a1", "SELECT INBOX");
    await b.cmd("b1", "SELECT INBOX");
    a.write("a2 IDLE\r\n");
    await a.until("+");
    expect(await b.cmd("b2", "STORE 2 +FLAGS (\\Flagged)")).toContain("b2 OK");
    expect(await a.until("* 2 FETCH")).toContain("* 2 FETCH (UID 2 FLAGS (\\Flagged))");
    a.write("DONE\r\n");
    await a.until("a2 OK");

    // b deletes while a is not idling; a hears of it when it starts IDLE.
    await b.cmd("b3", "STORE 1 +FLAGS.SILENT (\\Deleted)");
    expect(await b.cmd("b4", "EXPUNGE")).toContain("* 1 EXPUNGE");
    a.write("a3 IDLE\r\n");
    const start = await a.until("* 1 EXPUNGE");
    expect(start).toContain("+ idling");
    a.write("DONE\r\n");
    await a.until("a3 OK");
    a.close();
    b.close();
  });

  test("EXPUNGE is not sent during FETCH, STORE or SEARCH, only at the next command that allows it", async () => {
    const box = await withMessages(3);
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    await r.cmd("a1", "SELECT INBOX");
    const ids = await restIds(box);
    expect((await inst.api(`/v1/messages/${ids[0]}`, { method: "DELETE" })).status).toBe(204);
    await Bun.sleep(50);
    const f = await r.cmd("a2", "FETCH 1:* (UID)");
    expect(f).not.toContain("EXPUNGE");
    expect(f).toContain("* 2 FETCH (UID 2)");
    expect(f).toContain("* 3 FETCH (UID 3)");
    expect(await r.cmd("a3", "SEARCH ALL")).not.toContain("EXPUNGE");
    expect(await r.cmd("a4", "STORE 3 +FLAGS.SILENT (\\Flagged)")).not.toContain("EXPUNGE");
    expect(await r.cmd("a5", "NOOP")).toBe("* 1 EXPUNGE\r\na5 OK NOOP completed\r\n");
    expect(await r.cmd("a6", "UID FETCH 1:* (FLAGS)")).toBe(
      "* 1 FETCH (UID 2 FLAGS ())\r\n* 2 FETCH (UID 3 FLAGS (\\Flagged))\r\na6 OK UID FETCH completed\r\n",
    );
    r.close();
  });

  test("imapflow receives exists and expunge events while idling", async () => {
    const box = await withMessages(1);
    const c = await connected(inst, box);
    await c.mailboxOpen("INBOX");
    const events: any[] = [];
    c.on("exists", (e: any) => events.push({ type: "exists", count: e.count }));
    c.on("expunge", (e: any) => events.push({ type: "expunge", seq: e.seq }));
    const idle = c.idle();
    await Bun.sleep(100);
    await send(inst, box.address, { subject: "while idle", text: "x" });
    for (let i = 0; i < 100 && !events.some((e) => e.type === "exists"); i++) await Bun.sleep(50);
    expect(events).toContainEqual({ type: "exists", count: 2 });
    const ids = await restIds(box);
    await inst.api(`/v1/messages/${ids[0]}`, { method: "DELETE" });
    for (let i = 0; i < 100 && !events.some((e) => e.type === "expunge"); i++) await Bun.sleep(50);
    expect(events).toContainEqual({ type: "expunge", seq: 1 });
    await c.logout();
    await idle.catch(() => {});
  });

  test("CHECK compares every row: it catches a change made without a bus event, NOOP does not look", async () => {
    const box = await withMessages(2);
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    await r.cmd("a1", "SELECT INBOX");
    const ids = await restIds(box);
    await withDatabase(inst.dataDir, (db) => db.run("UPDATE messages SET flagged = 1 WHERE id = ?", [ids[1]!]));
    expect(await r.cmd("a2", "NOOP")).toBe("a2 OK NOOP completed\r\n");
    expect(await r.cmd("a3", "CHECK")).toBe("* 2 FETCH (UID 2 FLAGS (\\Flagged))\r\na3 OK CHECK completed\r\n");
    r.close();
  });

  test("deleting the inbox over REST ends its sessions with BYE", async () => {
    const box = await withMessages(1);
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    await r.cmd("a1", "SELECT INBOX");
    r.write("a2 IDLE\r\n");
    await r.until("+");
    expect((await inst.api(`/v1/inboxes/${box.id}`, { method: "DELETE" })).status).toBe(204);
    expect(await r.until("* BYE")).toContain("* BYE");
    expect(await r.waitClosed()).toBe(true);
  });
});
