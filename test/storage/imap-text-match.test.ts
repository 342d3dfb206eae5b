// IMAP SEARCH's substring test beyond ASCII (src/storage/imap-text-match.ts): the LIKE pattern SQL
// pre-selects with must keep every row the exact test accepts.
import { describe, expect, test } from "bun:test";
import { asciiOnly, holdsText, likePattern, type TextRow } from "../../src/storage/imap-text-match";

const row = (o: Partial<TextRow>): TextRow => ({
  text_body: null,
  html_body: null,
  subject: null,
  from_name: null,
  from_email: null,
  to_json: null,
  cc_json: null,
  headers: null,
  ...o,
});

/** SQLite's LIKE with ESCAPE '\': % any run, _ one character, ASCII letters folded. */
function like(text: string, pattern: string): boolean {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") re += pattern[++i]!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    else if (c === "%") re += "[\\s\\S]*";
    else if (c === "_") re += "[\\s\\S]";
    else re += /[A-Za-z]/.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`, "u").test(text);
}

describe("IMAP text match beyond ASCII", () => {
  test("an ASCII value is one exact LIKE; wildcards in it are escaped", () => {
    expect(asciiOnly("50%_off")).toBe(true);
    expect(likePattern("50%_off")).toBe("%50\\%\\_off%");
    expect(asciiOnly("Köln")).toBe(false);
  });

  test("the pattern keeps every text the exact test accepts, in any case and composition", () => {
    const cases: Array<[string, string]> = [
      ["KÖLN", "Grüße aus Köln"],
      ["gRÜße", "Grüße aus Köln"],
      ["Ko\u0308ln", "Köln"],
      ["Köln", "Ko\u0308ln"],
      ["テスト", "件名 テスト"],
      ["ÜBER 50%", "über 50% mehr"],
    ];
    for (const [value, text] of cases) {
      expect([value, holdsText({ field: "subject", value }, row({ subject: text }))]).toEqual([value, true]);
      expect([value, like(text.normalize("NFC"), likePattern(value))]).toEqual([value, true]);
    }
    expect(holdsText({ field: "subject", value: "KÖLN" }, row({ subject: "Koln" }))).toBe(false);
    expect(holdsText({ field: "subject", value: "STRASSE" }, row({ subject: "Straße" }))).toBe(false);
  });

  test("fields as SQL reads them: From needs name and address, TEXT sees header names, HEADER one name", () => {
    const headers = JSON.stringify([
      { name: "X-Käse", value: "Gouda" },
      { name: "Subject", value: "Grüße" },
    ]);
    expect(holdsText({ field: "from", value: "MÜLLER <" }, row({ from_name: "Jürgen Müller", from_email: "jm@x" }))).toBe(true);
    expect(holdsText({ field: "from", value: "MÜLLER" }, row({ from_name: null, from_email: "müller@x" }))).toBe(false);
    expect(holdsText({ field: "text", value: "X-KÄSE: gouda" }, row({ headers }))).toBe(true);
    expect(holdsText({ field: "header", name: "subject", value: "GRÜSSE" }, row({ headers }))).toBe(false);
    expect(holdsText({ field: "header", name: "SUBJECT", value: "GRÜßE" }, row({ headers }))).toBe(true);
    expect(holdsText({ field: "bcc", value: "ü" }, row({ headers: "not json" }))).toBe(false);
    expect(holdsText({ field: "body", value: "ÄPFEL" }, row({ text_body: null, html_body: "<p>äpfel</p>" }))).toBe(true);
  });
});
