// The IMAP parser is pure (bytes in, commands out): framing with literals, tokens, sequence
// sets, FETCH items, SEARCH keys, and the MIME structure behind BODYSTRUCTURE and sections.
import { describe, expect, test } from "bun:test";
import { Framer } from "../../../src/protocols/imap/parser/framer";
import { parseCommand, ParseError } from "../../../src/protocols/imap/parser/tokens";
import { inSet, parseSequenceSet } from "../../../src/protocols/imap/parser/sequence";
import { parseFetchItems, sectionName } from "../../../src/protocols/imap/parser/fetch-items";
import { parseSearch, parseDate } from "../../../src/protocols/imap/parser/search-keys";
import { parseMime } from "../../../src/protocols/imap/mime-structure";
import { bodyStructure } from "../../../src/protocols/imap/bodystructure";
import { envelope, parseAddressList } from "../../../src/protocols/imap/envelope";
import { sectionBytes } from "../../../src/protocols/imap/sections";

const b = (s: string) => Buffer.from(s, "latin1");

describe("framer", () => {
  test("cuts lines, asks for synchronising literals, not for LITERAL+", () => {
    const f = new Framer();
    expect(f.push(b("a1 NOOP\r\na2 LOGIN {3}\r\n"))).toEqual([{ kind: "command", bytes: b("a1 NOOP") }, { kind: "continue" }]);
    expect(f.push(b("bob {4+}\r\npa"))).toEqual([]);
    const out = f.push(b("ss\r\n"));
    expect(out).toEqual([{ kind: "command", bytes: b("a2 LOGIN {3}\r\nbob {4+}\r\npass") }]);
    expect(parseCommand((out[0] as any).bytes).args.map((a: any) => a.v.toString())).toEqual(["bob", "pass"]);
  });

  test("a literal may contain CRLF and braces; bytes arrive one at a time", () => {
    const f = new Framer();
    const frames = [...b("x APPEND {7+}\r\na\r\n{1}\r\r\n")].flatMap((byte) => f.push(Buffer.from([byte])));
    expect(frames).toEqual([{ kind: "command", bytes: b("x APPEND {7+}\r\na\r\n{1}\r") }]);
  });

  test("limits: long lines and large literals are refused, the stream goes on", () => {
    const f = new Framer({ maxLine: 100, maxLiteral: 10, maxCommand: 1000 });
    const long = f.push(b(`t1 NOOP ${"x".repeat(200)}\r\nt2 NOOP\r\n`));
    expect(long[0]).toMatchObject({ kind: "error", tag: "t1", fatal: false });
    expect(long.at(-1)).toEqual({ kind: "command", bytes: b("t2 NOOP") });
    expect(f.push(b("t3 LOGIN {11}\r\nt4 NOOP\r\n"))).toEqual([
      { kind: "error", tag: "t3", message: expect.stringContaining("Literal too large"), fatal: false },
      { kind: "command", bytes: b("t4 NOOP") },
    ]);
    expect(f.push(b("t5 LOGIN {11+}\r\n"))[0]).toMatchObject({ kind: "error", tag: "t5", fatal: true });
  });
});

