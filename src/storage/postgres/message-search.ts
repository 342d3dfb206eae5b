// The search AST of src/storage/mail.ts as PostgreSQL conditions, term for term what
// ../sqlite/message-search.ts builds (docs/search.md), with the full-text terms on messages.search_vector
// (search-vector.ts). No "common word" probe as on SQLite: the planner chooses between the GIN
// index and a walk in id order from its statistics.
//
// SQLite's LIKE and lower() fold ASCII letters only; ASCII_LOWER does the same here, so a header
// or code search matches exactly what it matches on SQLite (ILIKE would fold all of Unicode).
import { ulidFloor } from "../../lib/ids";
import type { ImapTextKey, MessageSearch, SearchQuery, SearchTerm } from "../mail";
import { likePattern } from "../imap-text-match";
import type { PgParam } from "./connection";
import { anyTokenQuery, phraseQuery, type Weights } from "./search-vector";

/** Collects parameters; each call returns its `$n` placeholder. */
export class Params {
  readonly values: PgParam[] = [];
  add(v: PgParam): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const asciiLower = (sql: string) => `translate(${sql}, '${UPPER}', '${UPPER.toLowerCase()}')`;
const likeArg = (v: string) => `%${v.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
/** `sql` contains the value as an ASCII-case-insensitive substring (SQLite's LIKE '%v%'). */
const contains = (sql: string, p: Params, value: string) => like(sql, p, likeArg(value));
const like = (sql: string, p: Params, pattern: string) => `${asciiLower(sql)} LIKE ${asciiLower(`${p.add(pattern)}::text`)} ESCAPE '\\'`;
/** IMAP's test: exact for an ASCII value, else a superset that ../imap-text-match.ts decides (as on SQLite). */
const imapContains = (sql: string, p: Params, value: string) => like(sql, p, likePattern(value));
const headersOf = "jsonb_array_elements(m.headers::jsonb) h(v)";

/** The scope of a search: project, inbox and id cursor. */
export function scopeOf(s: MessageSearch, p: Params): string {
  const parts = [`m.project_id = ${p.add(s.projectId)}`];
  if (s.inboxId !== null) parts.unshift(`m.inbox_id = ${p.add(s.inboxId)}`);
  if (s.before) parts.push(`m.id < ${p.add(s.before)}`);
  if (s.after) parts.push(`m.id > ${p.add(s.after)}`);
  return parts.join(" AND ");
}

/** " AND …" conditions for the query's terms (empty for no query). */
export function searchWhere(query: SearchQuery | null, p: Params): string {
  if (!query) return "";
  let sql = "";
  for (const t of query.terms) {
    const cond = termSql(t, p);
    if (cond === null)
      sql += t.negated ? "" : " AND FALSE"; // a term without a token matches nothing
    else sql += t.negated ? ` AND NOT (${cond})` : ` AND ${cond}`;
  }
  return sql;
}

const ftsWeights: Record<"text" | "subject" | "from" | "to", Weights> = { text: "AB", subject: "A", from: "C", to: "D" };

function termSql(t: SearchTerm, p: Params): string | null {
  switch (t.kind) {
    case "text":
    case "subject":
    case "from":
    case "to": {
      // from:/to: match words of names and addresses from their start: the last word is a prefix.
      const prefix = t.kind === "from" || t.kind === "to" ? true : t.prefix;
      const q = phraseQuery(t.value, ftsWeights[t.kind], prefix);
      return q === null ? null : `m.search_vector @@ ${p.add(q)}::tsquery`;
    }
    case "code":
      return `EXISTS (SELECT 1 FROM jsonb_array_elements_text(m.codes::jsonb) c(v) WHERE ${asciiLower("c.v")} = ${asciiLower(`${p.add(t.value)}::text`)})`;
    case "header": {
      const name = `${asciiLower("h.v ->> 'name'")} = ${asciiLower(`${p.add(t.name)}::text`)}`;
      if (t.value === null) return `EXISTS (SELECT 1 FROM ${headersOf} WHERE ${name})`;
      return `EXISTS (SELECT 1 FROM ${headersOf} WHERE ${name} AND ${contains("h.v ->> 'value'", p, t.value)})`;
    }
    case "has":
      return t.what === "attachment" ? "m.attachment_count > 0" : t.what === "code" ? "m.codes <> '[]'" : "m.links <> '[]'";
    case "is":
      return t.what === "read" ? "m.read = 1" : "m.read = 0";
    case "after":
      // As on SQLite: ids are ULIDs made at receipt, so the id bound only narrows the index range.
      if (t.negated) return `m.received_at >= ${p.add(t.at)}`;
      return `(m.received_at >= ${p.add(t.at)} AND m.id >= ${p.add(ulidFloor(Date.parse(t.at) - 1000))})`;
    case "before":
      if (t.negated) return `m.received_at < ${p.add(t.at)}`;
      return `(m.received_at < ${p.add(t.at)} AND m.id < ${p.add(ulidFloor(Date.parse(t.at)))})`;
    case "larger":
      return `m.size_bytes > ${p.add(t.bytes)}`;
    case "smaller":
      return `m.size_bytes < ${p.add(t.bytes)}`;
    case "folder":
      if (t.name === "INBOX") return "m.mailbox_id IS NULL";
      return `m.mailbox_id IN (SELECT f.id FROM imap_mailboxes f WHERE f.inbox_id = m.inbox_id AND f.name = ${p.add(t.name)})`;
    case "auth":
      if (t.verdict === "pending") return "EXISTS (SELECT 1 FROM message_auth a WHERE a.message_id = m.id AND a.verdict IS NULL)";
      return `EXISTS (SELECT 1 FROM message_auth a WHERE a.message_id = m.id AND a.verdict = ${p.add(t.verdict)})`;
  }
}

// -- IMAP SEARCH text keys (docs/imap.md, "SEARCH"): case-insensitive (ASCII) substrings -------

const BODY = "(COALESCE(m.text_body, '') || chr(10) || COALESCE(m.html_body, ''))";
const FROM = "(m.from_name || ' <' || m.from_email || '>')";

/** A stored header (decoded, unfolded; ingest's JSON list) named `name` whose value contains `value` (IMAP's test). */
function headerHas(p: Params, name: string, value: string): string {
  const escaped = name.replace(/[\\%_]/g, (c) => `\\${c}`);
  return `EXISTS (SELECT 1 FROM ${headersOf} WHERE ${asciiLower("h.v ->> 'name'")} LIKE ${asciiLower(`${p.add(escaped)}::text`)} ESCAPE '\\'
    AND ${imapContains("h.v ->> 'value'", p, value)})`;
}

/** A stored header as the message writes it, "Name: value", so TEXT finds field names too (RFC 3501: "the header"). */
const anyHeaderHas = (p: Params, value: string) =>
  `EXISTS (SELECT 1 FROM ${headersOf} WHERE ${imapContains("(h.v ->> 'name') || ': ' || (h.v ->> 'value')", p, value)})`;

/** The substring test of one IMAP text key: exact for an ASCII value, a superset otherwise (see imapContains). */
export function imapTextTest(key: ImapTextKey, p: Params): string {
  const v = key.value;
  switch (key.field) {
    case "body":
      return imapContains(BODY, p, v);
    case "subject":
      return imapContains("m.subject", p, v);
    case "from":
      return `(${imapContains(FROM, p, v)} OR ${headerHas(p, "from", v)})`;
    case "to":
      return `(${imapContains("m.to_json", p, v)} OR ${headerHas(p, "to", v)})`;
    case "cc":
      return `(${imapContains("m.cc_json", p, v)} OR ${headerHas(p, "cc", v)})`;
    case "bcc":
      return headerHas(p, "bcc", v);
    case "header":
      return headerHas(p, key.name ?? "", v);
    case "headers":
      return anyHeaderHas(p, v);
    case "text":
      return `(${imapContains(BODY, p, v)} OR ${anyHeaderHas(p, v)}
        OR ${imapContains("m.subject", p, v)} OR ${imapContains(FROM, p, v)} OR ${imapContains("m.to_json", p, v)})`;
  }
}

/** The index weights that hold an IMAP key's words (SQLite: the FTS5 column; "" every column; undefined none). */
const IMAP_WEIGHTS: Record<string, Weights | undefined> = { body: "B", subject: "A", text: "" };

/** The full-text pre-selection of uidsWithText: the words in order (last a prefix), or any of the terms. */
export function imapCandidates(key: ImapTextKey, among: { words: string[] } | { anyTerm: string[] }, p: Params): string {
  const weights = IMAP_WEIGHTS[key.field];
  const terms = "words" in among ? among.words : among.anyTerm;
  if (weights === undefined || terms.length === 0) throw new Error(`no full-text column for IMAP ${key.field}`);
  const q = "words" in among ? phraseQuery(among.words.join(" "), weights, true) : anyTokenQuery(among.anyTerm, weights);
  return q === null ? "FALSE" : `m.search_vector @@ ${p.add(q)}::tsquery`;
}
