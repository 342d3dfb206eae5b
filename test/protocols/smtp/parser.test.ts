// The pure parts of SMTP: command lines with their parameters, and the DATA decoder (dot-stuffing,
// the end of data, smuggling shapes), fed whole and split at every byte.
import { describe, expect, test } from "bun:test";
import { DataDecoder, decodeSaslPlain, parseCommand } from "../../../src/protocols/smtp/parser";

const ok = (line: string) => {
  const r = parseCommand(line);
  if (!r.ok) throw new Error(`expected a command from ${JSON.stringify(line)}, got ${r.reply}`);
  return r.command;
};
const bad = (line: string) => {
  const r = parseCommand(line);
  if (r.ok) throw new Error(`expected an error from ${JSON.stringify(line)}`);
  return r.reply;
};

describe("parseCommand", () => {
  test("verbs are case-insensitive; a trailing CR is ignored", () => {
    expect(ok("ehlo client.test\r")).toEqual({ verb: "EHLO", domain: "client.test" });
    expect(ok("Helo [127.0.0.1]")).toEqual({ verb: "HELO", domain: "[127.0.0.1]" });
    expect(ok("quit")).toEqual({ verb: "QUIT" });
    expect(bad("EHLO")).toMatch(/^501 5\.5\.4/);
    expect(bad("FROB")).toMatch(/^500 5\.5\.2/);
    expect(bad("EXPN list")).toMatch(/^502 5\.5\.1/);
    expect(bad("DATA now")).toMatch(/^501/);
  });

  test("MAIL FROM with SIZE, BODY, SMTPUTF8, AUTH; the null sender; lenient spacing", () => {
    expect(ok("MAIL FROM:<a@example.com> SIZE=1234 BODY=8BITMIME SMTPUTF8 AUTH=<>")).toEqual({
      verb: "MAIL",
      address: "a@example.com",
      size: 1234,
      body: "8BITMIME",
      smtputf8: true,
    });
    expect(ok("mail from: <jörg@exämple.com>")).toMatchObject({ address: "jörg@exämple.com", body: "7BIT" });
    expect(ok("MAIL FROM:<>")).toMatchObject({ address: "" });
    expect(ok("MAIL FROM:bare@example.com")).toMatchObject({ address: "bare@example.com" });
    expect(ok('MAIL FROM:<"odd > local"@example.com>')).toMatchObject({ address: '"odd > local"@example.com' });
    expect(ok("MAIL FROM:<@relay.example,@b.example:a@example.com> BODY=binarymime")).toMatchObject({
      address: "a@example.com",
      body: "BINARYMIME",
    });
    expect(bad("MAIL FROM:<a@example.com> SIZE=abc")).toMatch(/^501/);
    expect(bad("MAIL FROM:<a@example.com> BODY=9BIT")).toMatch(/^501/);
    expect(bad("MAIL FROM:<a@example.com> XYZ=1")).toMatch(/^555 5\.5\.4/);
    expect(bad("MAIL TO:<a@example.com>")).toMatch(/^501/);
    expect(bad("MAIL FROM:<a@example.com")).toMatch(/^501/);
    expect(bad("MAIL FROM:<a b@example.com>")).toMatch(/^501/);
  });

  test("RCPT TO with DSN parameters; an empty path is refused", () => {
    expect(ok("RCPT TO:<box@inboxd.test> NOTIFY=NEVER ORCPT=rfc822;box@inboxd.test")).toEqual({ verb: "RCPT", address: "box@inboxd.test" });
    expect(ok("RCPT TO:<Postmaster>")).toEqual({ verb: "RCPT", address: "Postmaster" });
    expect(bad("RCPT TO:<>")).toMatch(/^501 5\.1\.3/);
    expect(bad("RCPT TO:<a@b.test> SIZE=1")).toMatch(/^555/);
  });

  test("a quoted local part that needs no quotes is the same address unquoted; one that needs them keeps them", () => {
    expect(ok('RCPT TO:<"box"@inboxd.test>')).toEqual({ verb: "RCPT", address: "box@inboxd.test" });
    expect(ok('RCPT TO:<"first.last+tag"@inboxd.test>')).toEqual({ verb: "RCPT", address: "first.last+tag@inboxd.test" });
    expect(ok('RCPT TO:<"b\\ox"@inboxd.test>')).toEqual({ verb: "RCPT", address: "box@inboxd.test" });
    expect(ok('RCPT TO:<"jöhn"@inboxd.test> ')).toEqual({ verb: "RCPT", address: "jöhn@inboxd.test" });
    expect(ok('MAIL FROM:<"app"@example.com>')).toMatchObject({ verb: "MAIL", address: "app@example.com" });
    expect(ok('RCPT TO:<"john doe"@inboxd.test>')).toEqual({ verb: "RCPT", address: '"john doe"@inboxd.test' });
    expect(ok('RCPT TO:<"a..b"@inboxd.test>')).toEqual({ verb: "RCPT", address: '"a..b"@inboxd.test' });
    expect(ok('RCPT TO:<"a\\"b"@inboxd.test>')).toEqual({ verb: "RCPT", address: '"a\\"b"@inboxd.test' });
    expect(ok('RCPT TO:<""@inboxd.test>')).toEqual({ verb: "RCPT", address: '""@inboxd.test' });
  });

  test("BDAT, AUTH, control characters", () => {
    expect(ok("BDAT 100")).toEqual({ verb: "BDAT", size: 100, last: false });
    expect(ok("bdat 0 last")).toEqual({ verb: "BDAT", size: 0, last: true });
    expect(bad("BDAT x")).toMatch(/^501/);
    expect(ok("AUTH plain AGEAYg==")).toEqual({ verb: "AUTH", mechanism: "PLAIN", initial: "AGEAYg==" });
    expect(ok("AUTH LOGIN")).toEqual({ verb: "AUTH", mechanism: "LOGIN", initial: null });
    expect(bad("NOOP a\x00b")).toMatch(/^501 5\.5\.2/);
    expect(decodeSaslPlain(Buffer.from("\0user\0pass").toString("base64"))).toEqual({ authzid: "", user: "user", password: "pass" });
    expect(decodeSaslPlain("not base64!")).toBeNull();
  });
});

