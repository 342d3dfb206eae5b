// Byte-level robustness of the IMAP listener: literals and LITERAL+, BAD-and-continue on syntax
// errors, line and literal limits, garbage bytes, idle timeout, connection limits, STARTTLS on
// the optional plain port, UIDs that survive a restart, and a client that closes its sending side.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import tls from "node:tls";
import { json, startInboxd, type Instance } from "../../support/harness";
import { imapflow, newBox, RawImap, send } from "../../support/imap";
import { sendThenShutWrite } from "../../support/net";

let inst: Instance;
let tight: Instance;
beforeAll(async () => {
  [inst, tight] = await Promise.all([
    startInboxd(),
    startInboxd({
      INBOXD_IMAP_IDLE_TIMEOUT: "2",
      INBOXD_IMAP_MAX_PER_INBOX: "2",
      INBOXD_IMAP_MAX_CONNECTIONS: "6",
      INBOXD_IMAP_PLAIN_PORT: "0",
    }),
  ]);
}, 30_000);
afterAll(async () => {
  await Promise.all([inst.stop(), tight.stop()]);
  inst.cleanup();
  tight.cleanup();
}, 30_000);

describe("literals", () => {
  test("synchronising literals get '+', LITERAL+ ones do not; literals carry any bytes", async () => {
    const box = await newBox(inst);
    await send(inst, box.address, { subject: 'Quote " and \\ inside', text: "x" });
    const r = await RawImap.open(inst.ports.imap!);
    await r.until("* OK");
    r.write(`l1 LOGIN {${box.address.length}}\r\n`);
    expect(await r.until("+ ")).toStartWith("+ ");
    r.write(`${box.address} {${box.password.length}}\r\n`);
    await r.until("+ ");
    r.write(`${box.password}\r\n`);
    expect(await r.until("l1 ")).toContain("l1 OK");
    r.write("l2 SELECT {5+}\r\nINBOX\r\n");
    expect(await r.until("l2 ")).toContain("l2 OK [READ-WRITE]");
    const subj = 'Quote " and \\';
    r.write(`l3 SEARCH SUBJECT {${subj.length}+}\r\n${subj}\r\n`);
    const out = await r.until("l3 ");
    expect(out).toBe("* SEARCH 1\r\nl3 OK SEARCH completed\r\n");
    expect(r.pending()).toBe("");
    // A literal inside a list, and one that holds CRLF.
    expect(await r.cmd("l4", 'ID ("name" {5+}\r\nte\r\nt)')).toContain("l4 OK");
    r.close();
  });

  test("pipelined commands are answered in order", async () => {
    const box = await newBox(inst);
    const r = await RawImap.open(inst.ports.imap!);
    await r.until("* OK");
    r.write(`p1 LOGIN "${box.address}" "${box.password}"\r\np2 SELECT INBOX\r\np3 NOOP\r\np4 SEARCH ALL\r\np5 LOGOUT\r\n`);
    const all = await r.until("p5 ");
    const order = [...all.matchAll(/^(p\d) (OK|NO|BAD)/gm)].map((m) => `${m[1]} ${m[2]}`);
    expect(order).toEqual(["p1 OK", "p2 OK", "p3 OK", "p4 OK", "p5 OK"]);
    expect(await r.waitClosed()).toBe(true);
  });
});

