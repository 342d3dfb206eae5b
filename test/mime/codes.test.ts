import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { extractCodes } from "../../src/mime/codes";

interface Case {
  name: string;
  lang: string;
  subject: string;
  text: string | null;
  html: string | null;
  expected: string[];
}

const load = (dir: string): Array<Case & { file: string }> =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .flatMap((file) => (JSON.parse(readFileSync(join(dir, file), "utf8")) as Case[]).map((c) => ({ ...c, file })));
/** The tuning corpus: the rules were written against it, and every message must come out exactly. */
const corpus = load(join(import.meta.dir, "../fixtures/mail/codes"));
/** The held-out corpus: written before the tuning and never tuned on, so it is judged as a whole. */
const holdout = load(join(import.meta.dir, "../fixtures/mail/codes-holdout"));

describe("verification-code corpus", () => {
  test("holds at least 200 messages, positive and negative, in at least 12 languages", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(200);
    expect(new Set(corpus.map((c) => c.lang)).size).toBeGreaterThanOrEqual(12);
    expect(corpus.filter((c) => c.expected.length > 0).length).toBeGreaterThanOrEqual(20);
    expect(corpus.filter((c) => c.expected.length === 0).length).toBeGreaterThanOrEqual(20);
  });

  for (const c of corpus) {
    test(`${c.file}: ${c.name}`, () => {
      expect(extractCodes(c.subject, c.text, c.html)).toEqual(c.expected);
    });
  }
});

describe("held-out verification-code corpus (never tuned on; bun bench/codes.ts prints the figures)", () => {
  test("holds at least 80 real-world-shaped messages in at least 6 languages", () => {
    expect(holdout.length).toBeGreaterThanOrEqual(80);
    expect(new Set(holdout.map((c) => c.lang)).size).toBeGreaterThanOrEqual(6);
    expect(holdout.filter((c) => c.expected.length === 0).length).toBeGreaterThanOrEqual(20);
  });

  test("precision and recall are at least 0.95", () => {
    let returned = 0;
    let correct = 0;
    let expected = 0;
    let found = 0;
    for (const c of holdout) {
      const got = extractCodes(c.subject, c.text, c.html);
      returned += got.length;
      correct += got.filter((g) => c.expected.includes(g)).length;
      expected += c.expected.length;
      found += c.expected.filter((e) => got.includes(e)).length;
    }
    expect(correct / returned).toBeGreaterThanOrEqual(0.95);
    expect(found / expected).toBeGreaterThanOrEqual(0.95);
  });
});

describe("extractCodes edge cases", () => {
  test("empty and null inputs give no codes", () => {
    expect(extractCodes("", null, null)).toEqual([]);
    expect(extractCodes("code", "", "")).toEqual([]);
  });

  test("the same code in subject, text and HTML is returned once", () => {
    expect(extractCodes("Your code: 246810", "Your code: 246810", "<b>Your code: 246810</b>")).toEqual(["246810"]);
  });

  test("the code right after the keyword ranks above a farther one", () => {
    const codes = extractCodes(
      "",
      "Your verification code is 111222.\nBackup codes were last generated on the device named 333444 yesterday.",
      null,
    );
    expect(codes[0]).toBe("111222");
  });

  test("a huge body without codes is scanned and finds nothing", () => {
    const text = "lorem ipsum code 12 34 ".repeat(50_000);
    expect(extractCodes("", text, null)).toEqual([]);
  });

  test("a 300 KB body on a single line (long words, addresses, URLs) still yields the code at its start", () => {
    const text =
      "Your verification code is 482913. " +
      ("a".repeat(5_000) + "@" + "b".repeat(5_000) + " https://example.com/" + "c".repeat(2_000) + " ").repeat(25);
    expect(text.length).toBeGreaterThan(300_000);
    expect(text.includes("\n")).toBe(false);
    expect(extractCodes("", text, null)).toEqual(["482913"]);
  });

  test("HTML with thousands of unclosed tags and comments converts, and its code is found", () => {
    const html =
      "<title>t</title><p>Your code: <b>615204</b></p>" + "<title x".repeat(20_000) + "<!-- open".repeat(10_000) + "<".repeat(50_000);
    expect(extractCodes("", null, html)).toEqual(["615204"]);
  });

  test("only the first 64,000 characters of a body are scanned", () => {
    const far = "lorem ipsum ".repeat(6_000) + "Your code is 739201.";
    expect(far.indexOf("739201")).toBeGreaterThan(64_000);
    expect(extractCodes("", far, null)).toEqual([]);
    expect(extractCodes("", "Your code is 739201. " + far, null)).toEqual(["739201"]);
  });

  test("a huge body dense with keywords and numbers stays bounded to five codes", () => {
    const text = Array.from({ length: 20_000 }, (_, i) => `code ${100000 + i} `).join("");
    const codes = extractCodes("", text, null);
    expect(codes.length).toBe(5);
    expect(codes[0]).toBe("100000");
  });
});

describe("code shapes (docs/parsing.md)", () => {
  const one = (text: string, subject = "") => extractCodes(subject, text, null);

  test("grouped digits are returned joined, whatever the separator", () => {
    expect(one("Your code is 123 456.")).toEqual(["123456"]);
    expect(one("Your code is 123-456.")).toEqual(["123456"]);
    expect(one("Your code: 12 34 56")).toEqual(["123456"]);
    expect(one("Your code: 4813 5520")).toEqual(["48135520"]);
    expect(one("Your code:\n\n4 8 2 0 1 6")).toEqual(["482016"]);
  });

  test("digits one per table cell or span are one code", () => {
    const cells = `<p>Your verification code:</p><table><tr>${[..."604281"].map((d) => `<td>${d}</td>`).join("")}</tr></table>`;
    expect(extractCodes("", null, cells)).toEqual(["604281"]);
    const spans = `<p>Your verification code:</p><p>${[..."5093"].map((d) => `<span>${d}</span>`).join("")}</p>`;
    expect(extractCodes("", null, spans)).toEqual(["5093"]);
  });

  test("groups that are not codes: phone numbers, IBANs, dates, prices, long runs", () => {
    expect(one("Verification questions? Call 0800 123 4567.")).toEqual([]);
    expect(one("Code sent. IBAN DE89 3704 0044 0532 0130 00")).toEqual([]);
    expect(one("Your code was verified on 14-03-25.")).toEqual([]);
    expect(one("Confirmation: 120 000 zł")).toEqual([]);
    expect(one("code 1 2 3 4 5 6 7 8 9 0")).toEqual([]);
  });

  test("short alphanumeric and device-activation codes are returned as written", () => {
    expect(one("Your code: K7Q2")).toEqual(["K7Q2"]);
    expect(one("Your confirmation code: XJ4-9PL")).toEqual(["XJ4-9PL"]);
    expect(one("Open https://example.com/device and enter the code:\n\nWDJB-MJHT\n")).toEqual(["WDJB-MJHT"]);
    expect(one("Use HTTP-POST for the login; code: JSON-ONLY flag")).toEqual([]);
  });

  test("a number alone on its line counts when the subject names the code", () => {
    expect(extractCodes("Your login code", "Hi,\n\nhere it is:\n\n306218\n\nThanks", null)).toEqual(["306218"]);
    expect(extractCodes("Your login details", "Hi,\n\nhere it is:\n\n306218\n\nThanks", null)).toEqual([]);
  });
});
