// The search language of `q` (docs/search.md): a pure parser, string in, AST out. The AST types are
// declared at the storage boundary (src/storage/mail.ts) because the repository evaluates them.
//
//   query  := term (whitespace term)*          terms combine with AND
//   term   := ["-"] (key ":" value | value)     a leading "-" negates
//   value  := bare | "quoted"                   a bare value runs to whitespace; quotes inside it
//                                               (header:X-Tag="a b") group spaces; \" and \\ escape
//
// Errors carry the 0-based position (in UTF-16 code units of q) and a reason.
import type { SearchQuery, SearchTerm } from "../storage/mail";
import { validation } from "../lib/errors";

export type { SearchQuery, SearchTerm };

/** Most terms one query may hold. */
export const MAX_TERMS = 20;
/** Longest accepted q (characters). */
export const MAX_QUERY_LENGTH = 1000;

export class SearchSyntaxError extends Error {
  constructor(
    readonly position: number,
    readonly reason: string,
  ) {
    super(`${reason} (at position ${position})`);
  }
}

const KEYS = new Set(["from", "to", "subject", "code", "header", "has", "is", "after", "before", "larger", "smaller", "auth", "folder"]);
const HAS = new Set(["attachment", "code", "link"]);
const IS = new Set(["read", "unread"]);
const AUTH = new Set(["pass", "fail", "none", "pending"]);

interface Raw {
  text: string;
  quoted: boolean;
  /** Position of the value's first character (its opening quote when quoted). */
  at: number;
}

/** Parses q; throws SearchSyntaxError. An empty or blank q is the empty query (matches every message). */
export function parseSearchQuery(q: string): SearchQuery {
  if (q.length > MAX_QUERY_LENGTH) throw new SearchSyntaxError(MAX_QUERY_LENGTH, `q is longer than ${MAX_QUERY_LENGTH} characters`);
  // No message text holds them, and a NUL would end the full-text engine's string early.
  const control = /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.exec(q);
  if (control) {
    const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
    throw new SearchSyntaxError(control.index, `q holds a control character (U+${code})`);
  }
  const terms: SearchTerm[] = [];
  let i = 0;
  const n = q.length;
  const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);
  while (i < n) {
    while (i < n && isSpace(q[i])) i++;
    if (i >= n) break;
    const start = i;
    let negated = false;
    if (q[i] === "-") {
      negated = true;
      i++;
      if (i >= n || isSpace(q[i])) throw new SearchSyntaxError(start, "a '-' must be followed by a term");
    }
    // key:value? A key is letters followed by ':' (only the known keys are accepted).
    let key: string | null = null;
    const m = /^([A-Za-z]+):/.exec(q.slice(i, i + 16));
    if (m && q[i] !== '"') {
      key = m[1]!.toLowerCase();
      if (!KEYS.has(key)) {
        throw new SearchSyntaxError(i, `unknown key "${m[1]}:" (quote the text to search for it literally)`);
      }
      i += m[0].length;
      if (i >= n || isSpace(q[i])) throw new SearchSyntaxError(i, `${key}: needs a value`);
    }
    const raw = readValue(q, i);
    i = raw.end;
    if (terms.length >= MAX_TERMS) throw new SearchSyntaxError(start, `at most ${MAX_TERMS} terms`);
    terms.push(toTerm(key, { text: raw.text, quoted: raw.quoted, at: raw.at }, negated, start));
  }
  return { terms };
}

/** Reads one value from position i: bare text to the next whitespace, with quoted sections. */
function readValue(q: string, i: number): { text: string; quoted: boolean; at: number; end: number } {
  const at = i;
  let out = "";
  let quoted = false;
  while (i < q.length && !/\s/.test(q[i]!)) {
    if (q[i] === '"') {
      quoted = true;
      const open = i;
      i++;
      let closed = false;
      while (i < q.length) {
        const c = q[i]!;
        if (c === "\\" && (q[i + 1] === '"' || q[i + 1] === "\\")) {
          out += q[i + 1];
          i += 2;
          continue;
        }
        if (c === '"') {
          closed = true;
          i++;
          break;
        }
        out += c;
        i++;
      }
      if (!closed) throw new SearchSyntaxError(open, "unterminated quote");
    } else {
      out += q[i];
      i++;
    }
  }
  return { text: out, quoted, at, end: i };
}

const hasWordChar = (s: string) => /[\p{L}\p{N}]/u.test(s);

