import { describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import iconv from "iconv-lite";
import nodemailer from "nodemailer";
import type Mail from "nodemailer/lib/mailer";
import { MAX_HEADER_VALUE_CHARS, MAX_HEADERS } from "../../src/mime/headers";
import { mailparserMayStall, parseMessage, projectHeaders } from "../../src/mime/parse";

const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "\r\n" });
async function compose(mail: Mail.Options): Promise<Uint8Array> {
  const info = await transport.sendMail({ from: "Sender <sender@example.com>", to: "inbox@example.test", ...mail });
  return new Uint8Array(info.message as Buffer);
}
const bytes = (...parts: Array<string | Uint8Array>) =>
  new Uint8Array(
    Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p.replace(/\r?\n/g, "\r\n"), "binary") : Buffer.from(p)))),
  );
const utf8 = (s: string) => new Uint8Array(Buffer.from(s.replace(/\r?\n/g, "\r\n"), "utf8"));
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

describe("bodies and addresses", () => {
  test("multipart/alternative gives text, html, preview, links, addresses and ids", async () => {
    const raw = await compose({
      from: '"Zoë Example" <zoe@example.com>',
      to: ["a@example.test", '"Bee" <b@example.test>'],
      cc: "c@example.test",
      subject: "Welcome aboard",
      date: new Date("2025-03-04T05:06:07Z"),
      messageId: "<welcome-1@example.com>",
      text: "Hello   there,\n\n\tplease confirm: https://example.com/confirm?t=abc.\nThanks!",
      html: '<p>Hello <b>there</b>, please <a href="https://example.com/confirm?t=abc&amp;u=1">confirm</a>.</p>',
    });
    const m = await parseMessage(raw);
    expect(m.parseError).toBeNull();
    expect(m.from).toEqual({ email: "zoe@example.com", name: "Zoë Example" });
    expect(m.to).toEqual([
      { email: "a@example.test", name: "" },
      { email: "b@example.test", name: "Bee" },
    ]);
    expect(m.cc).toEqual([{ email: "c@example.test", name: "" }]);
    expect(m.subject).toBe("Welcome aboard");
    expect(m.messageId).toBe("<welcome-1@example.com>");
    expect(m.sentAt).toBe("2025-03-04T05:06:07.000Z");
    expect(m.text).toContain("please confirm");
    expect(m.html).toContain("<b>there</b>");
    expect(m.preview).toBe("Hello there, please confirm: https://example.com/confirm?t=abc. Thanks!");
    expect(m.links).toEqual([
      { url: "https://example.com/confirm?t=abc", text: "" },
      { url: "https://example.com/confirm?t=abc&u=1", text: "confirm" },
    ]);
    expect(m.attachments).toEqual([]);
    expect(m.logicalSizeBytes).toBe(Buffer.byteLength(m.text!) + Buffer.byteLength(m.html!));
  });

  test("an HTML-only message has no text; preview comes from the HTML", async () => {
    const m = await parseMessage(
      await compose({
        subject: "Only HTML",
        html: "<html><head><style>p{color:red}</style></head><body><p>Your   code is <b>482913</b></p></body></html>",
      }),
    );
    expect(m.text).toBeNull();
    expect(m.html).toContain("482913");
    expect(m.preview).toBe("Your code is 482913");
    expect(m.codes).toEqual(["482913"]);
  });

  test("preview is whitespace-collapsed and at most 200 characters", async () => {
    const m = await parseMessage(await compose({ subject: "long", text: "word\n\n ".repeat(500) + "😀".repeat(300) }));
    expect(m.preview.length).toBeLessThanOrEqual(200);
    expect(m.preview).toMatch(/^word word word/);
    expect(m.preview).not.toMatch(/\s\s/);
  });

  test("the 200 are code points: a preview of emoji keeps 200 whole ones (400 UTF-16 units), no half surrogate", async () => {
    const m = await parseMessage(await compose({ subject: "emoji", text: "😀".repeat(300) }));
    expect([...m.preview]).toEqual(Array(200).fill("😀"));
  });

  test("a message without Date has sentAt null", async () => {
    const m = await parseMessage(utf8("From: a@example.com\nSubject: no date\n\nbody\n"));
    expect(m.sentAt).toBeNull();
    expect(m.text).toBe("body\n");
  });
});