describe("tokens", () => {
  test("tag, UID commands, quoted strings with escapes, lists, NIL, sections", () => {
    const c = parseCommand(b('A001 UID FETCH 1:* (FLAGS BODY.PEEK[HEADER.FIELDS (FROM "To")]<0.10>) "a \\"q\\" \\\\" NIL'));
    expect(c.tag).toBe("A001");
    expect(c.name).toBe("UID FETCH");
    expect(c.uid).toBe(true);
    expect(c.args[0]).toEqual({ t: "atom", v: "1:*" });
    expect(c.args[1]).toEqual({
      t: "list",
      v: [
        { t: "atom", v: "FLAGS" },
        { t: "atom", v: 'BODY.PEEK[HEADER.FIELDS (FROM "To")]<0.10>' },
      ],
    });
    expect((c.args[2] as any).v.toString()).toBe('a "q" \\');
    expect(c.args[3]).toEqual({ t: "atom", v: "NIL" });
  });

  test("'[' is an ordinary atom character outside a FETCH section (RFC 3501 §9; imaptest's atom test)", () => {
    const name = "!#$&'+,-.0123456789:;<=>?@^_`|[}";
    expect(parseCommand(b(`s1 SELECT ${name}`)).args).toEqual([{ t: "atom", v: name }]);
    expect(parseCommand(b("s2 CREATE a[b] c]")).args).toEqual([
      { t: "atom", v: "a[b]" },
      { t: "atom", v: "c]" },
    ]);
    // The FETCH items keep their sections whole, spaces included.
    expect(parseCommand(b("s3 FETCH 1 BINARY.PEEK[1 2]")).args[1]).toEqual({ t: "atom", v: "BINARY.PEEK[1 2]" });
  });

  test("syntax errors are ParseErrors that carry the tag when it could be read", () => {
    for (const bad of ['t1 LOGIN "unterminated', "t1 FETCH (1", "t1 X {5}\r\nab", "t1  NOOP", "t1 FETCH 1 BODY[TEXT", "t1 A {x}"]) {
      let err: unknown;
      try {
        parseCommand(b(bad));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ParseError);
      expect((err as ParseError).tag).toBe("t1");
    }
    expect(() => parseCommand(b("+ NOOP"))).toThrow(ParseError);
    expect(() => parseCommand(b(""))).toThrow(ParseError);
  });

  test("any byte sequence either parses or throws ParseError", () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 256;
    for (let i = 0; i < 3000; i++) {
      const bytes = Buffer.from(Array.from({ length: 1 + (i % 60) }, rnd));
      try {
        parseCommand(bytes);
      } catch (e) {
        expect(e).toBeInstanceOf(ParseError);
      }
    }
  });
});

describe("sequence sets", () => {
  test("ranges, * and reversed ranges", () => {
    const set = parseSequenceSet("1:3,7,9:*");
    expect([1, 2, 3, 4, 7, 8, 9, 10].map((n) => inSet(set, n, 10))).toEqual([true, true, true, false, true, false, true, true]);
    expect(inSet(parseSequenceSet("5:2"), 3, 10)).toBe(true);
    // "n:*" with n beyond the largest still names the largest (RFC 3501 §6.4.8).
    expect(inSet(parseSequenceSet("20:*"), 10, 10)).toBe(true);
    for (const bad of ["", "0", "1:", "a", "1,,2", "1:2:3"]) expect(() => parseSequenceSet(bad)).toThrow(ParseError);
  });
});

describe("FETCH items", () => {
  test("macros, sections, partials and names in responses", () => {
    expect(parseFetchItems({ t: "atom", v: "fast" }).map((i) => i.kind)).toEqual(["FLAGS", "INTERNALDATE", "RFC822.SIZE"]);
    const items = parseFetchItems(
      parseCommand(b("t FETCH 1 (BODY[] BODY.PEEK[1.2.MIME] BODY[2.HEADER.FIELDS.NOT (X-A x-b)]<5.10> RFC822.TEXT)")).args[1],
    );
    expect(items[0]).toEqual({ kind: "SECTION", section: { part: [], spec: "", fields: [] }, peek: false, partial: null });
    expect(items[1]).toMatchObject({ peek: true, section: { part: [1, 2], spec: "MIME" } });
    expect(items[2]).toMatchObject({
      section: { part: [2], spec: "HEADER.FIELDS.NOT", fields: ["X-A", "X-B"] },
      partial: { start: 5, length: 10 },
    });
    expect(sectionName((items[2] as any).section)).toBe("2.HEADER.FIELDS.NOT (X-A X-B)");
    expect(items[3]).toEqual({ kind: "RFC822.TEXT" });
    for (const bad of ["BODY[MIME]", "BODY[1HEADER]", "BODY[FOO]", "BINARY[1]", "BOGUS", "BODY[]<1.0>"]) {
      expect(() => parseFetchItems({ t: "atom", v: bad })).toThrow(ParseError);
    }
  });
});