/** Feeds bytes as a session does: unconsumed tails are handed back with the next piece. */
function decode(wire: Buffer, cuts: number[], max = 1 << 20) {
  const d = new DataDecoder(max);
  let pending = Buffer.alloc(0);
  let at = 0;
  for (const end of [...cuts, wire.length]) {
    pending = Buffer.concat([pending, wire.subarray(at, end)]);
    at = end;
    const r = d.push(pending);
    pending = pending.subarray(r.consumed);
    if (r.done) return { message: d.message(), rest: Buffer.concat([pending, wire.subarray(at)]), overflow: d.overflow };
  }
  return null;
}

describe("DataDecoder", () => {
  const cases: Array<[string, string | null, string | null]> = [
    // [wire, message, rest after the end] — null: the data has not ended
    ["Subject: x\r\n\r\nhi\r\n.\r\nQUIT\r\n", "Subject: x\r\n\r\nhi\r\n", "QUIT\r\n"],
    [".\r\n", "", ""],
    ["..dot\r\n...two\r\n.\r\n", ".dot\r\n..two\r\n", ""],
    ["a\n.\nb\r\n.\r\n", "a\n.\nb\r\n", ""],
    ["a\r.\rb\r\n.\r\n", "a\r.\rb\r\n", ""],
    ["a\r\n.\nb\r\n.\r\n", "a\r\n\nb\r\n", ""],
    ["a\n.\r\nb\r\n.\r\n", "a\n.\r\nb\r\n", ""],
    ["a\r\n.\r", null, null],
    ["a\n.\n", null, null],
    ["a\r\n.x\r\n", null, null],
  ];
  for (const [wire, message, rest] of cases) {
    test(`${JSON.stringify(wire)} split at every byte`, () => {
      const buf = Buffer.from(wire, "latin1");
      const all = Array.from({ length: buf.length }, (_, i) => i + 1).slice(0, -1);
      for (const cuts of [[], all, ...all.map((c) => [c])]) {
        const r = decode(buf, cuts);
        if (message === null) expect(r).toBeNull();
        else {
          expect(r?.message.toString("latin1")).toBe(message);
          expect(r?.rest.toString("latin1")).toBe(rest!);
        }
      }
    });
  }

  test("over the limit: the bytes are dropped, the end is still found", () => {
    const r = decode(Buffer.from(`${"x".repeat(100)}\r\n.\r\nNOOP\r\n`), [10, 50], 20);
    expect(r?.overflow).toBe(true);
    expect(r?.rest.toString()).toBe("NOOP\r\n");
  });
});
