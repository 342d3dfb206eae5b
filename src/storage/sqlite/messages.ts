// SQLite implementation of MessageRepository (src/storage/mail.ts). Text and HTML bodies are stored
// zstd-compressed where that pays (compression.ts); each insert queues the row for the search index,
// which a worker fills after the commit (search-index.ts). Search queries become SQL in message-search.ts.
import type {
  FlagChange,
  FlagState,
  ImapTextKey,
  MailboxDetails,
  MailboxPage,
  MessageRecord,
  MessageRepository,
  MessageSearch,
  NewMessage,
  SearchQuery,
} from "../mail";
import { FLAG_DELETED, FLAG_FLAGGED, FLAG_SEEN } from "../mail";
import { asciiOnly, holdsText, type TextRow } from "../imap-text-match";
import { bodyOf, packBody, unpackBodies } from "./compression";
import type { SqliteConnection, SqlReader } from "./connection";
import { COMMON_MATCHES, FTS_COLUMN, ftsString, imapTextTest, scopeOf, searchWhere } from "./message-search";
import { deleteMessageRows } from "./message-rows";
import { NEXT_MODSEQ } from "./migrations/0028_condstore";

const bit = (b: boolean | undefined) => (b === undefined ? null : b ? 1 : 0);

export class SqliteMessages implements MessageRepository {
  constructor(private readonly c: SqliteConnection) {}

  async inProject(projectId: string, id: string) {
    return unpackBodies(this.c.get<MessageRecord>("SELECT * FROM messages WHERE id = ? AND project_id = ?", id, projectId));
  }

  async listInInbox(inboxId: string, before: string | null, limit: number) {
    const rows =
      before === null
        ? this.c.all<MessageRecord>("SELECT * FROM messages WHERE inbox_id = ? ORDER BY id DESC LIMIT ?", inboxId, limit)
        : this.c.all<MessageRecord>(
            "SELECT * FROM messages WHERE inbox_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
            inboxId,
            before,
            limit,
          );
    return rows.map(unpackBodies);
  }

  async newest(inboxId: string) {
    return unpackBodies(this.c.get<MessageRecord>("SELECT * FROM messages WHERE inbox_id = ? ORDER BY id DESC LIMIT 1", inboxId));
  }

  async oldestAfter(inboxId: string, after: string) {
    return unpackBodies(
      this.c.get<MessageRecord>("SELECT * FROM messages WHERE inbox_id = ? AND id > ? ORDER BY id ASC LIMIT 1", inboxId, after),
    );
  }

  async exists(id: string) {
    return this.c.get("SELECT 1 FROM messages WHERE id = ?", id) !== null;
  }

  async insert(m: NewMessage, folderId: string | null = null) {
    const [text, textZ] = packBody(m.text_body);
    const [html, htmlZ] = packBody(m.html_body);
    const row = this.c.get<{ rowid: number }>(
      `INSERT INTO messages (id, inbox_id, project_id, uid, blob_key, size_bytes, logical_size_bytes, envelope_from,
         envelope_to, from_email, from_name, to_json, cc_json, subject, preview, text_body, text_z, html_body, html_z, codes, links,
         headers, headers_truncated, message_id_header, sent_at, attachment_count, parse_error, received_at, expires_at, mailbox_id, modseq)
       VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?, ?30,
         1 + COALESCE((SELECT highest_modseq FROM imap_mailboxes WHERE id = ?30), (SELECT highest_modseq FROM inboxes WHERE id = ?2)))
       RETURNING rowid`,
      m.id,
      m.inbox_id,
      m.project_id,
      m.uid,
      m.blob_key,
      m.size_bytes,
      m.logical_size_bytes,
      m.envelope_from,
      m.envelope_to,
      m.from_email,
      m.from_name,
      m.to_json,
      m.cc_json,
      m.subject,
      m.preview,
      text,
      textZ,
      html,
      htmlZ,
      m.codes,
      m.links,
      m.headers,
      m.headers_truncated,
      m.message_id_header,
      m.sent_at,
      m.attachment_count,
      m.parse_error,
      m.received_at,
      m.expires_at,
      folderId,
    )!;
    // Indexed for search after the commit, off this thread (search-index.ts).
    this.c.search.enqueued(
      this.c.get<{ seq: number }>("INSERT INTO search_queue (msg_rowid, op) VALUES (?, 1) RETURNING seq", row.rowid)!.seq,
    );
  }

