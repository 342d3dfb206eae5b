// POP3 robustness against a served instance with small limits: garbage bytes, over-long lines,
// STLS on the optional plain port, connection bounds, autologout, the failed-log-in limit, and a
// client that closes its sending side after its commands.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import tls from "node:tls";
import { json, startInboxd, type Instance } from "../../support/harness";
import { sendThenShutWrite } from "../../support/net";
import { Pop3Client, rawMessage, sendRaw, unstuff } from "../../support/pop3-client";

const MAX_CONNECTIONS = 8;
let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd({
    INBOXD_POP3_IDLE_TIMEOUT: "2",
    INBOXD_POP3_MAX_PER_INBOX: "2",
    INBOXD_POP3_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
    INBOXD_POP3_PLAIN_PORT: "0",
  });
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

async function newInbox(messages = 1): Promise<{ id: string; address: string; password: string }> {
  const ib = await json(inst.api("/v1/inboxes", { method: "POST", json: {} }));
  const cr = await json(inst.api(`/v1/inboxes/${ib.body.data.id}/credentials`));
  for (let i = 0; i < messages; i++)
    await sendRaw(inst.ports.smtp!, ib.body.data.address, rawMessage(ib.body.data.address, `m${i}`, ["x"]));
  return { id: ib.body.data.id, address: ib.body.data.address, password: cr.body.data.password };
}

async function greeted(plain = false): Promise<Pop3Client> {
  const c = await Pop3Client.connect(plain ? inst.ports.pop3plain! : inst.ports.pop3!, { plain });
  expect(await c.line()).toStartWith("+OK");
  return c;
}

/** Random bytes without LF, cut into lines: each line must draw exactly one -ERR. */
function garbageLines(n: number): Buffer[] {
  return Array.from({ length: n }, () => {
    const b = Buffer.alloc(1 + Math.floor(Math.random() * 300));
    for (let i = 0; i < b.length; i++) {
      let v = Math.floor(Math.random() * 256);
      if (v === 0x0a) v = 0;
      b[i] = v;
    }
    b[0] = 0xff; // never a valid keyword
    return b;
  });
}

async function expectGarbageRejected(c: Pop3Client): Promise<void> {
  const lines = garbageLines(40);
  c.write(Buffer.concat(lines.flatMap((l) => [l, Buffer.from("\r\n")])));
  for (let i = 0; i < lines.length; i++) expect(await c.line()).toStartWith("-ERR");
  // Over-long lines: one -ERR each, whatever arrives before the LF.
  c.write(Buffer.alloc(20_000, 0x41));
  c.write(Buffer.alloc(20_000, 0x00));
  c.write("\r\n");
  expect(await c.line()).toBe("-ERR line too long");
  c.write("NOOP\r\n");
  expect(await c.line()).toBe("+OK");
}

describe("any byte sequence", () => {
  test("garbage and over-long lines answer -ERR before and after log-in; the session goes on", async () => {
    const box = await newInbox(2);
    const c = await greeted();
    await expectGarbageRejected(c);
    expect(await c.login(box.address, box.password)).toStartWith("+OK");
    await expectGarbageRejected(c);
    expect(await c.cmd("STAT")).toStartWith("+OK 2 ");
    expect(await c.cmd("QUIT")).toStartWith("+OK");
    await c.closed;
  });

  test("plain text and broken handshakes on the TLS port do not disturb the server", async () => {
    for (const payload of ["USER x\r\nPASS y\r\n", "\x16\x03\x01\x00\xff garbage", "\x00".repeat(5000)]) {
      const s = net.connect(inst.ports.pop3!, "127.0.0.1");
      await new Promise<void>((r) => s.once("connect", () => r()));
      s.write(Buffer.from(payload, "latin1"));
      await new Promise<void>((r) => {
        s.once("close", () => r());
        s.once("end", () => r());
        s.once("error", () => r());
        setTimeout(() => {
          s.destroy();
          r();
        }, 500);
      });
    }
    // A TLS client that goes away mid-handshake.
    const half = tls.connect({ port: inst.ports.pop3!, host: "127.0.0.1", rejectUnauthorized: false });
    half.on("error", () => {});
    half.destroy();
    const c = await greeted();
    expect(await c.cmd("NOOP")).toBe("+OK");
    c.close();
    expect(inst.proc.exitCode).toBeNull();
    expect((await inst.api("/healthz", { token: null })).status).toBe(200);
  });

  test("a client that disconnects in the middle of a pipelined burst leaves the server healthy", async () => {
    const box = await newInbox(3);
    const c = await greeted();
    expect(await c.login(box.address, box.password)).toStartWith("+OK");
    c.write("RETR 1\r\nRETR 2\r\nRETR 3\r\n".repeat(50));
    c.close();
    const d = await greeted();
    expect(await d.login(box.address, box.password)).toStartWith("+OK");
    expect(await d.cmd("STAT")).toStartWith("+OK 3 ");
    d.close();
  });
});

