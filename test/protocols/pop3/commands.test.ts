// POP3 over implicit TLS against a served instance: every command of RFC 1939/2449 that we
// offer, with mail put in through the real SMTP listener and cross-checked against REST.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, type Instance } from "../../support/harness";
import { Pop3Client, rawMessage, sendRaw } from "../../support/pop3-client";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd();
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

interface Box {
  id: string;
  address: string;
  password: string;
  sent: string[];
}

/** A fresh inbox holding the given messages (sent over SMTP, in order). */
async function inboxWith(messages: ((to: string) => string)[]): Promise<Box> {
  const ib = await json(inst.api("/v1/inboxes", { method: "POST", json: {} }));
  expect(ib.status).toBe(201);
  const cr = await json(inst.api(`/v1/inboxes/${ib.body.data.id}/credentials`));
  expect(cr.status).toBe(200);
  const sent: string[] = [];
  for (const m of messages) {
    const raw = m(ib.body.data.address);
    await sendRaw(inst.ports.smtp!, ib.body.data.address, raw);
    sent.push(raw);
  }
  return { id: ib.body.data.id, address: ib.body.data.address, password: cr.body.data.password, sent };
}

async function session(box: Box): Promise<Pop3Client> {
  const c = await Pop3Client.connect(inst.ports.pop3!);
  expect(await c.line()).toStartWith("+OK");
  expect(await c.login(box.address, box.password)).toStartWith("+OK");
  return c;
}

/** REST message list, oldest first (the POP3 numbering order). */
async function restMessages(inboxId: string): Promise<any[]> {
  const r = await json(inst.api(`/v1/inboxes/${inboxId}/messages?limit=100`));
  expect(r.status).toBe(200);
  return [...r.body.data].reverse();
}

const simple =
  (subject: string, body: string[] = ["hello"]) =>
  (to: string) =>
    rawMessage(to, subject, body);

describe("authorization state", () => {
  test("greeting and CAPA over TLS: USER and SASL PLAIN offered, no STLS", async () => {
    const c = await Pop3Client.connect(inst.ports.pop3!);
    expect(await c.line()).toMatch(/^\+OK /);
    const capa = await c.multi("CAPA");
    expect(capa.status).toStartWith("+OK");
    const caps = capa.body.toString().trim().split("\r\n");
    for (const cap of ["TOP", "UIDL", "USER", "SASL PLAIN", "RESP-CODES", "AUTH-RESP-CODE", "PIPELINING"]) expect(caps).toContain(cap);
    expect(caps).not.toContain("STLS");
    expect(await c.cmd("STLS")).toStartWith("-ERR");
    expect(await c.cmd("NOOP")).toBe("+OK");
    expect(await c.cmd("QUIT")).toStartWith("+OK");
    await c.closed;
  });

  test("transaction commands before log-in are -ERR and the session goes on", async () => {
    const c = await Pop3Client.connect(inst.ports.pop3!);
    await c.line();
    for (const cmd of ["STAT", "LIST", "UIDL", "RETR 1", "TOP 1 0", "DELE 1", "RSET"]) expect(await c.cmd(cmd)).toStartWith("-ERR");
    expect(await c.cmd("PASS whatever")).toStartWith("-ERR");
    expect(await c.cmd("FOO")).toStartWith("-ERR");
    expect(await c.cmd("NOOP")).toBe("+OK");
    c.close();
  });

  test("USER/PASS with a wrong password is -ERR [AUTH]; the right one then logs in", async () => {
    const box = await inboxWith([simple("one")]);
    const c = await Pop3Client.connect(inst.ports.pop3!);
    await c.line();
    expect(await c.login(box.address, box.password + "x")).toStartWith("-ERR [AUTH]");
    expect(await c.login("nobody@nowhere.test", box.password)).toStartWith("-ERR [AUTH]");
    expect(await c.login(box.address.toUpperCase(), box.password)).toMatch(/^\+OK .*1 messages/);
    expect(await c.cmd("USER again")).toStartWith("-ERR");
    expect(await c.cmd("AUTH PLAIN")).toStartWith("-ERR");
    c.close();
  });

  test("AUTH PLAIN with an initial response, with a continuation, cancelled, malformed; AUTH lists PLAIN", async () => {
    const box = await inboxWith([]);
    const plain = (authz: string, user: string, pw: string) => Buffer.from(`${authz}\0${user}\0${pw}`).toString("base64");

    const c1 = await Pop3Client.connect(inst.ports.pop3!);
    await c1.line();
    const list = await c1.multi("AUTH");
    expect(list.status).toStartWith("+OK");
    expect(list.body.toString()).toBe("PLAIN\r\n");
    expect(await c1.cmd("AUTH CRAM-MD5")).toStartWith("-ERR");
    expect(await c1.cmd(`AUTH PLAIN ${plain("", box.address, box.password)}`)).toStartWith("+OK");
    expect(await c1.cmd("STAT")).toBe("+OK 0 0");
    c1.close();

    const c2 = await Pop3Client.connect(inst.ports.pop3!);
    await c2.line();
    expect(await c2.cmd("AUTH PLAIN")).toBe("+ ");
    expect(await c2.cmd("*")).toStartWith("-ERR");
    expect(await c2.cmd("AUTH PLAIN")).toBe("+ ");
    expect(await c2.cmd("!!not base64!!")).toStartWith("-ERR [AUTH]");
    expect(await c2.cmd(`AUTH PLAIN ${plain("someone-else@x.test", box.address, box.password)}`)).toStartWith("-ERR [AUTH]");
    expect(await c2.cmd("AUTH PLAIN")).toBe("+ ");
    expect(await c2.cmd(plain(box.address, box.address, box.password))).toStartWith("+OK");
    expect(await c2.cmd("QUIT")).toStartWith("+OK");
    await c2.closed;
  });
});