describe("a client that closes its sending side after its commands (half-close)", () => {
  test("still gets every answer, then the server closes", async () => {
    const box = await newBox(inst);
    await send(inst, box.address, { subject: "half-close", text: "x" });
    const commands = `h1 LOGIN "${box.address}" "${box.password}"\r\nh2 SELECT INBOX\r\nh3 FETCH 1 BODY[HEADER.FIELDS (SUBJECT)]\r\nh4 STORE 1 +FLAGS (\\Deleted)\r\nh5 EXPUNGE\r\n`;
    const { output, closedByServer } = await sendThenShutWrite(inst.ports.imap!, commands, { tls: true });
    expect(closedByServer).toBe(true);
    expect([...output.matchAll(/^(h\d) (OK|NO|BAD)/gm)].map((m) => `${m[1]} ${m[2]}`)).toEqual([
      "h1 OK",
      "h2 OK",
      "h3 OK",
      "h4 OK",
      "h5 OK",
    ]);
    expect(output).toContain("Subject: half-close");
    expect((await json(inst.api(`/v1/inboxes/${box.id}`))).body.data.message_count).toBe(0);
    // IDLE left without DONE: the server closes instead of idling on; so does the plain port.
    const idle = await sendThenShutWrite(
      inst.ports.imap!,
      `i1 LOGIN "${box.address}" "${box.password}"\r\ni2 SELECT INBOX\r\ni3 IDLE\r\n`,
      {
        tls: true,
      },
    );
    expect(idle.closedByServer).toBe(true);
    expect(idle.output).toContain("i2 OK");
    expect(idle.output).toContain("+ idling");
    const plain = await sendThenShutWrite(tight.ports.imapplain!, "c1 CAPABILITY\r\nc2 NOOP\r\n");
    expect(plain.closedByServer).toBe(true);
    expect(plain.output).toContain("c2 OK");
    const upgraded = await sendThenShutWrite(tight.ports.imapplain!, "c1 CAPABILITY\r\nc2 NOOP\r\n", {
      starttls: { say: "s STARTTLS\r\n", until: /^s OK/m },
    });
    expect(upgraded.closedByServer).toBe(true);
    expect(upgraded.output).toContain("c1 OK");
    expect(upgraded.output).toContain("c2 OK");
  });
});