describe("a client that closes its sending side after its commands (half-close)", () => {
  test("pipelined commands are all answered; a QUIT among them applies its deletions, then the server closes", async () => {
    const box = await newInbox(3);
    const { output, closedByServer } = await sendThenShutWrite(
      inst.ports.pop3!,
      `USER ${box.address}\r\nPASS ${box.password}\r\nSTAT\r\nRETR 1\r\nDELE 1\r\nDELE 2\r\nQUIT\r\n`,
      { tls: true },
    );
    expect(closedByServer).toBe(true);
    const status = output.split("\r\n").filter((l) => /^[+-](OK|ERR)/.test(l));
    expect(status.map((l) => l.slice(0, 3))).toEqual(["+OK", "+OK", "+OK", "+OK", "+OK", "+OK", "+OK", "+OK"]);
    expect(status[3]).toStartWith("+OK 3 ");
    expect(output).toContain("Subject: m0");
    expect((await json(inst.api(`/v1/inboxes/${box.id}`))).body.data.message_count).toBe(1);
  });

  test("without QUIT (plain port): answered, then closed, and nothing is deleted", async () => {
    const box = await newInbox(1);
    const { output, closedByServer } = await sendThenShutWrite(inst.ports.pop3plain!, "CAPA\r\nNOOP\r\nUSER x\r\n");
    expect(closedByServer).toBe(true);
    expect(output).toContain("\r\nSTLS\r\n");
    expect(output.trimEnd().split("\r\n").at(-1)).toStartWith("-ERR");
    const logged = await sendThenShutWrite(inst.ports.pop3!, `USER ${box.address}\r\nPASS ${box.password}\r\nDELE 1\r\n`, { tls: true });
    expect(logged.closedByServer).toBe(true);
    expect(logged.output.trimEnd().split("\r\n").at(-1)).toStartWith("+OK");
    expect((await json(inst.api(`/v1/inboxes/${box.id}`))).body.data.message_count).toBe(1);
  });

  test("after STLS on the plain port too", async () => {
    const box = await newInbox(2);
    const { output, closedByServer } = await sendThenShutWrite(
      inst.ports.pop3plain!,
      `USER ${box.address}\r\nPASS ${box.password}\r\nDELE 2\r\nQUIT\r\n`,
      { starttls: { say: "STLS\r\n", until: /^\+OK begin TLS/m } },
    );
    expect(closedByServer).toBe(true);
    expect(output.trimEnd().split("\r\n")).toEqual([
      expect.stringMatching(/^\+OK/),
      expect.stringMatching(/^\+OK/),
      expect.stringMatching(/^\+OK/),
      expect.stringMatching(/^\+OK/),
    ]);
    expect((await json(inst.api(`/v1/inboxes/${box.id}`))).body.data.message_count).toBe(1);
  });
});

describe("back-pressure", () => {
  test("pipelined RETRs of a 3 MB message that the client reads late all arrive intact", async () => {
    const ib = await json(inst.api("/v1/inboxes", { method: "POST", json: {} }));
    const cr = await json(inst.api(`/v1/inboxes/${ib.body.data.id}/credentials`));
    const line = "0123456789abcdefghijklmnopqrstuvwxyz.ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    const body = Array.from({ length: 48_000 }, (_, i) => (i % 7 === 0 ? "." : "") + line);
    const raw = rawMessage(ib.body.data.address, "big", body);
    await sendRaw(inst.ports.smtp!, ib.body.data.address, raw);
    const c = await greeted();
    expect(await c.login(cr.body.data.username, cr.body.data.password)).toStartWith("+OK");
    c.tlsSocket.pause();
    c.write("RETR 1\r\n".repeat(5) + "NOOP\r\n");
    await Bun.sleep(300);
    c.tlsSocket.resume();
    for (let i = 0; i < 5; i++) {
      expect(await c.line()).toBe(`+OK ${Buffer.byteLength(raw)} octets`);
      const got = await c.multiRaw(30_000);
      expect(unstuff(got).equals(Buffer.from(raw))).toBe(true);
    }
    expect(await c.line()).toBe("+OK");
    c.close();
  }, 30_000);
});