  async setFlags(inboxId: string, changes: FlagChange[]) {
    const changed: string[] = [];
    for (const ch of changes) {
      const n = this.c.run(
        `UPDATE messages SET read = COALESCE(?3, read), flagged = COALESCE(?4, flagged), deleted_flag = COALESCE(?5, deleted_flag),
           modseq = ${NEXT_MODSEQ}
         WHERE id = ?1 AND inbox_id = ?2
           AND (read IS NOT COALESCE(?3, read) OR flagged IS NOT COALESCE(?4, flagged) OR deleted_flag IS NOT COALESCE(?5, deleted_flag))`,
        ch.id,
        inboxId,
        bit(ch.read),
        bit(ch.flagged),
        bit(ch.deleted),
      ).changes;
      if (n > 0) changed.push(ch.id);
    }
    return changed;
  }

  async unreadIdsUpTo(inboxId: string, lastId: string) {
    return this.c
      .all<{ id: string }>("SELECT id FROM messages WHERE inbox_id = ? AND id <= ? AND read = 0 ORDER BY id", inboxId, lastId)
      .map((r) => r.id);
  }

  async mailboxPage(inboxId: string, afterUid: number, limit: number, folderId: string | null = null): Promise<MailboxPage> {
    return mailboxPageOf(this.c, inboxId, afterUid, limit, folderId);
  }

  async mailboxDetails(inboxId: string, folderId: string | null, uids: number[]) {
    if (uids.length === 0) return [];
    return this.c.all<MailboxDetails>(
      `SELECT uid, id, received_at, blob_key FROM messages INDEXED BY messages_mailbox
       WHERE inbox_id = ? AND mailbox_id IS ? AND uid IN (SELECT value FROM json_each(?)) ORDER BY uid`,
      inboxId,
      folderId,
      JSON.stringify(uids),
    );
  }

  async indexTermsAfter(after: string, limit: number) {
    return this.c
      .prepare("SELECT term FROM search.messages_fts_terms WHERE term > ? ORDER BY term LIMIT ?")
      .values(after, limit)
      .map((r) => r[0] as string);
  }

  async indexTermsContaining(fragment: string, limit: number) {
    const fill = this.c.prepare("SELECT done FROM search.index_terms_fill WHERE id = 1").get() as { done: number } | null;
    if (!fill?.done) return null;
    return this.c
      .prepare("SELECT term FROM search.index_terms_trigram WHERE index_terms_trigram MATCH ? LIMIT ?")
      .values(`"${fragment.replaceAll('"', '""')}"`, limit)
      .map((r) => r[0] as string);
  }

