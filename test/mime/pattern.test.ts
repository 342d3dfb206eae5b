import { describe, expect, test } from "bun:test";
import { compilePattern, matchPattern, PATTERN_SCAN_CHARS, PatternError, patternText } from "../../src/mime/pattern";

describe("compilePattern", () => {
  test("JavaScript syntax in Unicode mode; a leading (?i)/(?m)/(?s) becomes flags", () => {
    expect(compilePattern("\\d{6}")).toEqual({ source: "\\d{6}", flags: "gu" });
    expect(compilePattern("(?i)code: (\\w+)")).toEqual({ source: "code: (\\w+)", flags: "gui" });
    expect(compilePattern("(?ims)^x")).toEqual({ source: "^x", flags: "guims" });
  });

  test("empty, too long or invalid patterns throw PatternError with the reason", () => {
    expect(() => compilePattern("")).toThrow(PatternError);
    expect(() => compilePattern("a".repeat(257))).toThrow("longer than 256");
    expect(() => compilePattern("(")).toThrow(PatternError);
    expect(() => compilePattern("\\-")).toThrow(PatternError); // not valid in Unicode mode
  });
});

describe("matchPattern and patternText", () => {
  test("first capture group, else the whole match; distinct, in order, at most 5; empty matches skipped", () => {
    const text = "A1 B2 A1 C3 D4 E5 F6 G7";
    expect(matchPattern(compilePattern("([A-Z])\\d"), text)).toEqual(["A", "B", "C", "D", "E"]);
    expect(matchPattern(compilePattern("[A-C]\\d"), text)).toEqual(["A1", "B2", "C3"]);
    expect(matchPattern(compilePattern("x*"), "abc")).toEqual([]);
    expect(matchPattern(compilePattern("(x)?y"), "y")).toEqual([]);
  });

  test("subject, text and HTML-derived text, one per line, cut to 64 KiB", () => {
    expect(patternText("Subj", "body", "<p>Hello <b>there</b></p>")).toContain("Subj\nbody\n");
    expect(patternText("Subj", "body", "<p>Hello <b>there</b></p>")).toContain("Hello there");
    expect(patternText("s", "x".repeat(100_000), null).length).toBe(PATTERN_SCAN_CHARS);
  });
});