describe("STLS on the plain port", () => {
  test("log-in is refused before STLS; pipelined input after STLS is discarded; CAPA changes", async () => {
    const box = await newInbox(1);
    const c = await greeted(true);
    const before = (await c.multi("CAPA")).body.toString().split("\r\n");
    expect(before).toContain("STLS");
    expect(before).not.toContain("USER");
    expect(await c.cmd(`USER ${box.address}`)).toStartWith("-ERR [AUTH]");
    expect(await c.cmd("AUTH PLAIN")).toStartWith("-ERR [AUTH]");
    expect(await c.cmd("STAT")).toStartWith("-ERR");
    // "CAPA" arrives in the same packet as STLS, in plain text: it must not be answered.
    c.write("STLS\r\nCAPA\r\n");
    expect(await c.line()).toStartWith("+OK");
    await c.upgrade();
    expect(c.tlsSocket.encrypted).toBe(true);
    expect(await c.cmd("NOOP")).toBe("+OK");
    const after = (await c.multi("CAPA")).body.toString().split("\r\n");
    expect(after).toContain("USER");
    expect(after).toContain("SASL PLAIN");
    expect(after).not.toContain("STLS");
    expect(await c.cmd("STLS")).toStartWith("-ERR");
    expect(await c.login(box.address, box.password)).toStartWith("+OK");
    const r = await c.multi("RETR 1");
    expect(r.body.toString()).toContain("Subject: m0");
    expect(await c.cmd("QUIT")).toStartWith("+OK");
  });
});

describe("bounds", () => {
  test("logged-in sessions per inbox are bounded: -ERR [IN-USE], free again after QUIT", async () => {
    const box = await newInbox(0);
    const a = await greeted();
    const b = await greeted();
    const c = await greeted();
    expect(await a.login(box.address, box.password)).toStartWith("+OK");
    expect(await b.login(box.address, box.password)).toStartWith("+OK");
    expect(await c.login(box.address, box.password)).toStartWith("-ERR [IN-USE]");
    // Another inbox is not affected.
    const other = await newInbox(0);
    const d = await greeted();
    expect(await d.login(other.address, other.password)).toStartWith("+OK");
    expect(await a.cmd("QUIT")).toStartWith("+OK");
    expect(await c.login(box.address, box.password)).toStartWith("+OK");
    for (const x of [b, c, d]) x.close();
  });

  test("connections in total are bounded: the one over the bound gets -ERR [SYS/TEMP] and is closed", async () => {
    const open: Pop3Client[] = [];
    let refused: string | null = null;
    for (let i = 0; i < MAX_CONNECTIONS + 4 && refused === null; i++) {
      const c = await Pop3Client.connect(inst.ports.pop3!);
      const first = await c.line();
      if (first.startsWith("-ERR")) {
        refused = first;
        await c.closed;
      } else open.push(c);
    }
    expect(refused).toStartWith("-ERR [SYS/TEMP]");
    expect(open.length).toBeLessThanOrEqual(MAX_CONNECTIONS);
    for (const c of open) c.close();
    // Room again once they are gone.
    let greeting = "";
    for (let i = 0; i < 50 && !greeting.startsWith("+OK"); i++) {
      const c = await Pop3Client.connect(inst.ports.pop3!);
      greeting = await c.line();
      c.close();
      if (!greeting.startsWith("+OK")) await Bun.sleep(100);
    }
    expect(greeting).toStartWith("+OK");
  });

  test("an idle session is logged out with -ERR and its deletions are not applied", async () => {
    const box = await newInbox(1);
    const c = await greeted();
    expect(await c.login(box.address, box.password)).toStartWith("+OK");
    expect(await c.cmd("DELE 1")).toStartWith("+OK");
    expect(await c.line(15_000)).toStartWith("-ERR [SYS/TEMP] autologout");
    await c.closed;
    expect(c.isEnded()).toBe(true);
    const ib = await json(inst.api(`/v1/inboxes/${box.id}`));
    expect(ib.body.data.message_count).toBe(1);
  });
});

describe("failed log-ins", () => {
  // Last in the file: it locks this inbox from 127.0.0.1 (docs/security.md, "Per-client fairness").
  test("back off per inbox and client address: after 10 failures even the right password is -ERR [SYS/TEMP]", async () => {
    const box = await newInbox(0);
    const c = await greeted();
    for (let i = 0; i < 10; i++) expect(await c.login(box.address, `wrong-${i}`)).toStartWith("-ERR [AUTH]");
    expect(await c.login(box.address, box.password)).toStartWith("-ERR [SYS/TEMP]");
    const plain = Buffer.from(`\0${box.address}\0${box.password}`).toString("base64");
    expect(await c.cmd(`AUTH PLAIN ${plain}`)).toStartWith("-ERR [SYS/TEMP]");
    // The session itself is still usable.
    expect(await c.cmd("NOOP")).toBe("+OK");
    c.close();
  });
});