describe("transaction state", () => {
  test("STAT, LIST and UIDL agree with REST: numbering in arrival order, UIDL = message id", async () => {
    const box = await inboxWith([simple("first"), simple("second", ["a", "b", "c"]), simple("third")]);
    const rest = await restMessages(box.id);
    expect(rest.length).toBe(3);
    const c = await session(box);
    const total = rest.reduce((s, m) => s + m.size_bytes, 0);
    expect(await c.cmd("STAT")).toBe(`+OK 3 ${total}`);
    const list = await c.multi("LIST");
    expect(list.status).toStartWith("+OK");
    expect(list.body.toString()).toBe(rest.map((m, i) => `${i + 1} ${m.size_bytes}\r\n`).join(""));
    expect(await c.cmd("LIST 2")).toBe(`+OK 2 ${rest[1].size_bytes}`);
    expect(await c.cmd("LIST 4")).toStartWith("-ERR");
    const uidl = await c.multi("UIDL");
    expect(uidl.body.toString()).toBe(rest.map((m, i) => `${i + 1} ${m.id}\r\n`).join(""));
    expect(await c.cmd("UIDL 3")).toBe(`+OK 3 ${rest[2].id}`);
    expect(await c.cmd("UIDL 0")).toStartWith("-ERR");
    expect(await c.cmd("QUIT")).toStartWith("+OK");
    // The sizes are those of the bytes that were sent.
    expect(rest.map((m) => m.size_bytes)).toEqual(box.sent.map((s) => Buffer.byteLength(s)));
  });

  test("RETR returns the sent bytes; body lines starting with '.' are dot-stuffed on the wire", async () => {
    const body = [".starts with a dot", "..two dots", ".", "middle . dot", "ünïcødé", "last"];
    const box = await inboxWith([(to) => rawMessage(to, "dots", body)]);
    const c = await session(box);
    const r = await c.multi("RETR 1");
    expect(r.status).toBe(`+OK ${Buffer.byteLength(box.sent[0]!)} octets`);
    expect(r.body.equals(Buffer.from(box.sent[0]!))).toBe(true);
    const wire = r.raw.toString("utf8");
    expect(wire).toContain("\r\n..starts with a dot\r\n");
    expect(wire).toContain("\r\n...two dots\r\n");
    expect(wire).toContain("\r\n..\r\n");
    expect(wire.endsWith("\r\nlast\r\n.\r\n")).toBe(true);
    // The same bytes as REST's raw download.
    const [m] = await restMessages(box.id);
    const rawRest = Buffer.from(await (await inst.api(`/v1/messages/${m.id}/raw`)).arrayBuffer());
    expect(r.body.equals(rawRest)).toBe(true);
    expect(await c.cmd("RETR 2")).toStartWith("-ERR");
    c.close();
  });

  test("TOP n returns the header, the blank line and n body lines (stuffed)", async () => {
    const box = await inboxWith([(to) => rawMessage(to, "top", ["l1", ".l2", "l3", "l4"])]);
    const c = await session(box);
    const header = box.sent[0]!.slice(0, box.sent[0]!.indexOf("\r\n\r\n") + 4);
    const t0 = await c.multi("TOP 1 0");
    expect(t0.status).toStartWith("+OK");
    expect(t0.body.toString()).toBe(header);
    const t2 = await c.multi("TOP 1 2");
    expect(t2.body.toString()).toBe(header + "l1\r\n.l2\r\n");
    expect(t2.raw.toString()).toEndWith("\r\nl1\r\n..l2\r\n.\r\n");
    const all = await c.multi("TOP 1 99");
    expect(all.body.toString()).toBe(box.sent[0]!);
    expect(await c.cmd("TOP 1")).toStartWith("-ERR");
    expect(await c.cmd("TOP 2 1")).toStartWith("-ERR");
    c.close();
  });

  test("DELE marks, RSET unmarks; nothing is deleted before QUIT", async () => {
    const box = await inboxWith([simple("keep-1"), simple("keep-2")]);
    const rest = await restMessages(box.id);
    const c = await session(box);
    expect(await c.cmd("DELE 1")).toStartWith("+OK");
    expect(await c.cmd("DELE 1")).toStartWith("-ERR");
    expect(await c.cmd("RETR 1")).toStartWith("-ERR");
    expect(await c.cmd("LIST 1")).toStartWith("-ERR");
    expect(await c.cmd("STAT")).toBe(`+OK 1 ${rest[1].size_bytes}`);
    expect((await c.multi("UIDL")).body.toString()).toBe(`2 ${rest[1].id}\r\n`);
    // Still there for REST while the session is open.
    expect((await inst.api(`/v1/messages/${rest[0].id}`)).status).toBe(200);
    expect(await c.cmd("RSET")).toStartWith("+OK");
    expect(await c.cmd("STAT")).toStartWith("+OK 2 ");
    expect(await c.cmd("QUIT")).toBe("+OK inboxd signing off (0 messages deleted)");
    expect((await restMessages(box.id)).length).toBe(2);
  });

  test("DELE then QUIT deletes everywhere: REST 404, inbox count, next session", async () => {
    const box = await inboxWith([simple("a"), simple("b"), simple("c")]);
    const rest = await restMessages(box.id);
    const c = await session(box);
    expect(await c.cmd("DELE 1")).toStartWith("+OK");
    expect(await c.cmd("DELE 3")).toStartWith("+OK");
    expect(await c.cmd("QUIT")).toBe("+OK inboxd signing off (2 messages deleted)");
    await c.closed;
    expect((await inst.api(`/v1/messages/${rest[0].id}`)).status).toBe(404);
    expect((await inst.api(`/v1/messages/${rest[2].id}`)).status).toBe(404);
    expect((await inst.api(`/v1/messages/${rest[1].id}`)).status).toBe(200);
    const ib = await json(inst.api(`/v1/inboxes/${box.id}`));
    expect(ib.body.data.message_count).toBe(1);
    const c2 = await session(box);
    expect(await c2.cmd("UIDL 1")).toBe(`+OK 1 ${rest[1].id}`);
    expect(await c2.cmd("STAT")).toStartWith("+OK 1 ");
    c2.close();
  });

  test("a connection dropped without QUIT applies nothing (no UPDATE state)", async () => {
    const box = await inboxWith([simple("survivor")]);
    const c = await session(box);
    expect(await c.cmd("DELE 1")).toStartWith("+OK");
    expect((await c.multi("RETR 2")).status).toStartWith("-ERR");
    c.close();
    await c.closed;
    const c2 = await session(box);
    expect(await c2.cmd("STAT")).toStartWith("+OK 1 ");
    expect(await c2.cmd("QUIT")).toStartWith("+OK");
    expect((await restMessages(box.id)).length).toBe(1);
  });

  test("RETR marks the message read at QUIT (REST read, unread_count); TOP does not", async () => {
    const box = await inboxWith([simple("retrieved"), simple("peeked")]);
    const c = await session(box);
    expect((await c.multi("RETR 1")).status).toStartWith("+OK");
    expect((await c.multi("TOP 2 5")).status).toStartWith("+OK");
    expect((await restMessages(box.id)).map((m) => m.read)).toEqual([false, false]);
    expect(await c.cmd("QUIT")).toStartWith("+OK");
    await c.closed;
    expect((await restMessages(box.id)).map((m) => m.read)).toEqual([true, false]);
    const ib = await json(inst.api(`/v1/inboxes/${box.id}`));
    expect(ib.body.data.unread_count).toBe(1);
  });

  test("pipelined commands are answered in order", async () => {
    const box = await inboxWith([simple("p1"), simple("p2")]);
    const c = await Pop3Client.connect(inst.ports.pop3!);
    await c.line();
    c.write(`USER ${box.address}\r\nPASS ${box.password}\r\nSTAT\r\nRETR 1\r\nNOOP\r\nTOP 2 0\r\nBOGUS\r\nLIST 2\r\nQUIT\r\n`);
    expect(await c.line()).toStartWith("+OK");
    expect(await c.line()).toStartWith("+OK logged in");
    expect(await c.line()).toStartWith("+OK 2 ");
    expect(await c.line()).toStartWith("+OK");
    expect((await c.multiRaw()).toString()).toContain("Subject: p1");
    expect(await c.line()).toBe("+OK");
    expect(await c.line()).toStartWith("+OK");
    expect((await c.multiRaw()).toString()).toContain("Subject: p2");
    expect(await c.line()).toStartWith("-ERR");
    expect(await c.line()).toStartWith("+OK 2 ");
    expect(await c.line()).toStartWith("+OK inboxd signing off");
    await c.closed;
  });

  test("a message deleted through REST during the session: RETR is -ERR, QUIT still succeeds", async () => {
    const box = await inboxWith([simple("gone"), simple("stays")]);
    const rest = await restMessages(box.id);
    const c = await session(box);
    expect((await inst.api(`/v1/messages/${rest[0].id}`, { method: "DELETE" })).status).toBe(204);
    expect(await c.cmd("RETR 1")).toStartWith("-ERR");
    expect(await c.cmd("DELE 1")).toStartWith("+OK");
    expect(await c.cmd("QUIT")).toBe("+OK inboxd signing off (0 messages deleted)");
    expect((await restMessages(box.id)).map((m) => m.id)).toEqual([rest[1].id]);
  });

  test("a message retrieved and then deleted through REST: QUIT still succeeds and marks the rest read", async () => {
    const box = await inboxWith([simple("fetched-then-gone"), simple("fetched")]);
    const rest = await restMessages(box.id);
    const c = await session(box);
    expect((await c.multi("RETR 1")).status).toStartWith("+OK");
    expect((await c.multi("RETR 2")).status).toStartWith("+OK");
    expect((await inst.api(`/v1/messages/${rest[0].id}`, { method: "DELETE" })).status).toBe(204);
    expect(await c.cmd("QUIT")).toBe("+OK inboxd signing off (0 messages deleted)");
    await c.closed;
    const after = await restMessages(box.id);
    expect(after.map((m) => [m.id, m.read])).toEqual([[rest[1].id, true]]);
  });

  test("an inbox deleted during the session ends it with -ERR [SYS/PERM]", async () => {
    const box = await inboxWith([simple("x")]);
    const c = await session(box);
    expect((await inst.api(`/v1/inboxes/${box.id}`, { method: "DELETE" })).status).toBe(204);
    expect(await c.cmd("STAT")).toStartWith("-ERR [SYS/PERM]");
    await c.closed;
    const c2 = await Pop3Client.connect(inst.ports.pop3!);
    await c2.line();
    expect(await c2.login(box.address, box.password)).toStartWith("-ERR [AUTH]");
    c2.close();
  });
});