describe("SEARCH keys", () => {
  test("criteria, OR/NOT, lists, charset, dates and sets", () => {
    const q = parseSearch(parseCommand(b('t SEARCH CHARSET UTF-8 OR FROM "bob" NOT SEEN (SINCE 1-Feb-2024 LARGER 100) UID 1:5 2,4')).args);
    expect(q.charset).toBe("UTF-8");
    expect(q.key).toEqual({
      k: "and",
      keys: [
        { k: "or", a: { k: "text", field: "from", value: "bob" }, b: { k: "not", key: { k: "flag", flag: "seen", set: true } } },
        {
          k: "and",
          keys: [
            { k: "date", field: "internal", op: "since", day: "2024-02-01" },
            { k: "size", op: "larger", n: 100 },
          ],
        },
        { k: "uid", set: [[1, 5]] },
        {
          k: "seq",
          set: [
            [2, 2],
            [4, 4],
          ],
        },
      ],
    });
    expect(parseDate("09-Dec-2025")).toBe("2025-12-09");
    for (const bad of ["OR SEEN", "SINCE yesterday", "FROM", "WHATEVER", "LARGER x", ""]) {
      expect(() => parseSearch(parseCommand(b(`t SEARCH ${bad}`.trim())).args)).toThrow(ParseError);
    }
  });
});

const MIXED = [
  'From: "Doe, Jane" <jane@example.com>, bob@example.org (Bob)',
  "To: undisclosed-recipients:;",
  "Subject: =?utf-8?q?Gr=C3=BC=C3=9Fe?=",
  "Message-ID: <m1@example.com>",
  'Content-Type: multipart/mixed; boundary="outer"',
  "",
  "preamble",
  "--outer",
  "Content-Type: multipart/alternative; boundary=inner",
  "",
  "--inner",
  "Content-Type: text/plain; charset=utf-8",
  "",
  "plain",
  "two",
  "--inner",
  "Content-Type: text/html",
  "Content-Transfer-Encoding: quoted-printable",
  "",
  "<p>html</p>",
  "--inner--",
  "--outer",
  'Content-Type: application/pdf; name="r.pdf"',
  'Content-Disposition: attachment; filename="r.pdf"',
  "Content-Transfer-Encoding: base64",
  "",
  "JVBERi0=",
  "--outer",
  "Content-Type: message/rfc822",
  "",
  "Subject: inner",
  "From: x@y.z",
  "",
  "inner body",
  "--outer--",
  "",
].join("\r\n");

