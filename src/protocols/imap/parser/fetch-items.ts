// FETCH data items (RFC 3501 §6.4.5): macros, simple items and BODY[section]<partial>.
import { ParseError, tokenize, type Token } from "./tokens";

export interface Section {
  /** Part path, e.g. [1, 2] for "1.2"; [] for the whole message. */
  part: number[];
  /** What of the part: "" (all), HEADER, HEADER.FIELDS, HEADER.FIELDS.NOT, TEXT, MIME. */
  spec: "" | "HEADER" | "HEADER.FIELDS" | "HEADER.FIELDS.NOT" | "TEXT" | "MIME";
  /** Upper-cased field names for HEADER.FIELDS (NOT). */
  fields: string[];
}

export type FetchItem =
  | { kind: "FLAGS" | "INTERNALDATE" | "RFC822.SIZE" | "ENVELOPE" | "BODYSTRUCTURE" | "BODY" | "UID" | "MODSEQ" }
  | { kind: "RFC822" | "RFC822.HEADER" | "RFC822.TEXT" }
  | { kind: "SECTION"; section: Section; peek: boolean; partial: { start: number; length: number } | null };

const MACROS: Record<string, string[]> = {
  ALL: ["FLAGS", "INTERNALDATE", "RFC822.SIZE", "ENVELOPE"],
  FAST: ["FLAGS", "INTERNALDATE", "RFC822.SIZE"],
  FULL: ["FLAGS", "INTERNALDATE", "RFC822.SIZE", "ENVELOPE", "BODY"],
};

const SIMPLE = new Set([
  "FLAGS",
  "INTERNALDATE",
  "RFC822.SIZE",
  "ENVELOPE",
  "BODYSTRUCTURE",
  "BODY",
  "UID",
  "RFC822",
  "RFC822.HEADER",
  "RFC822.TEXT",
  "MODSEQ",
]);

/** The argument after the sequence set: one atom/macro or a parenthesised list of items. */
export function parseFetchItems(t: Token | undefined): FetchItem[] {
  if (!t) throw new ParseError("Missing FETCH data items");
  if (t.t === "atom" && MACROS[t.v.toUpperCase()]) {
    return MACROS[t.v.toUpperCase()]!.map((k) => ({ kind: k }) as FetchItem);
  }
  const atoms = t.t === "list" ? t.v : [t];
  if (atoms.length === 0) throw new ParseError("Empty FETCH data item list");
  return atoms.map((a) => {
    if (a.t !== "atom") throw new ParseError("Invalid FETCH data item");
    return parseFetchItem(a.v);
  });
}

const ITEM = /^(BODY(?:\.PEEK)?|BINARY(?:\.PEEK)?)\[([^\]]*)\](?:<(\d{1,10})(?:\.(\d{1,10}))?>)?$/i;

export function parseFetchItem(text: string): FetchItem {
  const upper = text.toUpperCase();
  if (SIMPLE.has(upper)) return { kind: upper } as FetchItem;
  const m = ITEM.exec(text);
  if (!m || m[1]!.toUpperCase().startsWith("BINARY")) throw new ParseError(`Unknown FETCH data item ${text.slice(0, 40)}`);
  const peek = m[1]!.toUpperCase() === "BODY.PEEK";
  const section = parseSection(m[2]!);
  let partial: { start: number; length: number } | null = null;
  if (m[3] !== undefined) {
    // RFC 3501 requires <start.length>; the bare <start> form is accepted as "to the end".
    const length = m[4] === undefined ? Number.MAX_SAFE_INTEGER : Number(m[4]);
    if (m[4] !== undefined && length === 0) throw new ParseError("Partial length must be positive");
    partial = { start: Number(m[3]), length };
  }
  return { kind: "SECTION", section, peek, partial };
}

export function parseSection(text: string): Section {
  const m = /^((?:[1-9]\d{0,4}\.)*[1-9]\d{0,4})?(?:\.?)(.*)$/s.exec(text)!;
  const part = m[1] ? m[1].split(".").map(Number) : [];
  const rest = m[2]!;
  if (m[1] && rest && !text.slice(m[1].length).startsWith(".")) throw new ParseError("Invalid section");
  const upper = rest.toUpperCase();
  if (upper === "") return { part, spec: "", fields: [] };
  if (upper === "HEADER" || upper === "TEXT") return { part, spec: upper, fields: [] };
  if (upper === "MIME") {
    if (part.length === 0) throw new ParseError("MIME needs a part number");
    return { part, spec: "MIME", fields: [] };
  }
  const f = /^(HEADER\.FIELDS(?:\.NOT)?) (.*)$/is.exec(rest);
  if (f) {
    const toks = tokenize(f[2]!);
    if (toks.length !== 1 || toks[0]!.t !== "list" || toks[0]!.v.length === 0) throw new ParseError("Invalid header field list");
    const fields = toks[0]!.v.map((x) => {
      if (x.t === "list") throw new ParseError("Invalid header field name");
      const name = x.t === "atom" ? x.v : x.v.toString("utf8");
      if (!/^[\x21-\x39\x3b-\x7e]+$/.test(name)) throw new ParseError("Invalid header field name");
      return name.toUpperCase();
    });
    return { part, spec: f[1]!.toUpperCase() as Section["spec"], fields };
  }
  throw new ParseError(`Invalid section ${text.slice(0, 40)}`);
}

/** How a section is named in the response: BODY[<this>]. */
export function sectionName(s: Section): string {
  const part = s.part.join(".");
  const spec = s.spec === "HEADER.FIELDS" || s.spec === "HEADER.FIELDS.NOT" ? `${s.spec} (${s.fields.join(" ")})` : s.spec;
  return part && spec ? `${part}.${spec}` : part || spec;
}
