// The pure parts of POP3: command parsing and multi-line encoding (dot-stuffing, CRLF, TOP).
import { describe, expect, test } from "bun:test";
import { decodeSaslPlain, parseCommand } from "../../../src/protocols/pop3/parser";
import { encodeMultiline, transmittedSize } from "../../../src/protocols/pop3/wire";

const ok = (line: string) => {
  const r = parseCommand(line);
  if (!r.ok) throw new Error(`expected a command from ${JSON.stringify(line)}, got ${r.error}`);
  return r.command;
};
const bad = (line: string | Uint8Array) => {
  const r = parseCommand(line);
  expect(r.ok).toBe(false);
  return r.ok ? "" : r.error;
};

describe("parseCommand", () => {
  test("keywords are case-insensitive and a trailing CR is ignored", () => {
    expect(ok("stat")).toEqual({ name: "STAT" });
    expect(ok("Quit\r")).toEqual({ name: "QUIT" });
    expect(ok("CAPA")).toEqual({ name: "CAPA" });
    expect(ok("stls")).toEqual({ name: "STLS" });
  });

  test("USER takes one argument; PASS keeps the rest of the line, spaces included", () => {
    expect(ok("USER a@b.test")).toEqual({ name: "USER", user: "a@b.test" });
    expect(ok("PASS  two  spaces ")).toEqual({ name: "PASS", password: " two  spaces " });
    expect(bad("USER")).toContain("USER");
    expect(bad("USER a b")).toContain("USER");
    expect(bad("PASS")).toContain("PASS");
  });

  test("LIST/UIDL take an optional message number; RETR/DELE a required one; TOP two", () => {
    expect(ok("LIST")).toEqual({ name: "LIST", msg: null });
    expect(ok("uidl 7")).toEqual({ name: "UIDL", msg: 7 });
    expect(ok("RETR 1")).toEqual({ name: "RETR", msg: 1 });
    expect(ok("DELE 12")).toEqual({ name: "DELE", msg: 12 });
    expect(ok("TOP 3 0")).toEqual({ name: "TOP", msg: 3, lines: 0 });
    expect(bad("RETR")).toContain("message number");
    expect(bad("RETR 0")).toContain("at least 1");
    expect(bad("RETR -1")).toContain("decimal");
    expect(bad("RETR 1x")).toContain("decimal");
    expect(bad("RETR 99999999999999999999")).toContain("decimal");
    expect(bad("TOP 1")).toContain("TOP");
    expect(bad("LIST 1 2")).toContain("at most one");
    expect(bad("STAT 1")).toContain("no arguments");
    expect(bad("RETR  1")).toContain("one space");
  });

  test("AUTH: listing, mechanism, optional initial response", () => {
    expect(ok("AUTH")).toEqual({ name: "AUTH", mechanism: null, initial: null });
    expect(ok("auth plain")).toEqual({ name: "AUTH", mechanism: "PLAIN", initial: null });
    expect(ok("AUTH PLAIN AGEAYg==")).toEqual({ name: "AUTH", mechanism: "PLAIN", initial: "AGEAYg==" });
    expect(bad("AUTH PLAIN a b")).toContain("AUTH");
  });

  test("unknown keywords, empty lines, control bytes and invalid UTF-8 are syntax errors, never exceptions", () => {
    expect(bad("")).toContain("empty");
    expect(bad("HELO x")).toContain("unknown");
    expect(bad("EHLO")).toContain("unknown");
    expect(bad("ST\x00AT")).toContain("control");
    expect(bad("\x1b[2J")).toContain("control");
    expect(bad(new Uint8Array([0xff, 0xfe, 0x80, 0x20, 0x41]))).toContain("unknown");
    for (let i = 0; i < 2000; i++) {
      const bytes = new Uint8Array(1 + Math.floor(Math.random() * 40)).map(() => Math.floor(Math.random() * 256));
      const r = parseCommand(bytes);
      expect(typeof r.ok).toBe("boolean");
    }
  });
});

describe("decodeSaslPlain", () => {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  test("authzid NUL user NUL password", () => {
    expect(decodeSaslPlain(b64("\0u@x.test\0p w"))).toEqual({ authzid: "", user: "u@x.test", password: "p w" });
    expect(decodeSaslPlain(b64("u@x.test\0u@x.test\0pw"))).toEqual({ authzid: "u@x.test", user: "u@x.test", password: "pw" });
  });
  test("malformed responses are null", () => {
    expect(decodeSaslPlain("=")).toBeNull();
    expect(decodeSaslPlain("not base64!")).toBeNull();
    expect(decodeSaslPlain(b64("no-nuls"))).toBeNull();
    expect(decodeSaslPlain(b64("\0\0pw"))).toBeNull();
    expect(decodeSaslPlain(b64("\0user\0"))).toBeNull();
  });
});

describe("encodeMultiline", () => {
  const enc = (s: string, n: number | null = null) => encodeMultiline(Buffer.from(s, "latin1"), n).toString("latin1");

  test("dot-stuffs every line starting with a dot and terminates with .CRLF", () => {
    expect(enc("A: b\r\n\r\n.hidden\r\n..two\r\nx.y\r\n.\r\n")).toBe("A: b\r\n\r\n..hidden\r\n...two\r\nx.y\r\n..\r\n.\r\n");
  });

  test("bare LF and bare CR become CRLF; a missing final line end is added", () => {
    expect(enc("A: b\n\nline\rnext")).toBe("A: b\r\n\r\nline\r\nnext\r\n.\r\n");
    expect(enc("")).toBe(".\r\n");
  });

  test("CRLF input passes through byte-identical apart from the stuffing", () => {
    const raw = "Subject: x\r\n\r\nh\u00e9llo\r\n\u00ff\u0000binary\r\n";
    expect(enc(raw)).toBe(raw + ".\r\n");
    expect(transmittedSize(Buffer.from(raw, "latin1"))).toBe(Buffer.byteLength(raw, "latin1"));
    expect(transmittedSize(Buffer.from("a\nb", "latin1"))).toBe(6);
  });

  test("TOP: the header, the blank line and n body lines", () => {
    const raw = "A: 1\r\nB: 2\r\n\r\nl1\r\n.l2\r\nl3\r\n";
    expect(enc(raw, 0)).toBe("A: 1\r\nB: 2\r\n\r\n.\r\n");
    expect(enc(raw, 2)).toBe("A: 1\r\nB: 2\r\n\r\nl1\r\n..l2\r\n.\r\n");
    expect(enc(raw, 10)).toBe(raw.replace(".l2", "..l2") + ".\r\n");
    // Without a body separator the whole message is header.
    expect(enc("A: 1\r\nB: 2\r\n", 0)).toBe("A: 1\r\nB: 2\r\n.\r\n");
  });
});
