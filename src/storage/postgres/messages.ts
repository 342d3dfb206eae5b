// PostgreSQL implementation of MessageRepository (src/storage/mail.ts), ../sqlite/messages.ts
// statement for statement. Differences, each for a reason:
// - insert writes messages.search_vector in the same statement (search-vector.ts): indexed with
//   the commit, so Storage.searchable() has nothing to wait for;
// - bodies are stored plain (text_z/html_z stay NULL): TOAST compresses large values itself;
// - condstore modseqs: SQLite's writers compute a row's modseq (NEXT_MODSEQ); here the BEFORE
//   triggers of migration 0028's PostgreSQL half take it from the mailbox's counter under the
//   counter row's lock, on every insert and flag change, so these statements do not set it (a
//   value they set would be replaced; a value read beside the lock could repeat across nodes).
import { asciiOnly, holdsText, type TextRow } from "../imap-text-match";
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
import type { PgClient } from "./connection";
import { lockInboxRows } from "./inboxes";
import { deletePgMessageRows } from "./message-rows";
import { imapCandidates, imapTextTest, Params, scopeOf, searchWhere } from "./message-search";
import { num, type Row } from "./rows";
import { searchVectorOf } from "./search-vector";

/** Every column a MessageRecord carries (never search_vector, a large value nobody reads back). */
const COLUMNS = `m.id, m.inbox_id, m.project_id, m.uid, m.blob_key, m.size_bytes, m.logical_size_bytes, m.envelope_from,
  m.envelope_to, m.from_email, m.from_name, m.to_json, m.cc_json, m.subject, m.preview, m.text_body, m.html_body, m.codes,
  m.links, m.headers, m.headers_truncated, m.message_id_header, m.sent_at, m.attachment_count, m.parse_error, m.read,
  m.flagged, m.deleted_flag, m.received_at, m.expires_at, m.mailbox_id, m.imap_flags`;

export function messageFromPgRow(r: Row): MessageRecord {
  r.size_bytes = num(r.size_bytes);
  r.logical_size_bytes = num(r.logical_size_bytes);
  return r as MessageRecord;
}

/** "In this mailbox" for parameter $n: `IS NULL` for INBOX (an index serves both forms, not `IS NOT DISTINCT FROM`). */
const inMailbox = (folderId: string | null, n: number) => (folderId === null ? "mailbox_id IS NULL" : `mailbox_id = $${n}::text`);

const bit = (b: boolean | undefined) => (b === undefined ? null : b ? 1 : 0);

export class PgMessages implements MessageRepository {
  constructor(private readonly c: PgClient) {}

  private async list(sql: string, ...params: Params["values"]): Promise<MessageRecord[]> {
    return (await this.c.rows<Row>(sql, ...params)).map(messageFromPgRow);
  }

  private async one(sql: string, ...params: Params["values"]): Promise<MessageRecord | null> {
    return (await this.list(sql, ...params))[0] ?? null;
  }

  inProject(projectId: string, id: string) {
    return this.one(`SELECT ${COLUMNS} FROM messages m WHERE m.id = $1 AND m.project_id = $2`, id, projectId);
  }

  listInInbox(inboxId: string, before: string | null, limit: number) {
    return before === null
      ? this.list(`SELECT ${COLUMNS} FROM messages m WHERE m.inbox_id = $1 ORDER BY m.id DESC LIMIT $2`, inboxId, limit)
      : this.list(
          `SELECT ${COLUMNS} FROM messages m WHERE m.inbox_id = $1 AND m.id < $2 ORDER BY m.id DESC LIMIT $3`,
          inboxId,
          before,
          limit,
        );
  }

  newest(inboxId: string) {
    return this.one(`SELECT ${COLUMNS} FROM messages m WHERE m.inbox_id = $1 ORDER BY m.id DESC LIMIT 1`, inboxId);
  }

  oldestAfter(inboxId: string, after: string) {
    return this.one(`SELECT ${COLUMNS} FROM messages m WHERE m.inbox_id = $1 AND m.id > $2 ORDER BY m.id ASC LIMIT 1`, inboxId, after);
  }

  async exists(id: string) {
    return (await this.c.row("SELECT 1 FROM messages WHERE id = $1", id)) !== null;
  }

  async insert(m: NewMessage, folderId: string | null = null) {
    // Into the mailbox whose counter gave m.uid (null: INBOX); modseq_ai (0028) gives it that
    // mailbox's next modseq.
    await this.c.run(
      `INSERT INTO messages (id, inbox_id, project_id, uid, blob_key, size_bytes, logical_size_bytes, envelope_from,
         envelope_to, from_email, from_name, to_json, cc_json, subject, preview, text_body, html_body, codes, links,
         headers, headers_truncated, message_id_header, sent_at, attachment_count, parse_error, received_at, expires_at,
         search_vector, mailbox_id)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$27,
         $28::tsvector, $29::text)`,
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
      m.text_body,
      m.html_body,
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
      searchVectorOf(m),
      folderId,
    );
  }

