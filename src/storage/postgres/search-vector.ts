// The full-text index of messages on PostgreSQL (docs/search.md, docs/scaling.md): a tsvector
// column (messages.search_vector, GIN) written in the ingest transaction, so there is no queue and
// a message is searchable the moment its commit is durable.
//
// Why the vector and the queries are built here rather than by to_tsvector/websearch_to_tsquery:
// the results must be SQLite's (FTS5, unicode61 remove_diacritics 2). PostgreSQL's parser keeps
// "alice@example.com" or "shop.example" whole as one email/host token and keeps accents, so
// `from:ali` or `cafe` would find nothing there that they find on SQLite. Tokenizing once, in this
// file, for both the vector and the query, gives the same tokens on both sides: Unicode letters
// and digits, case folded, diacritics removed. The vector and query texts are passed as
// ::tsvector / ::tsquery literals, which PostgreSQL takes as they are (no dictionary).
//
// The four FTS5 columns become the four tsvector weights: subject A, body B, sender C,
// recipients D. A phrase is `<->` of its tokens (positions run on through the columns with a gap
// between two, so a phrase never spans two columns); a prefix is `:*`.
import { searchBodyOfStored } from "../../mime/search-text";
import { spaceCjk } from "../cjk-words";

/** What the index holds of a message. */
export interface IndexedMessage {
  subject: string;
  text_body: string | null;
  html_body: string | null;
  from_name: string;
  from_email: string;
  envelope_to: string;
  to_json: string;
  cc_json: string;
}

/** tsvector limits: 16383 is the last position, 2047 bytes the longest lexeme, 1 MB the whole value. */
const MAX_POSITION = 16383;
const MAX_LEXEME_BYTES = 2047;
const MAX_VECTOR_BYTES = 900_000;

/**
 * unicode61 remove_diacritics 2: letters and digits, case folded, the accents of Latin letters
 * removed (FTS5 keeps Greek's, and other scripts' marks separate words); anything else separates.
 * test/storage/search-tokens-parity.test.ts holds it to FTS5's own vocabulary.
 */
export function tokens(text: string): string[] {
  // Each CJK character a word of its own, as SQLite's index is given it (../cjk-words.ts).
  const folded = spaceCjk(text)
    .normalize("NFD")
    .replace(/(\p{Script=Latin})[\u0300-\u036f]+/gu, "$1")
    .normalize("NFC")
    .toLowerCase();
  return folded.split(/[^\p{L}\p{N}\p{Co}]+/u).filter((t) => t.length > 0);
}

const quote = (lexeme: string) => `'${lexeme.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;

function people(json: string): string {
  try {
    return (JSON.parse(json) as Array<{ name?: string; email?: string }>).map((a) => `${a.name ?? ""} ${a.email ?? ""}`).join(" ");
  } catch {
    return "";
  }
}

/**
 * The message's tsvector as a literal. Past 16383 positions PostgreSQL clamps (words still match,
 * phrases that far into a long body may not); past ~1 MB of lexemes new words are left out.
 */
export function searchVectorOf(m: IndexedMessage): string {
  const columns: Array<[string, string]> = [
    ["A", m.subject],
    ["B", searchBodyOfStored(m.text_body, m.html_body)],
    ["C", `${m.from_name} ${m.from_email}`],
    ["D", `${m.envelope_to} ${people(m.to_json)} ${people(m.cc_json)}`],
  ];
  const positions = new Map<string, string[]>();
  let bytes = 0;
  let pos = 0;
  for (const [weight, text] of columns) {
    pos += 1; // the gap between two columns
    for (const t of tokens(text)) {
      pos = Math.min(pos + 1, MAX_POSITION);
      let list = positions.get(t);
      if (!list) {
        const size = Buffer.byteLength(t) + 8;
        if (size - 8 > MAX_LEXEME_BYTES || bytes + size > MAX_VECTOR_BYTES) continue;
        bytes += size;
        list = [];
        positions.set(t, list);
      }
      // PostgreSQL keeps 256 positions per lexeme; the first ones are the useful ones.
      if (list.length < 256) list.push(`${pos}${weight}`);
    }
  }
  const parts: string[] = [];
  for (const [t, list] of positions) parts.push(`${quote(t)}:${list.join(",")}`);
  return parts.join(" ");
}

/** The weights (FTS5 columns) a query term looks at. */
export type Weights = "AB" | "A" | "B" | "C" | "D" | "";

/**
 * A phrase as a tsquery literal: its tokens consecutively in those columns, the last one a prefix
 * when asked. null: the value has no token (FTS5 then matches nothing either).
 */
export function phraseQuery(value: string, weights: Weights, prefix: boolean): string | null {
  const ts = tokens(value).filter((t) => Buffer.byteLength(t) <= MAX_LEXEME_BYTES);
  if (ts.length === 0) return null;
  const last = ts.length - 1;
  return `(${ts.map((t, i) => lexeme(t, `${i === last && prefix ? "*" : ""}${weights}`)).join(" <-> ")})`;
}

/** A query lexeme with its prefix mark and weights ("'w':*AB"). */
const lexeme = (t: string, marks: string) => (marks ? `${quote(t)}:${marks}` : quote(t));

/** Any of these tokens (each taken as one token), in those columns. null: none given. */
export function anyTokenQuery(terms: string[], weights: Weights): string | null {
  const ts = terms.flatMap(tokens);
  return ts.length === 0 ? null : `(${ts.map((t) => lexeme(t, weights)).join(" | ")})`;
}
