// Long base64 bodies decoded natively (src/mime/base64-bodies.ts) must give exactly the ParsedMessage
// mailparser gives when it decodes them itself. Every message here is parsed both ways and compared
// deeply, and each case states how many bodies the cut took, so a silent fall-back cannot pass as proof
// (and a cut where mailparser would read the bytes differently would fail the comparison).
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import nodemailer from "nodemailer";
import type Mail from "nodemailer/lib/mailer";
import { CUT_MESSAGES_FROM } from "../../src/mime/base64-bodies";
import { parseMessageWithMailparser, type MailparserRun } from "../../src/mime/parse";
import { largeMessage, wholeMessage } from "../support/large-mail";
import { rng } from "../support/seeded";

const KB = 1024;
const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "\r\n" });
async function compose(mail: Mail.Options): Promise<Uint8Array> {
  const info = await transport.sendMail({ from: "Sender <sender@example.com>", to: "inbox@example.test", subject: "s", ...mail });
  return new Uint8Array(info.message as Buffer);
}
const bytes = (s: string, eol = "\r\n") => new Uint8Array(Buffer.from(s.replace(/\r?\n/g, eol), "latin1"));

/** `n` bytes of base64 in lines of `width` characters (the last line may be shorter and padded). */
function base64Lines(data: Buffer, width = 76, eol = "\r\n"): string {
  const b64 = data.toString("base64");
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += width) lines.push(b64.slice(i, i + width));
  return lines.join(eol);
}

const HEAD = "From: Sender <sender@example.com>\nTo: inbox@example.test\nSubject: big\nMessage-ID: <big@example.com>\nMIME-Version: 1.0\n";
const mixed = (parts: string, boundary = "b1") =>
  `${HEAD}Content-Type: multipart/mixed; boundary="${boundary}"\n\n${parts}--${boundary}--\n`;
const part = (headers: string, body: string, boundary = "b1") => `--${boundary}\n${headers}\n\n${body}\n`;
const octets = (kb: number) => randomBytes(kb * KB);

/** Parses with and without the cut: both results and how many bodies the cut took. */
async function bothWays(raw: Uint8Array) {
  const how: MailparserRun = {};
  const [withCut, whole] = await Promise.all([
    parseMessageWithMailparser(raw, undefined, how),
    parseMessageWithMailparser(raw, undefined, { cutBase64: false }),
  ]);
  return { withCut, whole, cut: how.cut! };
}

/** Asserts the same result both ways and the number of bodies cut. */
async function agree(raw: Uint8Array, cut: number, label = "") {
  expect(raw.length).toBeGreaterThanOrEqual(CUT_MESSAGES_FROM);
  const both = await bothWays(raw);
  expect({ label, cut: both.cut }).toEqual({ label, cut });
  expect(both.withCut).toStrictEqual(both.whole);
  return both.withCut;
}