describe("errors answer BAD and the session goes on", () => {
  test("a SEARCH text over 10,000 bytes is BAD (SQLite's LIKE stops at 50,000: it was NO [SERVERBUG]); the session goes on", async () => {
    const box = await newBox(inst);
    await send(inst, box.address, { subject: "long search", text: "x" });
    const r = await RawImap.open(inst.ports.imap!);
    await r.until("* OK");
    r.write(`s1 LOGIN "${box.address}" "${box.password}"\r\ns2 SELECT INBOX\r\n`);
    await r.until("s2 ");
    for (const key of ["BODY", "TEXT", "SUBJECT", "FROM"]) {
      r.write(`s3 SEARCH ${key} {50001+}\r\n${"x".repeat(50_001)}\r\n`);
      const got = await r.until("s3 ");
      expect([key, /^s3 (OK|NO|BAD)[^\r\n]*/m.exec(got)?.[0]]).toEqual([key, `s3 BAD SEARCH ${key} value longer than 10000 bytes`]);
    }
    r.write("s4 SEARCH SUBJECT long\r\n");
    expect(await r.until("s4 ")).toMatch(/\* SEARCH 1\r\ns4 OK/);
    r.write("s5 LOGOUT\r\n");
    await r.until("s5 ");
  });

  test("malformed commands, wrong arguments and unknown commands", async () => {
    const box = await newBox(inst);
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    await r.cmd("s", "SELECT INBOX");
    const cases: [string, RegExp][] = [
      ["b1 FETCH", /^b1 BAD/m],
      ["b2 FETCH 1 (BODY[", /^b2 BAD/m],
      ['b3 LOGIN "unterminated', /^b3 BAD/m],
      ["b4 UID", /^b4 BAD/m],
      ["b5 FETCH 0 FLAGS", /^b5 BAD/m],
      ["b6 FETCH 1:x FLAGS", /^b6 BAD/m],
      ["b7 XYZZY", /^b7 BAD Unknown command/m],
      ["b8 STORE 1 +FLAGS", /^b8 BAD/m],
      ["b9 SEARCH OR SEEN", /^b9 BAD/m],
      ["b10 SELECT", /^b10 BAD/m],
      ["b11 FETCH 1 (FLAGS))", /^b11 BAD/m],
      ["b12 STATUS INBOX MESSAGES", /^b12 BAD/m],
      ["b13 FETCH 1 BODY[]<0.0>", /^b13 BAD/m],
    ];
    for (const [cmd, re] of cases) {
      const tag = cmd.split(" ")[0]!;
      expect(await r.cmd(tag, cmd.slice(tag.length + 1))).toMatch(re);
    }
    r.write("\r\n* NOOP\r\n+ NOOP\r\n");
    expect(await r.until("* BAD")).toContain("BAD");
    expect(await r.cmd("ok1", "NOOP")).toContain("ok1 OK");
  });

  test("an over-long line is BAD; an oversized literal is refused without '+'; LITERAL+ over the limit ends the session", async () => {
    const box = await newBox(inst);
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    r.write(`x1 NOOP ${"a".repeat(100_000)}\r\n`);
    expect(await r.until("x1 ")).toContain("x1 BAD Line too long");
    expect(await r.cmd("x2", "NOOP")).toContain("x2 OK");
    r.write("x3 LOGIN {50000000}\r\n");
    const refused = await r.until("x3 ");
    expect(refused).toContain("x3 BAD Literal too large");
    expect(refused).not.toContain("+ ");
    expect(await r.cmd("x4", "NOOP")).toContain("x4 OK");
    r.write("x5 LOGIN {50000000+}\r\n");
    expect(await r.until("x5 ")).toContain("x5 BAD");
    expect(await r.waitClosed()).toBe(true);
  });

  test("an AUTHENTICATE response over the line limit is answered BAD, not waited on; the session goes on", async () => {
    const box = await newBox(inst);
    const r = await RawImap.open(inst.ports.imap!);
    await r.until("* OK");
    r.write("a1 AUTHENTICATE PLAIN\r\n");
    await r.until("+ ");
    r.write(`${"A".repeat(70_000)}\r\n`);
    expect(await r.until("a1 ")).toBe("a1 BAD AUTHENTICATE response too long\r\n");
    const plain = Buffer.from(`\0${box.address}\0${box.password}`).toString("base64");
    r.write("a2 AUTHENTICATE PLAIN\r\n");
    await r.until("+ ");
    r.write(`${plain}\r\n`);
    expect(await r.until("a2 ")).toContain("a2 OK");
    r.close();
  });

  test("junk while IDLE does not wedge the session: DONE still ends it", async () => {
    const box = await newBox(inst);
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    await r.cmd("i0", "SELECT INBOX");
    r.write("i1 IDLE\r\n");
    await r.until("+ ");
    r.write(`${"x".repeat(70_000)}\r\n`);
    await Bun.sleep(50);
    r.write("DONE\r\n");
    expect(await r.until("i1 ")).toBe("i1 OK IDLE terminated\r\n");
    expect(await r.cmd("i2", "NOOP")).toContain("i2 OK");
    r.close();
  });

  test("random commands built from IMAP's own vocabulary get OK, NO or BAD, never an internal error", async () => {
    const box = await newBox(inst);
    await send(inst, box.address, {
      subject: "fuzz",
      text: "t",
      html: "<p>h</p>",
      attachments: [
        { filename: "a.bin", content: Buffer.from([0, 1, 2]) },
        { filename: "m.eml", content: "Subject: in\r\n\r\nbody", contentType: "message/rfc822" },
      ],
    });
    await send(inst, box.address, { subject: "plain", text: "x" });
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    await r.cmd("s0", "SELECT INBOX");
    let seed = 1234;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    const pick = <T>(xs: T[]) => xs[rnd(xs.length)]!;
    const sets = ["1", "2", "*", "1:*", "2:1", "3", "1,2", "99", "0", "1:", "*:*", "4294967295", "1:2,*"];
    const sections = [
      "",
      "1",
      "2",
      "3",
      "4",
      "1.1",
      "1.2",
      "3.1",
      "3.HEADER",
      "3.TEXT",
      "1.MIME",
      "HEADER",
      "TEXT",
      "MIME",
      "HEADER.FIELDS (FROM)",
      "HEADER.FIELDS.NOT (TO)",
      "HEADER.FIELDS ()",
      "9.9.9",
      "1.2.3.4.5",
    ];
    const partials = ["", "<0.1>", "<5.100000>", "<99999999.1>", "<0>", "<1.0>"];
    const items = () =>
      pick([
        "FLAGS",
        "UID",
        "ENVELOPE",
        "BODYSTRUCTURE",
        "BODY",
        "RFC822",
        "RFC822.SIZE",
        "RFC822.HEADER",
        "RFC822.TEXT",
        "INTERNALDATE",
        "ALL",
        "FAST",
        "FULL",
        `BODY[${pick(sections)}]${pick(partials)}`,
        `BODY.PEEK[${pick(sections)}]${pick(partials)}`,
        "BINARY[1]",
        "(FLAGS",
        "()",
      ]);
    const keys = [
      "ALL",
      "SEEN",
      "UNSEEN",
      "NEW",
      "OLD",
      "RECENT",
      "ANSWERED",
      "DELETED",
      "FLAGGED",
      "FROM x",
      'TO ""',
      "BODY h",
      "TEXT t",
      "SUBJECT {4+}\r\nfuzz",
      "HEADER Subject fuzz",
      "BCC a",
      "SINCE 1-Jan-2020",
      "BEFORE 31-Dec-2099",
      "ON 1-Jan-2020",
      "SENTON 30-Feb-2020",
      "LARGER 10",
      "SMALLER 0",
      "UID 1:*",
      "NOT",
      "OR ALL",
      "KEYWORD $x",
      "UNKEYWORD $x",
      "(",
      ")",
      "1:*",
      "CHARSET UTF-8 ALL",
    ];
    const cmds = () =>
      pick([
        () => `FETCH ${pick(sets)} (${items()} ${items()})`,
        () => `UID FETCH ${pick(sets)} ${items()}`,
        () => `SEARCH ${pick(keys)} ${pick(keys)}`,
        () => `UID SEARCH ${pick(["OR", "NOT", ""])} ${pick(keys)} ${pick(keys)}`,
        () =>
          `STORE ${pick(sets)} ${pick(["FLAGS", "+FLAGS", "-FLAGS.SILENT", "+FLAGS.SILENT", "FLAGS.X"])} (${pick(["\\Seen", "\\Flagged", "\\Draft", "$k", "\\Deleted", ""])})`,
        () => `UID STORE ${pick(sets)} -FLAGS ${pick(["\\Seen", "\\Deleted"])}`,
        () => `STATUS ${pick(["INBOX", "inbox", "x", '""'])} (${pick(["MESSAGES", "UIDNEXT UNSEEN", "BOGUS", ""])})`,
        () => `LIST ${pick(['""', "INBOX", "%"])} ${pick(["*", "%", '""', "INBOX/*"])}`,
        () =>
          pick([
            "NOOP",
            "CHECK",
            "CAPABILITY",
            "NAMESPACE",
            "ID NIL",
            "ENABLE X",
            'LSUB "" *',
            "EXAMINE INBOX",
            "SELECT INBOX",
            "UID EXPUNGE 99",
          ]),
      ])();
    for (let i = 0; i < 400; i++) {
      const tag = `z${i}`;
      const out = await r.cmd(tag, cmds());
      expect(out).toMatch(new RegExp(`(^|\\r\\n)${tag} (OK|NO|BAD) `));
      expect(out).not.toContain("SERVERBUG");
    }
    expect(await r.cmd("end", "LOGOUT")).toContain("end OK");
    expect(inst.output()).not.toMatch(/imap [\w ]+ failed/);
  }, 30_000);

  test("garbage bytes never crash the server; it keeps serving", async () => {
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) >> 8) % 256;
    for (let round = 0; round < 6; round++) {
      const r = await RawImap.open(inst.ports.imap!);
      await r.until("* OK");
      const junk = Buffer.from(Array.from({ length: 20_000 }, rnd));
      // Sprinkle line ends and literal announcements so every parser path is hit.
      for (let i = 0; i < junk.length; i += 97) junk[i] = 10;
      for (let i = 50; i < junk.length; i += 1013) junk.write(round % 2 ? "{999+}\r\n" : "{3}\r\n", i, "latin1");
      r.write(junk);
      // The junk may legitimately swallow what follows (an open literal), so only wait a moment.
      r.write("\r\nz1 NOOP\r\n");
      await Promise.race([r.until("z1 ", 1000).catch(() => ""), r.waitClosed(1000)]);
      expect(r.pending()).not.toContain("SERVERBUG");
      r.close();
      expect(inst.proc.exitCode).toBeNull();
    }
    // Junk where the TLS handshake should be.
    const plain = net.connect(inst.ports.imap!, "127.0.0.1");
    plain.on("error", () => {});
    plain.write(Buffer.from("A1 LOGIN x y\r\n\x16\x03\x01\x00\x05hello"));
    await Bun.sleep(100);
    plain.destroy();

    const box = await newBox(inst);
    const r = await RawImap.open(inst.ports.imap!);
    await r.login(box);
    expect(await r.cmd("ok", "SELECT INBOX")).toContain("ok OK");
    expect(inst.proc.exitCode).toBeNull();
    r.close();
  }, 30_000);
});