function toTerm(key: string | null, v: Raw, negated: boolean, position: number): SearchTerm {
  const value = v.text;
  const need = (what: string) => {
    if (value.trim() === "") throw new SearchSyntaxError(v.at, `${what} needs a value`);
  };
  switch (key) {
    case null:
    case "subject": {
      // A trailing * on a bare word asks for a prefix match ("pass*" finds "password").
      let text = value;
      let prefix = false;
      if (!v.quoted && text.length > 1 && text.endsWith("*")) {
        prefix = true;
        text = text.slice(0, -1);
      }
      if (!hasWordChar(text)) throw new SearchSyntaxError(v.at, "nothing to search for: a word needs a letter or a digit");
      return { kind: key === "subject" ? "subject" : "text", value: text, prefix, negated, position };
    }
    case "from":
    case "to":
      need(`${key}:`);
      if (!hasWordChar(value)) throw new SearchSyntaxError(v.at, `${key}: needs a letter or a digit`);
      return { kind: key, value, negated, position };
    case "code":
      need("code:");
      return { kind: "code", value, negated, position };
    case "header": {
      need("header:");
      const eq = value.indexOf("=");
      const name = (eq < 0 ? value : value.slice(0, eq)).trim();
      if (!/^[\x21-\x39\x3b-\x7e]+$/.test(name)) throw new SearchSyntaxError(v.at, "header: needs a header name (header:Name=value)");
      return { kind: "header", name, value: eq < 0 ? null : value.slice(eq + 1), negated, position };
    }
    case "has": {
      const what = value.toLowerCase();
      if (!HAS.has(what)) throw new SearchSyntaxError(v.at, "has: takes attachment, code or link");
      return { kind: "has", what: what as "attachment" | "code" | "link", negated, position };
    }
    case "is": {
      const what = value.toLowerCase();
      if (!IS.has(what)) throw new SearchSyntaxError(v.at, "is: takes read or unread");
      return { kind: "is", what: what as "read" | "unread", negated, position };
    }
    case "auth": {
      const verdict = value.toLowerCase();
      if (!AUTH.has(verdict)) throw new SearchSyntaxError(v.at, "auth: takes pass, fail, none or pending");
      return { kind: "auth", verdict: verdict as "pass" | "fail" | "none" | "pending", negated, position };
    }
    case "folder":
      // The IMAP mailbox (docs/imap.md, "Mailboxes"); INBOX in any case.
      need("folder:");
      return { kind: "folder", name: value.toUpperCase() === "INBOX" ? "INBOX" : value, negated, position };
    case "after":
    case "before": {
      const at = parseInstant(value);
      if (at === null) {
        throw new SearchSyntaxError(v.at, `${key}: takes an ISO date (2024-05-01) or date-time (2024-05-01T10:00:00Z)`);
      }
      return { kind: key, at, negated, position };
    }
    case "larger":
    case "smaller": {
      const bytes = parseSize(value);
      if (bytes === null) throw new SearchSyntaxError(v.at, `${key}: takes a size in bytes, or with k or m (e.g. 10k, 2m)`);
      return { kind: key, bytes, negated, position };
    }
    default:
      throw new SearchSyntaxError(position, `unknown key "${key}:"`);
  }
}

/** An ISO date (midnight UTC) or date-time (UTC when no offset is given) as an ISO instant; null if invalid. */
export function parseInstant(s: string): string | null {
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (date) {
    const d = new Date(`${s}T00:00:00.000Z`);
    return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== s ? null : d.toISOString();
  }
  const dt = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(:(\d{2})(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?$/.exec(s);
  if (!dt) return null;
  const d = new Date(dt[9] ? s : `${s}Z`);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** "1234", "10k" (×1024), "2m" (×1024²); case-insensitive; null if invalid. */
export function parseSize(s: string): number | null {
  const m = /^(\d{1,12})([kKmM])?$/.exec(s);
  if (!m) return null;
  const unit = m[2]?.toLowerCase();
  return Number(m[1]) * (unit === "k" ? 1024 : unit === "m" ? 1024 * 1024 : 1);
}

/** Parses q for a route: an unparsable q is 422 validation_error with {field: "q", position, reason}. */
export function searchQueryOf(q: string | undefined | null): SearchQuery | null {
  if (q === undefined || q === null) return null;
  try {
    const parsed = parseSearchQuery(q);
    return parsed.terms.length ? parsed : null;
  } catch (e) {
    if (e instanceof SearchSyntaxError) {
      throw validation(`q is not a valid search: ${e.reason} at position ${e.position}`, {
        field: "q",
        position: e.position,
        reason: e.reason,
      });
    }
    throw e;
  }
}

/** The query restricted to one IMAP mailbox (the list routes' `folder` parameter); null folder: as it is. */
export function withFolder(query: SearchQuery | null, folder: string | undefined): SearchQuery | null {
  if (folder === undefined) return query;
  const term: SearchTerm = { kind: "folder", name: folder.toUpperCase() === "INBOX" ? "INBOX" : folder, negated: false, position: 0 };
  return { terms: [...(query?.terms ?? []), term] };
}