  async uidsWithText(
    inboxId: string,
    folderId: string | null,
    key: ImapTextKey,
    among: { words: string[] } | { anyTerm: string[] } | { uids: number[] },
  ) {
    const { sql: check, params } = imapTextTest(key);
    // SQL's test is exact for an ASCII value on plain columns (hit). What it cannot judge comes back with
    // the columns holdsText reads, which decides it: a compressed body (text_z, html_z: out of LIKE's
    // reach), or, for a value beyond ASCII, every row of SQL's superset (LIKE folds ASCII letters only).
    const exact = asciiOnly(key.value);
    const bodyField = key.field === "body" || key.field === "text";
    const bodies = "m.text_body, m.text_z, m.html_body, m.html_z";
    const cols = !exact
      ? `m.uid, 0 AS hit, ${bodies}, m.subject, m.from_name, m.from_email, m.to_json, m.cc_json, m.headers`
      : bodyField
        ? `m.uid, (${check}) AS hit, ${bodies}`
        : "m.uid, 1 AS hit";
    const where = bodyField ? `((${check}) OR m.text_z IS NOT NULL OR m.html_z IS NOT NULL)` : `(${check})`;
    const colParams = exact && bodyField ? params : [];
    type Row = { uid: number; hit: number; text_z?: Uint8Array | null; html_z?: Uint8Array | null } & Partial<TextRow>;
    const keep = (rows: Row[]) =>
      rows
        .filter(
          (r) =>
            r.hit ||
            holdsText(key, {
              text_body: bodyOf(r.text_body ?? null, r.text_z ?? null),
              html_body: bodyOf(r.html_body ?? null, r.html_z ?? null),
              subject: r.subject ?? null,
              from_name: r.from_name ?? null,
              from_email: r.from_email ?? null,
              to_json: r.to_json ?? null,
              cc_json: r.cc_json ?? null,
              headers: r.headers ?? null,
            }),
        )
        .map((r) => r.uid);
    if ("uids" in among) {
      if (among.uids.length === 0) return [];
      return keep(
        this.c.all<Row>(
          `SELECT ${cols} FROM messages m
           WHERE m.inbox_id = ? AND m.mailbox_id IS ? AND m.uid IN (SELECT value FROM json_each(?)) AND ${where} ORDER BY m.uid`,
          ...colParams,
          inboxId,
          folderId,
          JSON.stringify(among.uids),
          ...params,
        ),
      );
    }
    const column = FTS_COLUMN[key.field];
    const terms = "words" in among ? among.words : among.anyTerm;
    if (column === undefined || terms.length === 0) throw new Error(`no full-text column for IMAP ${key.field}`);
    const phrase = "words" in among ? `${ftsString(among.words.join(" "))} *` : among.anyTerm.map(ftsString).join(" OR ");
    const match = column ? `${column} : (${phrase})` : phrase;
    return keep(
      this.c.allOnce<Row>(
        `SELECT ${cols} FROM search.messages_fts f JOIN messages m ON m.rowid = f.rowid
         WHERE f.messages_fts MATCH ? AND m.inbox_id = ? AND m.mailbox_id IS ? AND ${where} ORDER BY m.uid`,
        ...colParams,
        match,
        inboxId,
        folderId,
        ...params,
      ),
    );
  }

  async flagsOf(inboxId: string, folderId: string | null, ids: string[]) {
    const out: FlagState[] = [];
    for (const id of ids) {
      const r = this.c.get<FlagState>(
        "SELECT id, uid, read, flagged, deleted_flag, modseq FROM messages WHERE id = ? AND inbox_id = ? AND mailbox_id IS ?",
        id,
        inboxId,
        folderId,
      );
      if (r) out.push(r);
    }
    return out;
  }

  async sentDates(inboxId: string, folderId: string | null) {
    return this.c.all<{ uid: number; sent_at: string | null; date_header: string | null }>(
      `SELECT uid, sent_at, (SELECT json_extract(h.value, '$.value') FROM json_each(m.headers) h
                             WHERE json_extract(h.value, '$.name') LIKE 'date' LIMIT 1) AS date_header
       FROM messages m WHERE inbox_id = ? AND mailbox_id IS ?`,
      inboxId,
      folderId,
    );
  }

  async search(s: MessageSearch) {
    // A common word would materialise most of the index before the page is cut: for it, walk the
    // messages in id order and test each (the page fills after a few rows); a rarer one is looked
    // up in the index first. The probe reads at most COMMON_MATCHES rowids.
    const w = searchWhere(s.query, "index", (expr) => this.ftsMatchesAtLeast(expr, COMMON_MATCHES));
    const scope = scopeOf(s);
    const order = s.order === "newest" ? "DESC" : "ASC";
    return this.c
      .allOnce<MessageRecord>(
        `SELECT m.* FROM messages m WHERE ${scope.sql}${w.sql} ORDER BY m.id ${order} LIMIT ?`,
        ...scope.params,
        ...w.params,
        s.limit,
      )
      .map(unpackBodies);
  }