describe("attachments", () => {
  test("exact bytes, sha256, declared and served types, inline cid, logical size", async () => {
    const binary = randomBytes(20_000);
    const csv = Buffer.from("a,b\n1,2\n");
    const raw = await compose({
      subject: "files",
      text: "see attached",
      html: '<p>logo <img src="cid:logo@x"></p>',
      attachments: [
        { filename: "data.bin", content: binary, contentType: "application/octet-stream" },
        { filename: "report.csv", content: csv, contentType: "text/csv" },
        { filename: "page.html", content: "<script>alert(1)</script>", contentType: "text/html" },
        { filename: "pic.svg", content: "<svg onload=alert(1)/>", contentType: "image/svg+xml" },
        { filename: "logo.png", content: binary.subarray(0, 100), contentType: "image/png", cid: "logo@x" },
        { filename: "Bericht für Jörg.pdf", content: Buffer.from("%PDF-1.4 fake"), contentType: "application/pdf" },
      ],
    });
    const m = await parseMessage(raw);
    expect(m.parseError).toBeNull();
    // MIME order: nodemailer puts the cid image into multipart/related, ahead of the others.
    expect(m.attachments.map((a) => a.filename)).toEqual([
      "logo.png",
      "data.bin",
      "report.csv",
      "page.html",
      "pic.svg",
      "Bericht für Jörg.pdf",
    ]);
    expect(m.attachments.map((a) => a.position)).toEqual([0, 1, 2, 3, 4, 5]);
    const [logo, bin, sheet, page, svg, pdf] = m.attachments;
    expect(Buffer.from(bin!.content).equals(binary)).toBe(true);
    expect(bin!.sha256).toBe(sha(binary));
    expect(bin!.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(sheet!.declaredContentType).toBe("text/csv");
    expect(sheet!.servedContentType).toBe("text/csv");
    expect(page!.declaredContentType).toBe("text/html");
    expect(page!.servedContentType).toBe("application/octet-stream");
    expect(svg!.declaredContentType).toBe("image/svg+xml");
    expect(svg!.servedContentType).toBe("application/octet-stream");
    expect(logo!.disposition).toBe("inline");
    expect(logo!.contentId).toBe("logo@x");
    expect(logo!.servedContentType).toBe("image/png");
    expect(pdf!.servedContentType).toBe("application/pdf");
    expect(bin!.disposition).toBe("attachment");
    const attBytes = m.attachments.reduce((n, a) => n + a.content.byteLength, 0);
    expect(m.logicalSizeBytes).toBe(Buffer.byteLength(m.text!) + Buffer.byteLength(m.html!) + attBytes);
    expect(m.logicalSizeBytes).toBeLessThan(raw.byteLength); // base64 makes the raw bigger
  });
});

describe("charsets and encoded headers", () => {
  test("iso-8859-1, windows-1252, koi8-r and iso-2022-jp bodies are decoded", async () => {
    const cases: Array<[string, string, string]> = [
      ["iso-8859-1", "8bit", "Grüße aus Köln, ça va?"],
      ["windows-1252", "8bit", "Preis: 10 € – „Angebot“"],
      ["koi8-r", "8bit", "Привет, мир"],
      ["iso-2022-jp", "7bit", "日本語 123456"],
    ];
    // iconv-lite has no ISO-2022-JP encoder: "日本語" is ESC $ B F| K\ 8l ESC ( B.
    const encode = (text: string, charset: string) =>
      charset === "iso-2022-jp" ? Buffer.from("\x1b$BF|K\\8l\x1b(B 123456", "latin1") : iconv.encode(text, charset);
    for (const [charset, cte, text] of cases) {
      const raw = bytes(
        `From: a@example.com\nSubject: ${charset}\nMIME-Version: 1.0\nContent-Type: text/plain; charset=${charset}\nContent-Transfer-Encoding: ${cte}\n\n`,
        encode(text, charset),
        "\n",
      );
      const m = await parseMessage(raw);
      expect(m.parseError).toBeNull();
      expect(m.text?.trim()).toBe(text);
    }
  });

  test("RFC 2047 encoded subject and names in several charsets, and raw UTF-8 headers", async () => {
    const raw = bytes(
      "From: =?ISO-8859-1?Q?J=F6rg_M=FCller?= <jorg@example.com>\n",
      "To: =?KOI8-R?B?8NLJ18XU?= <ivan@example.test>\n",
      "Subject: =?UTF-8?B?8J+YgCBIZWxsbw==?= =?UTF-8?Q?_W=C3=B6rld?=\n",
      "X-Japanese: =?ISO-2022-JP?B?GyRCRnxLXDhsGyhC?=\n",
      Buffer.from("X-Raw: Grüße direkt\n", "utf8"),
      "\nbody\n",
    );
    const m = await parseMessage(raw);
    expect(m.from).toEqual({ email: "jorg@example.com", name: "Jörg Müller" });
    expect(m.to).toEqual([{ email: "ivan@example.test", name: "Привет" }]);
    expect(m.subject).toBe("😀 Hello Wörld");
    const h = Object.fromEntries(m.headers.map((x) => [x.name, x.value]));
    expect(h.Subject).toBe("😀 Hello Wörld");
    expect(h.From).toBe("Jörg Müller <jorg@example.com>");
    expect(h["X-Japanese"]).toBe("日本語");
    expect(h["X-Raw"]).toBe("Grüße direkt");
  });

  test("8-bit latin-1 header bytes that are not UTF-8 are still readable", async () => {
    const m = await parseMessage(bytes(Buffer.from("Subject: Gr\xfc\xdfe\nFrom: a@example.com\n\nx\n", "latin1")));
    expect(m.headers.find((x) => x.name === "Subject")?.value).toBe("Grüße");
  });
});

describe("huge lines", () => {
  test("a 4 MB single-line text body parses whole", async () => {
    const line = "x".repeat(4 * 1024 * 1024);
    const m = await parseMessage(utf8(`From: a@example.com\nSubject: big\nContent-Type: text/plain\n\n${line}\n`));
    expect(m.parseError).toBeNull();
    expect(m.subject).toBe("big");
    expect(m.text?.trim().length).toBe(line.length);
    expect(m.preview.length).toBe(200);
  });

  test("a 2 MB header line is cut to 16 KiB and the body is still parsed", async () => {
    const raw = utf8(
      `From: a@example.com\nSubject: big header\nX-Long: ${"y".repeat(2 * 1024 * 1024)}\nContent-Type: multipart/alternative; boundary=q\n\n--q\nContent-Type: text/plain\n\nhello\n--q\nContent-Type: text/html\n\n<p>hello</p>\n--q--\n`,
    );
    const m = await parseMessage(raw);
    expect(m.subject).toBe("big header");
    expect(m.headers.find((x) => x.name === "X-Long")!.value.length).toBe(MAX_HEADER_VALUE_CHARS);
    expect(m.headersTruncated).toBe(true);
    expect(m.text?.trim()).toBe("hello");
    expect(m.html).toContain("<p>hello</p>");
  });
});

describe("malformed MIME never throws and keeps what is readable", () => {
  const cases: Array<[string, Uint8Array]> = [
    [
      "multipart without boundary",
      utf8(
        "From: Ann <ann@example.com>\nSubject: no boundary\nContent-Type: multipart/mixed\n\n--x\nContent-Type: text/plain\n\nhi\n--x--\n",
      ),
    ],
    [
      "boundary never closed",
      utf8(
        "From: Ann <ann@example.com>\nSubject: unclosed\nContent-Type: multipart/mixed; boundary=zz\n\n--zz\nContent-Type: text/plain\n\nstill here\n--zz\nContent-Type: application/pdf\nContent-Transfer-Encoding: base64\n\nJVBERi0xLj",
      ),
    ],
    [
      "invalid base64 and quoted-printable",
      utf8(
        "From: Ann <ann@example.com>\nSubject: bad encodings\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n\n!!!not base64***\n=ZZ=\n",
      ),
    ],
    [
      "unknown charset",
      utf8("From: Ann <ann@example.com>\nSubject: odd charset\nContent-Type: text/plain; charset=x-no-such-charset\n\nplain words\n"),
    ],
    [
      "header without colon and cut-off header",
      utf8("From: Ann <ann@example.com>\nSubject: broken headers\nthis is not a header\nX-Cut: =?UTF-8?B?4pyT"),
    ],
    ["NUL bytes and binary garbage", bytes("From: Ann <ann@example.com>\nSubject: garbage\n\n", randomBytes(4096), "\0\0\0\n")],
    [
      "deeply nested multiparts",
      utf8(
        "From: Ann <ann@example.com>\nSubject: nested\n" +
          Array.from({ length: 300 }, (_, i) => `Content-Type: multipart/mixed; boundary=b${i}\n\n--b${i}\n`).join("") +
          "Content-Type: text/plain\n\ndeep\n",
      ),
    ],
    ["random bytes only", new Uint8Array(randomBytes(8192))],
    ["empty", new Uint8Array(0)],
  ];
  for (const [name, raw] of cases) {
    test(name, async () => {
      const m = await parseMessage(raw);
      expect(typeof m.subject).toBe("string");
      expect(Array.isArray(m.headers)).toBe(true);
      // Code points, not UTF-16 units: random bytes decode to characters outside the BMP now and then.
      expect([...m.preview].length).toBeLessThanOrEqual(200);
      if (name !== "random bytes only" && name !== "empty") {
        expect(m.from.email).toBe("ann@example.com");
        expect(m.subject.length).toBeGreaterThan(0);
      }
    });
  }

  test("a message mailparser rejects (too many MIME parts) reports parseError and keeps headers and body", async () => {
    const raw = utf8(
      "From: Ann <ann@example.com>\nSubject: too many parts\nContent-Type: multipart/mixed; boundary=b\n\n" +
        "--b\nContent-Type: text/plain\n\nx\n".repeat(1500) +
        "--b--\n",
    );
    const m = await parseMessage(raw);
    expect(m.parseError).toMatch(/child nodes/);
    expect(m.subject).toBe("too many parts");
    expect(m.from).toEqual({ email: "ann@example.com", name: "Ann" });
    expect(m.text).toStartWith("--b\r\nContent-Type: text/plain");
    expect(m.headers.map((h) => h.name)).toEqual(["From", "Subject", "Content-Type"]);
  });

  test("header truncation: more than 500 headers", async () => {
    const lines = Array.from({ length: 700 }, (_, i) => `X-H${i}: v${i}\n`).join("");
    const m = await parseMessage(utf8(`From: a@example.com\nSubject: many\n${lines}\nbody\n`));
    expect(m.headers.length).toBe(MAX_HEADERS);
    expect(m.headersTruncated).toBe(true);
    expect(m.headers[0]).toEqual({ name: "From", value: "a@example.com" });
    expect(m.headers[2]).toEqual({ name: "X-H0", value: "v0" });
    expect(m.subject).toBe("many");
  });

  test("header truncation: total byte budget (default 256 KiB, and maxHeaderBytes)", async () => {
    const lines = Array.from({ length: 100 }, (_, i) => `X-Big${i}: ${"z".repeat(8000)}\n`).join("");
    const raw = utf8(`From: a@example.com\nSubject: big headers\n${lines}\nbody\n`);
    const m = await parseMessage(raw);
    const total = m.headers.reduce((n, h) => n + Buffer.byteLength(h.name) + Buffer.byteLength(h.value), 0);
    expect(m.headersTruncated).toBe(true);
    expect(total).toBeLessThanOrEqual(256 * 1024);
    expect(m.headers.length).toBeGreaterThan(20);
    const small = await parseMessage(raw, { maxHeaderBytes: 20_000 });
    expect(small.headers.length).toBe(4);
    expect(small.headersTruncated).toBe(true);
    const untouched = await parseMessage(utf8("From: a@example.com\nSubject: fine\n\nx\n"));
    expect(untouched.headersTruncated).toBe(false);
  });

  test("folded headers are unfolded, order and names kept as received", async () => {
    const m = await parseMessage(
      utf8("Received: from a\n\tby b; Tue, 1 Jul 2025\nreceived: from c\nSubject: folded\n  subject line\nFROM: x@example.com\n\nb\n"),
    );
    expect(m.headers).toEqual([
      { name: "Received", value: "from a\tby b; Tue, 1 Jul 2025" },
      { name: "received", value: "from c" },
      { name: "Subject", value: "folded  subject line" },
      { name: "FROM", value: "x@example.com" },
    ]);
  });
});

describe("projectHeaders", () => {
  test("keeps the listed headers in order and drops the rest", async () => {
    const m = await parseMessage(
      utf8(
        "Received: from a\nFrom: a@example.com\nX-Spam: 1\nTo: b@example.test\nSubject: s\nList-Unsubscribe: <https://u>\nDKIM-Signature: v=1\n\nb\n",
      ),
    );
    expect(projectHeaders(m.headers)).toEqual([
      { name: "From", value: "a@example.com" },
      { name: "To", value: "b@example.test" },
      { name: "Subject", value: "s" },
      { name: "List-Unsubscribe", value: "<https://u>" },
      { name: "DKIM-Signature", value: "v=1" },
    ]);
  });

  test("bounds each projected value", () => {
    const out = projectHeaders([{ name: "Subject", value: "s".repeat(10_000) }]);
    expect(out[0]!.value.length).toBe(4096);
  });
});

describe("OTP-Token header", () => {
  test("a passcode from the OTP-Token header comes first", async () => {
    const m = await parseMessage(
      utf8('From: a@example.com\nSubject: Sign in\nOTP-Token: "913425"; origin="https://example.com"\n\nYour code is 913425.\n'),
    );
    expect(m.codes[0]).toBe("913425");
  });
});

describe("mailparserMayStall", () => {
  test("a run of 2,048 blanks or CRs (mixed) says yes; shorter runs, however many, say no", () => {
    const run = (n: number) => Array.from({ length: n }, (_, i) => " \t\r"[i % 3]).join("");
    expect(mailparserMayStall(utf8(`Subject: s\n\nline${run(2048)}x\n`))).toBe(true);
    expect(mailparserMayStall(utf8(`Subject: s\n\n${`line${run(2047)}x\n`.repeat(20)}`))).toBe(false);
    expect(mailparserMayStall(utf8("Subject: s\n\nbody\n"))).toBe(false);
  });
});