describe("MIME structure", () => {
  const raw = b(MIXED);
  const root = parseMime(raw);

  test("BODYSTRUCTURE of multipart/alternative with an attachment and a message/rfc822 part", () => {
    expect(bodyStructure(root, true)).toBe(
      '((("text" "plain" ("charset" "utf-8") NIL NIL "7bit" 10 1 NIL NIL NIL NIL)' +
        '("text" "html" ("charset" "us-ascii") NIL NIL "quoted-printable" 11 0 NIL NIL NIL NIL) "alternative" ("boundary" "inner") NIL NIL NIL)' +
        '("application" "pdf" ("name" "r.pdf") NIL NIL "base64" 8 NIL ("attachment" ("filename" "r.pdf")) NIL NIL)' +
        '("message" "rfc822" NIL NIL NIL "7bit" 41 (NIL "inner" (("" NIL "x" "y.z")) (("" NIL "x" "y.z")) (("" NIL "x" "y.z")) NIL NIL NIL NIL NIL)'.replace(
          /\(\(""/g,
          "((NIL",
        ) +
        ' ("text" "plain" ("charset" "us-ascii") NIL NIL "7bit" 10 0 NIL NIL NIL NIL) 3 NIL NIL NIL NIL) "mixed" ("boundary" "outer") NIL NIL NIL)',
    );
    expect(bodyStructure(root, false)).toStartWith('((("text" "plain" ("charset" "utf-8") NIL NIL "7bit" 10 1)');
  });

  test("sections: parts, MIME, HEADER/TEXT of an encapsulated message", () => {
    const sec = (part: number[], spec: any = "", fields: string[] = []) => sectionBytes(raw, root, { part, spec, fields }).toString();
    expect(sec([1, 1])).toBe("plain\r\ntwo");
    // A nested multipart keeps the line break after its close delimiter (Dovecot's sizes).
    expect(sec([1])).toEndWith("<p>html</p>\r\n--inner--\r\n");
    // As in Dovecot: a single part is its own part 1 at any depth; HEADER/TEXT exist only for messages.
    expect(sec([1, 2, 1])).toBe("<p>html</p>");
    expect(sec([1, 1], "HEADER")).toBe("");
    expect(sec([2], "TEXT")).toBe("");
    expect(sec([2], "MIME")).toBe(
      'Content-Type: application/pdf; name="r.pdf"\r\nContent-Disposition: attachment; filename="r.pdf"\r\nContent-Transfer-Encoding: base64\r\n\r\n',
    );
    expect(sec([3], "HEADER")).toBe("Subject: inner\r\nFrom: x@y.z\r\n\r\n");
    expect(sec([3], "TEXT")).toBe("inner body");
    expect(sec([3, 1])).toBe("inner body");
    expect(sec([], "HEADER.FIELDS", ["SUBJECT", "TO"])).toBe(
      "To: undisclosed-recipients:;\r\nSubject: =?utf-8?q?Gr=C3=BC=C3=9Fe?=\r\n\r\n",
    );
    expect(sec([9])).toBe("");
  });

  test("ENVELOPE keeps raw values and renders groups", () => {
    expect(envelope(root)).toBe(
      '(NIL "=?utf-8?q?Gr=C3=BC=C3=9Fe?=" (("Doe, Jane" NIL "jane" "example.com")("Bob" NIL "bob" "example.org"))' +
        ' (("Doe, Jane" NIL "jane" "example.com")("Bob" NIL "bob" "example.org")) (("Doe, Jane" NIL "jane" "example.com")("Bob" NIL "bob" "example.org"))' +
        ' ((NIL NIL "undisclosed-recipients" NIL)(NIL NIL NIL NIL)) NIL NIL NIL "<m1@example.com>")',
    );
    expect(parseAddressList("a@b.c, <d@e.f>")).toEqual([
      { name: null, mailbox: "a", host: "b.c" },
      { name: null, mailbox: "d", host: "e.f" },
    ]);
  });

  test("RFC 2231 continuations are joined (not decoded), 8-bit header bytes survive, default charset is appended", () => {
    const m = b(
      [
        "Subject: caf\xe9",
        'Content-Type: multipart/mixed; boundary="b"',
        "",
        "--b",
        "Content-Type: text/plain; name=x.txt",
        "Content-Disposition: attachment; filename*0*=utf-8''Gr%C3%BC; filename*1=\"sse.txt\"",
        "",
        "hi",
        "--b--",
        "",
      ].join("\r\n"),
    );
    const root = parseMime(m);
    expect(bodyStructure(root, true)).toBe(
      '(("text" "plain" ("name" "x.txt" "charset" "us-ascii") NIL NIL "7bit" 2 0 NIL ("attachment" ("filename*" "utf-8\'\'Gr%C3%BCsse.txt")) NIL NIL) "mixed" ("boundary" "b") NIL NIL NIL)',
    );
    const env = envelope(root);
    expect(env).toContain("{4}\r\ncaf\xe9 ");
    expect(Buffer.from(env, "latin1").includes(Buffer.from([0x63, 0x61, 0x66, 0xe9]))).toBe(true);
  });

  test("garbage never throws and a missing boundary leaves one part", () => {
    let seed = 3;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 256;
    for (let i = 0; i < 300; i++) {
      const junk = Buffer.concat([
        b('Content-Type: multipart/mixed; boundary="x"\r\n\r\n--x\r\n'),
        Buffer.from(Array.from({ length: i * 3 }, rnd)),
      ]);
      const r = parseMime(junk);
      expect(typeof bodyStructure(r, true)).toBe("string");
      expect(typeof envelope(r)).toBe("string");
    }
  });
});