describe("long base64 bodies are decoded natively and agree with mailparser", () => {
  test("nodemailer: a text part and a binary attachment", async () => {
    const data = octets(400);
    const m = await agree(await compose({ text: "see attached", attachments: [{ filename: "a.bin", content: data }] }), 1);
    expect(m.attachments).toHaveLength(1);
    expect(Buffer.from(m.attachments[0]!.content).equals(data)).toBe(true);
    expect(m.text).toBe("see attached");
  });

  test("nodemailer: two attachments, one small (left in place), an inline image by cid in multipart/related", async () => {
    const raw = await compose({
      html: '<p>hi <img src="cid:logo@x"></p>',
      attachments: [
        { filename: "logo.png", content: octets(300), cid: "logo@x" },
        { filename: "small.pdf", content: octets(10) },
        { filename: "big.pdf", content: octets(500) },
      ],
    });
    const m = await agree(raw, 2);
    expect(m.attachments.map((a) => [a.filename, a.contentId])).toEqual([
      ["logo.png", "logo@x"],
      ["small.pdf", null],
      ["big.pdf", null],
    ]);
  });

  test("the large-mail fixture (a text part, one attachment whose first line is its own)", async () => {
    await agree(new Uint8Array(wholeMessage(largeMessage(2 * KB * KB), "to@example.test", 3)), 1);
  });

  const cases: Array<[string, Uint8Array, number]> = [
    [
      "a single-part message whose body is base64",
      bytes(`${HEAD}Content-Type: application/pdf\nContent-Transfer-Encoding: base64\n\n${base64Lines(octets(300), 76, "\n")}\n`),
      1,
    ],
    [
      "bare LF line endings",
      bytes(mixed(part("Content-Type: image/png\nContent-Transfer-Encoding: base64", base64Lines(octets(300), 76, "\n"))), "\n"),
      1,
    ],
    [
      "a padded last line (size not a multiple of 3)",
      bytes(mixed(part("Content-Type: application/zip\nContent-Transfer-Encoding: base64", base64Lines(octets(300).subarray(1))))),
      1,
    ],
    [
      "lines of 75 characters (a quartet split across lines)",
      bytes(mixed(part("Content-Type: application/zip\nContent-Transfer-Encoding: base64", base64Lines(octets(300), 75)))),
      1,
    ],
    [
      "lines of 998 characters",
      bytes(mixed(part("Content-Type: application/zip\nContent-Transfer-Encoding: base64", base64Lines(octets(300), 998)))),
      1,
    ],
    [
      "no line breaks at all in the body",
      bytes(mixed(part("Content-Type: application/zip\nContent-Transfer-Encoding: base64", base64Lines(octets(300), 1_000_000)))),
      1,
    ],
    [
      "octet-stream typed from its filename, disposition inline",
      bytes(
        mixed(
          part(
            'Content-Type: application/octet-stream; name="r.pdf"\nContent-Disposition: inline; filename="r.pdf"\nContent-Transfer-Encoding: base64',
            base64Lines(octets(300)),
          ),
        ),
      ),
      1,
    ],
    [
      "a text/plain attachment (bytes kept, no charset decoding)",
      bytes(
        mixed(
          part(
            'Content-Type: text/plain; charset=iso-8859-1\nContent-Disposition: attachment; filename="t.txt"\nContent-Transfer-Encoding: base64',
            base64Lines(octets(300)),
          ),
        ),
      ),
      1,
    ],
    [
      "nested: mixed > alternative (text, html) + attachment",
      bytes(
        mixed(
          part(
            'Content-Type: multipart/alternative; boundary="b2"',
            `${part("Content-Type: text/plain", "plain 123456", "b2")}${part("Content-Type: text/html", "<b>html</b>", "b2")}--b2--`,
          ) + part("Content-Type: application/zip\nContent-Transfer-Encoding: base64", base64Lines(octets(300))),
        ),
      ),
      1,
    ],
    [
      "a forwarded message as a base64 message/rfc822 attachment",
      bytes(
        mixed(
          part(
            "Content-Type: message/rfc822\nContent-Transfer-Encoding: base64",
            base64Lines(Buffer.from(`Subject: inner\r\n\r\n${"x".repeat(300 * KB)}\r\n`)),
          ),
        ),
      ),
      1,
    ],
    [
      "an embedded message shown inline, its own attachment base64",
      bytes(
        mixed(
          part(
            "Content-Type: message/rfc822\nContent-Disposition: inline",
            `Subject: inner\nContent-Type: multipart/mixed; boundary="in"\n\n${part("Content-Type: application/zip\nContent-Transfer-Encoding: base64", base64Lines(octets(300)), "in")}--in--`,
          ),
        ),
      ),
      1,
    ],
    [
      "only padding before the run, after an empty line inside the body",
      bytes(mixed(part("Content-Type: application/zip\nContent-Transfer-Encoding: base64", `====\n\n${base64Lines(octets(300))}`))),
      1,
    ],
    // Shapes where the guess about the structure is wrong: the marker is not found at the start of an
    // attachment, and mailparser reads the whole message.
    [
      "a base64 text body (the marker lands in the text)",
      bytes(
        `${HEAD}Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n${base64Lines(Buffer.from("word ".repeat(60 * KB)))}\n`,
      ),
      0,
    ],
    [
      "base64-looking lines in a 7bit text part",
      bytes(mixed(part("Content-Type: text/plain", `-----BEGIN BLOCK-----\n\n${base64Lines(octets(300))}\n-----END BLOCK-----`))),
      0,
    ],
    [
      "base64-looking lines in a 7bit attachment (its bytes are the characters)",
      bytes(mixed(part('Content-Type: application/zip\nContent-Disposition: attachment; filename="z"', base64Lines(octets(300))))),
      0,
    ],
    [
      "base64-looking lines in a quoted-printable attachment",
      bytes(
        mixed(
          part(
            'Content-Type: application/zip\nContent-Transfer-Encoding: quoted-printable\nContent-Disposition: attachment; filename="z"',
            base64Lines(octets(300)),
          ),
        ),
      ),
      0,
    ],
    [
      "data before an empty line inside the body (the run does not start the body)",
      bytes(mixed(part("Content-Type: application/zip\nContent-Transfer-Encoding: base64", `QUJD\n\n${base64Lines(octets(300))}`))),
      0,
    ],
    [
      "a partial quartet before an empty line inside the body",
      bytes(mixed(part("Content-Type: application/zip\nContent-Transfer-Encoding: base64", `QUI\n\n${base64Lines(octets(300))}`))),
      0,
    ],
    [
      "the run in the preamble of a multipart message",
      bytes(
        `${HEAD}Content-Type: multipart/mixed; boundary="b1"\n\n${base64Lines(octets(300))}\n${part("Content-Type: text/plain", "hello")}--b1--\n`,
      ),
      0,
    ],
  ];
  for (const [label, raw, cut] of cases) test(label, () => agree(raw, cut, label).then(() => undefined));

  test("randomised bodies: line widths, padding and empty lines inside, encodings, types, line endings", async () => {
    const random = rng(1414);
    const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!;
    let cutSome = 0;
    let cutNone = 0;
    for (let n = 0; n < 60; n++) {
      const eol = pick(["\r\n", "\n"]);
      const parts: string[] = [];
      for (let p = 2 + Math.floor(random() * 2); p > 0; p--) {
        const data = randomBytes((66 + Math.floor(random() * 60)) * KB);
        let body = base64Lines(data, pick([4, 60, 75, 76, 77, 998]), "\n");
        // Now and then something a decoder may treat differently: a padding run or an empty line inside.
        if (random() < 0.3) {
          const at = body.indexOf("\n", Math.floor(random() * body.length));
          if (at > 0) body = `${body.slice(0, at)}\n${pick(["", "QQ==", "====", "QUI", "!!"])}\n${body.slice(at + 1)}`;
        }
        const type = pick(["application/octet-stream", "image/jpeg", "application/pdf", "text/plain", "message/rfc822"]);
        const cte = pick(["base64", "base64", "base64", "base64", "base64", "7bit", "quoted-printable"]);
        const disposition = pick(["", "attachment", "inline"]);
        parts.push(
          part(
            `Content-Type: ${type}\nContent-Transfer-Encoding: ${cte}${disposition ? `\nContent-Disposition: ${disposition}; filename="f${p}"` : ""}`,
            body,
          ),
        );
      }
      const raw = bytes(mixed(parts.join("")), eol);
      if (raw.length < CUT_MESSAGES_FROM) continue;
      const { withCut, whole, cut } = await bothWays(raw);
      expect({ n, parsed: withCut }).toStrictEqual({ n, parsed: whole });
      if (cut > 0) cutSome++;
      else cutNone++;
    }
    // The seed must exercise both the cut and the fall-back.
    expect({ cutSome: cutSome >= 8, cutNone: cutNone >= 8 }).toEqual({ cutSome: true, cutNone: true });
  }, 120_000);

  test("a message below the size where cutting pays is parsed as it is", async () => {
    const raw = await compose({ text: "t", attachments: [{ filename: "a.bin", content: octets(100) }] });
    expect(raw.length).toBeLessThan(CUT_MESSAGES_FROM);
    const how: MailparserRun = {};
    await parseMessageWithMailparser(raw, undefined, how);
    expect(how.cut).toBe(0);
  });
});