describe("limits", () => {
  test("idle sessions are logged out with BYE after the configured timeout", async () => {
    const box = await newBox(tight);
    const r = await RawImap.open(tight.ports.imap!);
    await r.login(box);
    expect(await r.until("* BYE", 10_000)).toContain("Autologout");
    expect(await r.waitClosed()).toBe(true);
  }, 30_000);

  test("sessions per inbox are bounded: the third log-in is NO [LIMIT] until one leaves", async () => {
    const box = await newBox(tight);
    const a = await RawImap.open(tight.ports.imap!);
    const b = await RawImap.open(tight.ports.imap!);
    await a.login(box);
    await b.login(box);
    const c = await RawImap.open(tight.ports.imap!);
    await c.until("* OK");
    expect(await c.cmd("c1", `LOGIN "${box.address}" "${box.password}"`)).toContain("c1 NO [LIMIT]");
    await a.cmd("a9", "LOGOUT");
    await a.waitClosed();
    expect(await c.cmd("c2", `LOGIN "${box.address}" "${box.password}"`)).toContain("c2 OK");
    b.close();
    c.close();
  });

  test("connections in total are bounded", async () => {
    await Bun.sleep(200); // let the previous test's sockets go
    const open: RawImap[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await RawImap.open(tight.ports.imap!);
      await r.until("* OK");
      open.push(r);
    }
    const extra = await RawImap.open(tight.ports.imap!);
    expect(await extra.until("* BYE")).toContain("Too many connections");
    expect(await extra.waitClosed()).toBe(true);
    for (const r of open) r.close();
  });
});

