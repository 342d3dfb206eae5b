// IMAP SEARCH's substring test (docs/imap.md "SEARCH") where SQL cannot make it exactly. SQLite's
// LIKE folds the case of ASCII letters only, and the PostgreSQL engine folds the same way for parity,
// so `SUBJECT KÖLN` missed "Köln". For a value with characters beyond ASCII, both engines give SQL
// `likePattern`'s superset (those characters as wildcards) and keep the rows `holdsText` accepts;
// an ASCII value stays one exact SQL test. Pure: rows in, a verdict out.
import type { ImapTextKey } from "./mail";

/** The value is ASCII only: SQL's ASCII-folding LIKE decides exactly. */
export const asciiOnly = (value: string) => /^[\x00-\x7f]*$/.test(value);

const escapeLike = (v: string) => v.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The LIKE pattern (ESCAPE '\') of "contains the value": exact for an ASCII value; otherwise each run
 * of other characters is a wildcard, so every row that holds the value in any case is among its matches.
 */
export function likePattern(value: string): string {
  // Composed first: the "o" of a decomposed "ö" must not be required as an ASCII letter.
  return `%${value
    .normalize("NFC")
    .split(/[^\x00-\x7f]+/)
    .map(escapeLike)
    .join("%")}%`;
}

/** Case-insensitive over all of Unicode, in one composition form (a decomposed "ö" is an "ö"). */
const fold = (s: string) => s.normalize("NFC").toLowerCase();

/** The columns a text key reads, bodies already decompressed. */
export interface TextRow {
  text_body: string | null;
  html_body: string | null;
  subject: string | null;
  from_name: string | null;
  from_email: string | null;
  to_json: string | null;
  cc_json: string | null;
  /** The stored headers: a JSON list of {name, value} (decoded, unfolded). */
  headers: string | null;
}

/** The row's field holds the key's value, case aside: the SQL test of message-search.ts, over all of Unicode. */
export function holdsText(key: ImapTextKey, row: TextRow): boolean {
  const needle = fold(key.value);
  const has = (s: string | null) => s !== null && fold(s).includes(needle);
  // Parsed once, on first need (TEXT reads the list for the body's misses only).
  let parsed: Array<{ name: string; value: string }> | null = null;
  const headers = (): Array<{ name: string; value: string }> => {
    if (parsed) return parsed;
    try {
      const list = JSON.parse(row.headers ?? "[]");
      parsed = Array.isArray(list) ? list : [];
    } catch {
      parsed = [];
    }
    return parsed;
  };
  const header = (name: string) => headers().some((h) => h.name.toLowerCase() === name.toLowerCase() && has(h.value));
  const body = () => has(`${row.text_body ?? ""}\n${row.html_body ?? ""}`);
  // As SQL's `from_name || ' <' || from_email || '>'`: nothing when either is missing.
  const from = () => row.from_name !== null && row.from_email !== null && has(`${row.from_name} <${row.from_email}>`);
  const anyHeader = () => headers().some((h) => has(`${h.name}: ${h.value}`));
  switch (key.field) {
    case "body":
      return body();
    case "subject":
      return has(row.subject);
    case "from":
      return from() || header("from");
    case "to":
      return has(row.to_json) || header("to");
    case "cc":
      return has(row.cc_json) || header("cc");
    case "bcc":
      return header("bcc");
    case "header":
      return header(key.name ?? "");
    case "headers":
      return anyHeader();
    case "text":
      return body() || anyHeader() || has(row.subject) || from() || has(row.to_json);
  }
}