  async setFlags(inboxId: string, changes: FlagChange[]) {
    if (changes.length === 0) return [];
    // The inbox's row first (lockInboxRows says why); then one statement for the whole batch, rows in
    // id order: two batches lock the rows they share in one order.
    await lockInboxRows(this.c, [inboxId]);
    const byId = new Map<string, FlagChange>();
    for (const ch of changes) {
      const had = byId.get(ch.id);
      byId.set(
        ch.id,
        had ? { id: ch.id, read: ch.read ?? had.read, flagged: ch.flagged ?? had.flagged, deleted: ch.deleted ?? had.deleted } : ch,
      );
    }
    const rows = [...byId.values()]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((ch) => ({ id: ch.id, read: bit(ch.read), flagged: bit(ch.flagged), deleted: bit(ch.deleted) }));
    const done = await this.c.rows<{ id: string }>(
      `UPDATE messages m SET read = COALESCE(c.read, m.read), flagged = COALESCE(c.flagged, m.flagged),
         deleted_flag = COALESCE(c.deleted, m.deleted_flag)
       FROM (SELECT * FROM jsonb_to_recordset($2::text::jsonb) AS r(id text, read int, flagged int, deleted int) ORDER BY id) AS c
       WHERE m.id = c.id AND m.inbox_id = $1
         AND (m.read IS DISTINCT FROM COALESCE(c.read, m.read) OR m.flagged IS DISTINCT FROM COALESCE(c.flagged, m.flagged)
           OR m.deleted_flag IS DISTINCT FROM COALESCE(c.deleted, m.deleted_flag))
       RETURNING m.id`,
      inboxId,
      JSON.stringify(rows),
    );
    // In the order the caller named them, as the SQLite repository answers.
    const hit = new Set(done.map((r) => r.id));
    return [...byId.keys()].filter((id) => hit.has(id));
  }

  async unreadIdsUpTo(inboxId: string, lastId: string) {
    const rows = await this.c.rows<{ id: string }>(
      "SELECT id FROM messages WHERE inbox_id = $1 AND id <= $2 AND read = 0 ORDER BY id",
      inboxId,
      lastId,
    );
    return rows.map((r) => r.id);
  }