describe("STARTTLS on the plain port", () => {
  test("LOGINDISABLED before STARTTLS; after it, the same socket is TLS and log-in works", async () => {
    await Bun.sleep(200);
    const box = await newBox(tight);
    const sock = net.connect(tight.ports.imapplain!, "127.0.0.1");
    let buf = "";
    sock.on("data", (d) => (buf += d.toString("latin1")));
    const waitFor = async (s: string) => {
      for (let i = 0; i < 200 && !buf.includes(s); i++) await Bun.sleep(20);
      expect(buf).toContain(s);
    };
    await waitFor("* OK");
    expect(buf).toContain("STARTTLS");
    expect(buf).toContain("LOGINDISABLED");
    sock.write(`s1 LOGIN "${box.address}" "${box.password}"\r\n`);
    await waitFor("s1 NO [PRIVACYREQUIRED]");
    sock.write("s2 STARTTLS\r\n");
    await waitFor("s2 OK");
    sock.removeAllListeners("data");
    const secure = tls.connect({ socket: sock, rejectUnauthorized: false });
    await new Promise<void>((res, rej) => {
      secure.once("secureConnect", () => res());
      secure.once("error", rej);
    });
    let out = "";
    secure.on("data", (d) => (out += d.toString("latin1")));
    secure.write("t1 CAPABILITY\r\n");
    for (let i = 0; i < 200 && !out.includes("t1 OK"); i++) await Bun.sleep(20);
    expect(out).toContain("AUTH=PLAIN");
    expect(out).not.toContain("STARTTLS");
    secure.write(`t2 LOGIN "${box.address}" "${box.password}"\r\n`);
    for (let i = 0; i < 200 && !out.includes("t2 "); i++) await Bun.sleep(20);
    expect(out).toContain("t2 OK");
    secure.destroy();

    // imapflow upgrades by itself.
    const c = imapflow(tight, box, { port: tight.ports.imapplain, secure: false, doSTARTTLS: true });
    await c.connect();
    expect(c.secureConnection).toBe(true);
    await c.logout();
  });
});