  private ftsMatchesAtLeast(expr: string, n: number): boolean {
    return (
      this.c.get<{ n: number }>(
        "SELECT COUNT(*) AS n FROM (SELECT rowid FROM search.messages_fts WHERE messages_fts MATCH ? LIMIT ?)",
        expr,
        n,
      )!.n >= n
    );
  }

  async countUpTo(s: MessageSearch, cap: number) {
    const w = searchWhere(s.query, "index", (expr) => this.ftsMatchesAtLeast(expr, COMMON_MATCHES));
    const scope = scopeOf(s);
    return this.c.allOnce<{ n: number }>(
      `SELECT COUNT(*) AS n FROM (SELECT 1 FROM messages m WHERE ${scope.sql}${w.sql} LIMIT ?)`,
      ...scope.params,
      ...w.params,
      cap,
    )[0]!.n;
  }

  async matching(projectId: string, ids: string[], query: SearchQuery | null) {
    if (ids.length === 0) return [];
    // Few candidates: the full-text terms are tested per row (rowid lookups in the index).
    const w = searchWhere(query, "per-row");
    return this.c
      .allOnce<MessageRecord>(
        `SELECT m.* FROM messages m WHERE m.id IN (SELECT value FROM json_each(?)) AND m.project_id = ?${w.sql} ORDER BY m.id ASC`,
        JSON.stringify(ids),
        projectId,
        ...w.params,
      )
      .map(unpackBodies);
  }

  async idsInInbox(inboxId: string, query: SearchQuery | null, after: string | null, limit: number) {
    const w = searchWhere(query, "index", (expr) => this.ftsMatchesAtLeast(expr, COMMON_MATCHES));
    return this.c
      .allOnce<{ id: string }>(
        `SELECT m.id FROM messages m WHERE m.inbox_id = ? AND m.id > ?${w.sql} ORDER BY m.id ASC LIMIT ?`,
        inboxId,
        after ?? "",
        ...w.params,
        limit,
      )
      .map((r) => r.id);
  }

  async expired(now: string, limit: number) {
    return this.c.all<{ id: string; project_id: string }>(
      "SELECT id, project_id FROM messages WHERE expires_at <= ? ORDER BY expires_at LIMIT ?",
      now,
      limit,
    );
  }

  async deleteInProject(projectId: string, ids: string[]) {
    return deleteMessageRows((sql) => this.c.prepare(sql), projectId, ids);
  }
}

/** A page of a mailbox view (a view's snapshot reads them too: mailbox-snapshot.ts). */
export function mailboxPageOf(c: SqlReader, inboxId: string, afterUid: number, limit: number, folderId: string | null): MailboxPage {
  // Index-only (messages_mailbox), as arrays rather than objects: the page's cost is the index walk.
  const rows = c
    .prepare(
      `SELECT uid, size_bytes, read, flagged, deleted_flag FROM messages INDEXED BY messages_mailbox
       WHERE inbox_id = ? AND mailbox_id IS ? AND uid > ? ORDER BY uid LIMIT ?`,
    )
    .values(inboxId, folderId, afterUid, limit) as number[][];
  const page = { uids: new Uint32Array(rows.length), sizes: new Uint32Array(rows.length), flags: new Uint8Array(rows.length) };
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    page.uids[i] = r[0]!;
    page.sizes[i] = r[1]!;
    page.flags[i] = (r[2] ? FLAG_SEEN : 0) | (r[3] ? FLAG_FLAGGED : 0) | (r[4] ? FLAG_DELETED : 0);
  }
  return page;
}
