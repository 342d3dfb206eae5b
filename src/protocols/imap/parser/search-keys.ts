// SEARCH criteria (RFC 3501 §6.4.4) → a key tree. Evaluation lives in ../search.ts.
import { ParseError, type Token } from "./tokens";
import { isSequenceSet, parseSequenceSet, type SeqRange } from "./sequence";
import { parseModseqKey } from "./search-modseq";

export type FlagName = "seen" | "flagged" | "deleted" | "answered" | "draft" | "recent" | "new";
export type TextField = "from" | "to" | "cc" | "bcc" | "subject" | "body" | "text";

export type SearchKey =
  | { k: "all" }
  | { k: "none" }
  | { k: "flag"; flag: FlagName; set: boolean }
  | { k: "keyword"; name: string; set: boolean }
  | { k: "text"; field: TextField; value: string }
  | { k: "header"; name: string; value: string }
  | { k: "date"; field: "internal" | "sent"; op: "before" | "on" | "since"; day: string }
  | { k: "size"; op: "larger" | "smaller"; n: number }
  | { k: "uid"; set: SeqRange[] }
  | { k: "seq"; set: SeqRange[] }
  | { k: "not"; key: SearchKey }
  | { k: "or"; a: SearchKey; b: SearchKey }
  | { k: "and"; keys: SearchKey[] }
  | { k: "modseq"; min: number };

export interface SearchQuery {
  charset: string | null;
  key: SearchKey;
}

const FLAG_KEYS: Record<string, [FlagName, boolean]> = {
  SEEN: ["seen", true],
  UNSEEN: ["seen", false],
  FLAGGED: ["flagged", true],
  UNFLAGGED: ["flagged", false],
  DELETED: ["deleted", true],
  UNDELETED: ["deleted", false],
  ANSWERED: ["answered", true],
  UNANSWERED: ["answered", false],
  DRAFT: ["draft", true],
  UNDRAFT: ["draft", false],
  RECENT: ["recent", true],
  OLD: ["recent", false],
  NEW: ["new", true],
};

const TEXT_KEYS = new Set(["FROM", "TO", "CC", "BCC", "SUBJECT", "BODY", "TEXT"]);
const DATE_KEYS: Record<string, ["internal" | "sent", "before" | "on" | "since"]> = {
  BEFORE: ["internal", "before"],
  ON: ["internal", "on"],
  SINCE: ["internal", "since"],
  SENTBEFORE: ["sent", "before"],
  SENTON: ["sent", "on"],
  SENTSINCE: ["sent", "since"],
};
const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];

export function parseSearch(args: Token[]): SearchQuery {
  let i = 0;
  let charset: string | null = null;
  if (args[0]?.t === "atom" && args[0].v.toUpperCase() === "CHARSET") {
    charset = str(args[1], "charset").toUpperCase();
    i = 2;
  }
  const keys: SearchKey[] = [];
  const state = { i };
  while (state.i < args.length) keys.push(parseKey(args, state, 0));
  if (keys.length === 0) throw new ParseError("Missing search criteria");
  return { charset, key: keys.length === 1 ? keys[0]! : { k: "and", keys } };
}

function str(t: Token | undefined, what: string): string {
  if (!t || t.t === "list") throw new ParseError(`Missing ${what}`);
  return t.t === "atom" ? t.v : t.v.toString("utf8");
}

function parseKey(args: Token[], s: { i: number }, depth: number): SearchKey {
  if (depth > 32) throw new ParseError("Search criteria nested too deeply");
  const t = args[s.i++];
  if (!t) throw new ParseError("Missing search key");
  if (t.t === "list") {
    const inner = { i: 0 };
    const keys: SearchKey[] = [];
    while (inner.i < t.v.length) keys.push(parseKey(t.v, inner, depth + 1));
    if (keys.length === 0) throw new ParseError("Empty search list");
    return keys.length === 1 ? keys[0]! : { k: "and", keys };
  }
  if (t.t !== "atom") throw new ParseError("Invalid search key");
  const name = t.v.toUpperCase();
  if (name === "ALL") return { k: "all" };
  const flag = FLAG_KEYS[name];
  if (flag) return { k: "flag", flag: flag[0], set: flag[1] };
  if (TEXT_KEYS.has(name)) return { k: "text", field: name.toLowerCase() as TextField, value: str(args[s.i++], `${name} value`) };
  if (name === "HEADER") {
    const h = str(args[s.i++], "header name");
    return { k: "header", name: h.toLowerCase(), value: str(args[s.i++], "header value") };
  }
  const dk = DATE_KEYS[name];
  if (dk) return { k: "date", field: dk[0], op: dk[1], day: parseDate(str(args[s.i++], "date")) };
  if (name === "LARGER" || name === "SMALLER") {
    const v = str(args[s.i++], "size");
    if (!/^\d{1,15}$/.test(v)) throw new ParseError("Invalid size");
    return { k: "size", op: name === "LARGER" ? "larger" : "smaller", n: Number(v) };
  }
  if (name === "UID") return { k: "uid", set: parseSequenceSet(str(args[s.i++], "UID set")) };
  if (name === "NOT") return { k: "not", key: parseKey(args, s, depth + 1) };
  if (name === "OR") {
    const a = parseKey(args, s, depth + 1);
    return { k: "or", a, b: parseKey(args, s, depth + 1) };
  }
  if (name === "KEYWORD" || name === "UNKEYWORD") return { k: "keyword", name: str(args[s.i++], "keyword"), set: name === "KEYWORD" };
  if (name === "MODSEQ") return parseModseqKey(args, s);
  if (isSequenceSet(t.v)) return { k: "seq", set: parseSequenceSet(t.v) };
  throw new ParseError(`Unknown search key ${t.v.slice(0, 30)}`);
}

/** "1-Feb-1994" → "1994-02-01". */
export function parseDate(text: string): string {
  const m = /^(\d{1,2})-([A-Za-z]{3})-(\d{4})$/.exec(text);
  const mon = m ? MONTHS.indexOf(m[2]!.toUpperCase()) : -1;
  if (!m || mon < 0 || Number(m[1]) < 1 || Number(m[1]) > 31) throw new ParseError(`Invalid date ${text.slice(0, 20)}`);
  return `${m[3]}-${String(mon + 1).padStart(2, "0")}-${m[1]!.padStart(2, "0")}`;
}
