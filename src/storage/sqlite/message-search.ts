// The search AST of src/storage/mail.ts as SQLite conditions (docs/search.md), for messages.ts:
//
// - Words, phrases, subject:, from: and to: go to the full-text index messages_fts (unicode61,
//   diacritics removed: case- and accent-insensitive token matches; a phrase is consecutive
//   tokens; "w*" a prefix). Words and phrases look at subject and body; from: at the sender's name
//   and address, to: at To and Cc names and addresses and the envelope recipient, as a phrase
//   whose last word is a prefix. Every value is passed as an FTS5 string: nothing in q is syntax.
// - header: compares the name exactly (case-insensitive) and the value as a case-insensitive
//   (ASCII) substring with LIKE, over the stored headers.
// - code: one of the message's extracted codes, exactly (case-insensitive).
// - after:/before: received_at >= / < the instant. Ids are ULIDs made at receipt, just before
//   received_at is read from the same clock, so the id bounds added for positive terms only
//   narrow the index range (after: one second of slack), never the result.
// - larger:/smaller: the raw size in bytes, > / <.
import { ulidFloor } from "../../lib/ids";
import type { ImapTextKey, MessageSearch, SearchQuery, SearchTerm } from "../mail";
import { likePattern } from "../imap-text-match";
import { spaceCjk } from "../cjk-words";

/** IMAP SEARCH text keys: the index column that holds the field's words (null: every column; absent: none). */
export const FTS_COLUMN: Record<string, string | null> = {
  body: "body",
  subject: "subject",
  text: null,
};
const LIKE_Q = "LIKE ? ESCAPE '\\'";
const BODY_SQL = `(COALESCE(m.text_body, '') || char(10) || COALESCE(m.html_body, '')) ${LIKE_Q}`;
const FROM_SQL = `(m.from_name || ' <' || m.from_email || '>') ${LIKE_Q}`;
/** A stored header (decoded, unfolded; ingest's JSON list) named like the first ? whose value is like the second. */
const HEADER_SQL = `EXISTS (SELECT 1 FROM json_each(m.headers) h
  WHERE json_extract(h.value, '$.name') LIKE ? ESCAPE '\\' AND json_extract(h.value, '$.value') ${LIKE_Q})`;
/** A stored header as the message writes it, "Name: value", so TEXT finds field names too (RFC 3501: "the header"). */
const ANY_HEADER_SQL = `EXISTS (SELECT 1 FROM json_each(m.headers) h
  WHERE (json_extract(h.value, '$.name') || ': ' || json_extract(h.value, '$.value')) ${LIKE_Q})`;

/**
 * The substring test of one IMAP text key, with its parameters in order: exact for an ASCII value, a
 * superset otherwise, which ../imap-text-match.ts then decides (LIKE folds ASCII letters only).
 */
export function imapTextTest(key: ImapTextKey): { sql: string; params: string[] } {
  const v = likePattern(key.value);
  const header = (name: string) => [name.replace(/[\\%_]/g, (c) => `\\${c}`), v];
  switch (key.field) {
    case "body":
      return { sql: BODY_SQL, params: [v] };
    case "subject":
      return { sql: `m.subject ${LIKE_Q}`, params: [v] };
    case "from":
      return { sql: `${FROM_SQL} OR ${HEADER_SQL}`, params: [v, ...header("from")] };
    case "to":
      return { sql: `m.to_json ${LIKE_Q} OR ${HEADER_SQL}`, params: [v, ...header("to")] };
    case "cc":
      return { sql: `m.cc_json ${LIKE_Q} OR ${HEADER_SQL}`, params: [v, ...header("cc")] };
    case "bcc":
      return { sql: HEADER_SQL, params: header("bcc") };
    case "header":
      return { sql: HEADER_SQL, params: header(key.name ?? "") };
    case "headers":
      return { sql: ANY_HEADER_SQL, params: [v] };
    case "text":
      return {
        sql: `${BODY_SQL} OR ${ANY_HEADER_SQL} OR m.subject ${LIKE_Q} OR ${FROM_SQL} OR m.to_json ${LIKE_Q}`,
        params: [v, v, v, v, v],
      };
  }
}

type Params = Array<string | number>;
/** From this many full-text matches on, a list query tests rows one by one instead of collecting the matches. */
export const COMMON_MATCHES = 2000;
type FtsMode = "index" | "per-row";