  async mailboxPage(inboxId: string, afterUid: number, limit: number, folderId: string | null = null): Promise<MailboxPage> {
    // Index-only where the visibility map allows (messages_mailbox covers every column read).
    const folder = folderId === null ? "mailbox_id IS NULL" : "mailbox_id = $4";
    const params = folderId === null ? [inboxId, afterUid, limit] : [inboxId, afterUid, limit, folderId];
    const rows = await this.c.rows<{ uid: number; size_bytes: string; read: number; flagged: number; deleted_flag: number }>(
      `SELECT uid, size_bytes, read, flagged, deleted_flag FROM messages
       WHERE inbox_id = $1 AND ${folder} AND uid > $2 ORDER BY uid LIMIT $3`,
      ...params,
    );
    const page = { uids: new Uint32Array(rows.length), sizes: new Uint32Array(rows.length), flags: new Uint8Array(rows.length) };
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      page.uids[i] = r.uid;
      page.sizes[i] = num(r.size_bytes);
      page.flags[i] = (r.read ? FLAG_SEEN : 0) | (r.flagged ? FLAG_FLAGGED : 0) | (r.deleted_flag ? FLAG_DELETED : 0);
    }
    return page;
  }

  async mailboxDetails(inboxId: string, folderId: string | null, uids: number[]) {
    if (uids.length === 0) return [];
    return this.c.rows<MailboxDetails>(
      `SELECT uid, id, received_at, blob_key FROM messages
       WHERE inbox_id = $1 AND ${inMailbox(folderId, 3)} AND uid = ANY($2::int[]) ORDER BY uid`,
      inboxId,
      `{${uids.map((u) => Math.trunc(u)).join(",")}}`,
      ...(folderId === null ? [] : [folderId]),
    );
  }

  async uidsWithText(
    inboxId: string,
    folderId: string | null,
    key: ImapTextKey,
    among: { words: string[] } | { anyTerm: string[] } | { uids: number[] },
  ) {
    const p = new Params();
    const inbox = `${p.add(inboxId)} AND ${folderId === null ? "m.mailbox_id IS NULL" : `m.mailbox_id = ${p.add(folderId)}::text`}`;
    let candidates: string;
    if ("uids" in among) {
      if (among.uids.length === 0) return [];
      candidates = `m.uid = ANY(${p.add(`{${among.uids.map((u) => Math.trunc(u)).join(",")}}`)}::int[])`;
    } else {
      candidates = imapCandidates(key, among, p);
    }
    // Bodies are plain here (no zstd column out of LIKE's reach, as on SQLite): for an ASCII value one
    // SQL test decides; for another, SQL's superset is decided by holdsText, as on SQLite.
    const exact = asciiOnly(key.value);
    const cols = exact ? "m.uid" : "m.uid, m.text_body, m.html_body, m.subject, m.from_name, m.from_email, m.to_json, m.cc_json, m.headers";
    const rows = await this.c.rows<{ uid: number } & TextRow>(
      `SELECT ${cols} FROM messages m WHERE m.inbox_id = ${inbox} AND ${candidates} AND ${imapTextTest(key, p)} ORDER BY m.uid`,
      ...p.values,
    );
    return (exact ? rows : rows.filter((r) => holdsText(key, r))).map((r) => r.uid);
  }

  async indexTermsAfter(after: string, limit: number) {
    // ts_stat reads every vector: fine for IMAP's rare substring searches on a test instance, and
    // the one vocabulary PostgreSQL offers (FTS5 keeps one, fts5vocab). Byte order, as FTS5's.
    const rows = await this.c.rows<{ word: string }>(
      `SELECT word FROM ts_stat('SELECT search_vector FROM messages') WHERE word COLLATE "C" > $1 ORDER BY word COLLATE "C" LIMIT $2`,
      after,
      limit,
    );
    return rows.map((r) => r.word);
  }

  async flagsOf(inboxId: string, folderId: string | null, ids: string[]) {
    if (ids.length === 0) return [];
    const rows = await this.c.rows<FlagState>(
      `SELECT id, uid, read, flagged, deleted_flag, modseq FROM messages
       WHERE id = ANY($1::text[]) AND inbox_id = $2 AND ${inMailbox(folderId, 3)}`,
      ids,
      inboxId,
      ...(folderId === null ? [] : [folderId]),
    );
    // In the order asked, as SQLite's one lookup per id.
    const byId = new Map(rows.map((r) => [r.id, { ...r, modseq: num(r.modseq) }]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async sentDates(inboxId: string, folderId: string | null) {
    return this.c.rows<{ uid: number; sent_at: string | null; date_header: string | null }>(
      `SELECT uid, sent_at, (SELECT h.v ->> 'value' FROM jsonb_array_elements(m.headers::jsonb) h(v)
                             WHERE lower(h.v ->> 'name') = 'date' LIMIT 1) AS date_header
       FROM messages m WHERE inbox_id = $1 AND ${inMailbox(folderId, 2)}`,
      inboxId,
      ...(folderId === null ? [] : [folderId]),
    );
  }

  search(s: MessageSearch) {
    const p = new Params();
    const scope = scopeOf(s, p);
    const where = searchWhere(s.query, p);
    const order = s.order === "newest" ? "DESC" : "ASC";
    return this.list(
      `SELECT ${COLUMNS} FROM messages m WHERE ${scope}${where} ORDER BY m.id ${order} LIMIT ${p.add(s.limit)}`,
      ...p.values,
    );
  }

  async countUpTo(s: MessageSearch, cap: number) {
    const p = new Params();
    const scope = scopeOf(s, p);
    const where = searchWhere(s.query, p);
    const r = await this.c.row<{ n: string }>(
      `SELECT COUNT(*) AS n FROM (SELECT 1 FROM messages m WHERE ${scope}${where} LIMIT ${p.add(cap)}) capped`,
      ...p.values,
    );
    return num(r!.n);
  }

  matching(projectId: string, ids: string[], query: SearchQuery | null) {
    if (ids.length === 0) return Promise.resolve([]);
    const p = new Params();
    const scope = `m.id = ANY(${p.add(ids)}::text[]) AND m.project_id = ${p.add(projectId)}`;
    const where = searchWhere(query, p);
    return this.list(`SELECT ${COLUMNS} FROM messages m WHERE ${scope}${where} ORDER BY m.id ASC`, ...p.values);
  }

  async idsInInbox(inboxId: string, query: SearchQuery | null, after: string | null, limit: number) {
    const p = new Params();
    const scope = `m.inbox_id = ${p.add(inboxId)} AND m.id > ${p.add(after ?? "")}`;
    const where = searchWhere(query, p);
    const rows = await this.c.rows<{ id: string }>(
      `SELECT m.id FROM messages m WHERE ${scope}${where} ORDER BY m.id ASC LIMIT ${p.add(limit)}`,
      ...p.values,
    );
    return rows.map((r) => r.id);
  }

  expired(now: string, limit: number) {
    return this.c.rows<{ id: string; project_id: string }>(
      "SELECT id, project_id FROM messages WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2",
      now,
      limit,
    );
  }

  deleteInProject(projectId: string, ids: string[]) {
    return deletePgMessageRows(this.c, projectId, ids);
  }
}
