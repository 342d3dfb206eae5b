import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { extractCodes } from "../../src/mime/codes";

interface Case {
  name: string;
  subject: string;
  text: string | null;
  html: string | null;
  expected: string[];
}

const dir = join(import.meta.dir, "../fixtures/mail/codes");
const corpus: Array<Case & { file: string }> = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .flatMap((file) => (JSON.parse(readFileSync(join(dir, file), "utf8")) as Case[]).map((c) => ({ ...c, file })));

describe("verification-code corpus", () => {
  test("holds at least 40 messages, positive and negative", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40);
    expect(corpus.filter((c) => c.expected.length > 0).length).toBeGreaterThanOrEqual(20);
    expect(corpus.filter((c) => c.expected.length === 0).length).toBeGreaterThanOrEqual(20);
  });

  for (const c of corpus) {
    test(`${c.file}: ${c.name}`, () => {
      expect(extractCodes(c.subject, c.text, c.html)).toEqual(c.expected);
    });
  }
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