/** An FTS5 string literal (nothing inside is syntax). */
export const ftsString = (v: string) => `"${v.replace(/"/g, '""')}"`;
/** A word or phrase of q as FTS5 matches it: a CJK run as the phrase of its characters (../cjk-words.ts). */
const ftsTerm = (t: { value: string; prefix: boolean }) => {
  const phrase = ftsString(spaceCjk(t.value));
  return t.prefix ? `${phrase} *` : phrase;
};
const likeArg = (v: string) => `%${v.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const LIKE = "LIKE ? ESCAPE '\\'";

export function scopeOf(s: MessageSearch): { sql: string; params: Params } {
  const parts: string[] = [];
  const params: Params = [];
  if (s.inboxId !== null) {
    parts.push("m.inbox_id = ?");
    params.push(s.inboxId);
  }
  // With an inbox named, its index (inbox_id, id) is the walk: the `+` keeps SQLite off
  // messages_project, which it otherwise took for the tie and then walked the whole project's
  // newest messages to find the inbox's (issue 19: 50-100 ms at a million, whatever the page).
  parts.push(s.inboxId !== null ? "+m.project_id = ?" : "m.project_id = ?");
  params.push(s.projectId);
  if (s.before) {
    parts.push("m.id < ?");
    params.push(s.before);
  }
  if (s.after) {
    parts.push("m.id > ?");
    params.push(s.after);
  }
  return { sql: parts.join(" AND "), params };
}

/** " AND …" conditions for the query's terms (empty for no query). */
export function searchWhere(
  query: SearchQuery | null,
  mode: FtsMode,
  /** In "index" mode: whether an expression matches so many rows that testing per row is cheaper. */
  common: (expr: string) => boolean = () => false,
): { sql: string; params: Params } {
  if (!query || query.terms.length === 0) return { sql: "", params: [] };
  const parts: string[] = [];
  const params: Params = [];
  const positive = query.terms.filter((t) => isFts(t) && !t.negated) as FtsTerm[];
  const negative = query.terms.filter((t) => isFts(t) && t.negated) as FtsTerm[];
  // Prefix terms (from:, to:, "w*") are the costly ones: every token they start is merged first
  // (~15 ms for one that starts 100,000 senders' tokens), for the whole index or for one row
  // alike. So they are looked up once in the index, never probed and never tested row by row.
  const ftsIn = (expr: string, not: boolean, rowByRow: boolean) => {
    params.push(expr);
    if (rowByRow) {
      parts.push(
        `${not ? "NOT " : ""}EXISTS (SELECT 1 FROM search.messages_fts WHERE messages_fts MATCH ? AND messages_fts.rowid = m.rowid)`,
      );
    } else {
      parts.push(`m.rowid ${not ? "NOT IN" : "IN"} (SELECT rowid FROM search.messages_fts WHERE messages_fts MATCH ?)`);
    }
  };
  const hasPrefix = (t: FtsTerm) => t.kind === "from" || t.kind === "to" || t.prefix;
  const exact = positive.filter((t) => !hasPrefix(t));
  const prefixed = positive.filter(hasPrefix);
  const exactExpr = exact.map(fts).join(" AND ");
  if (exact.length && (mode === "per-row" || common(exactExpr))) {
    ftsIn(exactExpr, false, true);
    if (prefixed.length) ftsIn(prefixed.map(fts).join(" AND "), false, false);
  } else if (positive.length) {
    // Rare words narrow the prefix terms inside the index: one lookup of the whole AND.
    ftsIn(positive.map(fts).join(" AND "), false, false);
  }
  if (negative.length) {
    const expr = negative.map(fts).join(" OR ");
    ftsIn(expr, true, !negative.some(hasPrefix) && (mode === "per-row" || common(expr)));
  }
  for (const t of query.terms) {
    const cond = structured(t, params, !t.negated);
    if (cond !== null) parts.push(t.negated ? `NOT (${cond})` : cond);
  }
  return { sql: parts.map((p) => ` AND ${p}`).join(""), params };
}

type FtsTerm = SearchTerm & { kind: "text" | "subject" | "from" | "to" };
const isFts = (t: SearchTerm): t is FtsTerm => t.kind === "text" || t.kind === "subject" || t.kind === "from" || t.kind === "to";

/** One full-text term as an FTS5 expression: words and phrases in subject and body, the others in their column. */
function fts(t: FtsTerm): string {
  switch (t.kind) {
    case "text":
      return `{subject body} : ${ftsTerm(t)}`;
    case "subject":
      return `subject : ${ftsTerm(t)}`;
    // from:/to: match words of names and addresses from their start: the last word is a prefix.
    case "from":
      return `sender : ${ftsTerm({ value: t.value, prefix: true })}`;
    case "to":
      return `recipients : ${ftsTerm({ value: t.value, prefix: true })}`;
  }
}

/** One structured term as SQL (its parameters appended in order); null for full-text terms. */
function structured(t: SearchTerm, params: Params, positive: boolean): string | null {
  switch (t.kind) {
    case "text":
    case "subject":
    case "from":
    case "to":
      return null;
    case "code":
      params.push(t.value);
      return "EXISTS (SELECT 1 FROM json_each(m.codes) c WHERE lower(c.value) = lower(?))";
    case "header":
      params.push(t.name);
      if (t.value === null) return "EXISTS (SELECT 1 FROM json_each(m.headers) h WHERE lower(h.value ->> 'name') = lower(?))";
      params.push(likeArg(t.value));
      return `EXISTS (SELECT 1 FROM json_each(m.headers) h WHERE lower(h.value ->> 'name') = lower(?) AND h.value ->> 'value' ${LIKE})`;
    case "has":
      return t.what === "attachment" ? "m.attachment_count > 0" : t.what === "code" ? "m.codes <> '[]'" : "m.links <> '[]'";
    case "is":
      return t.what === "read" ? "m.read = 1" : "m.read = 0";
    case "after":
      params.push(t.at);
      if (!positive) return "m.received_at >= ?";
      params.push(ulidFloor(Date.parse(t.at) - 1000));
      return "(m.received_at >= ? AND m.id >= ?)";
    case "before":
      params.push(t.at);
      if (!positive) return "m.received_at < ?";
      params.push(ulidFloor(Date.parse(t.at)));
      return "(m.received_at < ? AND m.id < ?)";
    case "larger":
      params.push(t.bytes);
      return "m.size_bytes > ?";
    case "smaller":
      params.push(t.bytes);
      return "m.size_bytes < ?";
    case "folder":
      if (t.name === "INBOX") return "m.mailbox_id IS NULL";
      params.push(t.name);
      return "m.mailbox_id IN (SELECT f.id FROM imap_mailboxes f WHERE f.inbox_id = m.inbox_id AND f.name = ?)";
    case "auth":
      if (t.verdict === "pending") return "EXISTS (SELECT 1 FROM message_auth a WHERE a.message_id = m.id AND a.verdict IS NULL)";
      params.push(t.verdict);
      return "EXISTS (SELECT 1 FROM message_auth a WHERE a.message_id = m.id AND a.verdict = ?)";
  }
}