describe("restart", () => {
  test("UIDVALIDITY, UIDs and UIDNEXT are the same after a restart", async () => {
    const box = await newBox(tight);
    for (const n of [1, 2, 3]) await send(tight, box.address, { subject: `r${n}`, text: `r${n}` });
    const r = await RawImap.open(tight.ports.imap!);
    await r.login(box);
    const sel = await r.cmd("a1", "SELECT INBOX");
    await r.cmd("a2", "STORE 2 +FLAGS.SILENT (\\Deleted \\Flagged)");
    await r.cmd("a3", "EXPUNGE");
    const before = await r.cmd("a4", "UID FETCH 1:* (FLAGS)");
    r.close();
    const validity = /UIDVALIDITY (\d+)/.exec(sel)![1];

    await tight.stop();
    tight = await tight.restart();
    const r2 = await RawImap.open(tight.ports.imap!);
    await r2.login(box);
    const sel2 = await r2.cmd("a1", "SELECT INBOX");
    expect(sel2).toContain(`[UIDVALIDITY ${validity}]`);
    expect(sel2).toContain("[UIDNEXT 4]");
    expect(sel2).toContain("* 2 EXISTS");
    expect(await r2.cmd("a4", "UID FETCH 1:* (FLAGS)")).toBe(before);
    await send(tight, box.address, { subject: "r4", text: "r4" });
    expect(await r2.cmd("a5", "NOOP")).toContain("* 3 EXISTS");
    expect(await r2.cmd("a6", "UID SEARCH ALL")).toContain("* SEARCH 1 3 4\r\n");
    const rest = await json(tight.api(`/v1/inboxes/${box.id}/messages`));
    expect(rest.body.data.map((m: any) => m.subject)).toEqual(["r4", "r3", "r1"]);
    r2.close();
  }, 30_000);
});

// Last in this file: it uses up 127.0.0.1's failure budget for this inbox on `tight` (shared with POP3).
describe("failed log-ins", () => {
  test("after 10 failures on one inbox from one address even the right password is refused with NO [UNAVAILABLE]", async () => {
    const box = await newBox(tight);
    const r = await RawImap.open(tight.ports.imap!);
    await r.until("* OK");
    for (let i = 0; i < 10; i++)
      expect(await r.cmd(`f${i}`, `LOGIN "${box.address}" "wrong-${i}"`)).toContain(`f${i} NO [AUTHENTICATIONFAILED]`);
    expect(await r.cmd("g1", `LOGIN "${box.address}" "${box.password}"`)).toContain("g1 NO [UNAVAILABLE]");
    const ir = Buffer.from(`\0${box.address}\0${box.password}`).toString("base64");
    expect(await r.cmd("g2", `AUTHENTICATE PLAIN ${ir}`)).toContain("g2 NO [UNAVAILABLE]");
    expect(await r.cmd("g3", "NOOP")).toContain("g3 OK");
    r.close();
  });
});
