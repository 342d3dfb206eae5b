// SQLite implementation of the mail repositories (src/storage/mail.ts). Every method is
// synchronous inside (see connection.ts); the counters (message_count, unread_count, used_bytes of
// inboxes and teams) are kept by triggers (migrations/0002_mail.ts).
import { inboxFromRow } from "../row-records";
import { deleteMessageRows } from "./message-rows";
import { NEXT_MODSEQ } from "./migrations/0028_condstore";
import type {
  AttachmentRecord,
  AttachmentRepository,
  BlobRefRepository,
  ChaosRuleRecord,
  ExpiredInbox,
  FlagChange,
  FlagState,
  InboxPatch,
  InboxRecord,
  InboxChaosRepository,
  SmtpChaosRepository,
  SmtpChaosRuleRecord,
  InboxRepository,
  InboxWatchRepository,
  MailboxDetails,
  MailboxPage,
  MailboxStatus,
  MailRepositories,
  MessageRecord,
  MessageRepository,
  MessageSearch,
  SearchQuery,
  SearchTerm,
  NewMessage,
  ImapTextKey,
} from "../mail";
import { FLAG_DELETED, FLAG_FLAGGED, FLAG_SEEN } from "../mail";
import { bodyOf, packBody, unpackBodies } from "./compression";
import type { SqliteConnection, SqlReader } from "./connection";
import { SqliteMessageAuth } from "./message-auth";
import { ulidFloor } from "../../lib/ids";

const orNull = (r: Record<string, any> | null) => (r ? inboxFromRow(r) : null);
const bit = (b: boolean | undefined) => (b === undefined ? null : b ? 1 : 0);

class SqliteInboxes implements InboxRepository {
  constructor(private readonly c: SqliteConnection) {}

  async byId(id: string) {
    return orNull(this.c.get("SELECT * FROM inboxes WHERE id = ?", id));
  }

  async inProject(projectId: string, id: string) {
    return orNull(this.c.get("SELECT * FROM inboxes WHERE id = ? AND project_id = ?", id, projectId));
  }

  async byAddress(address: string) {
    return orNull(this.c.get("SELECT * FROM inboxes WHERE address = ?", address));
  }

  async listInProject(projectId: string, before: string | null, limit: number, type: InboxRecord["type"] | null = null) {
    // The catch-all flag is a column of its own (see migration 0016); the type column says "persistent" for it.
    const storedType = type === "catch_all" ? null : type;
    const catchAll = type === null ? null : type === "catch_all" ? 1 : 0;
    const rows = this.c.all<Record<string, any>>(
      `SELECT * FROM inboxes WHERE project_id = ? AND id < ? AND (? IS NULL OR type = ?) AND (? IS NULL OR catch_all = ?)
        ORDER BY id DESC LIMIT ?`,
      projectId,
      before ?? "~",
      storedType,
      storedType,
      catchAll,
      catchAll,
      limit,
    );
    return rows.map(inboxFromRow);
  }

  async listAll(before: string | null, limit: number) {
    return this.c
      .all<Record<string, any>>("SELECT * FROM inboxes WHERE id < ? ORDER BY id DESC LIMIT ?", before ?? "~", limit)
      .map(inboxFromRow);
  }

  async countForTeam(teamId: string) {
    return this.c.get<{ n: number }>(
      "SELECT COUNT(*) AS n FROM inboxes i JOIN projects p ON p.id = i.project_id WHERE p.team_id = ? AND i.catch_all = 0",
      teamId,
    )!.n;
  }

  async teamUsedBytes(teamId: string) {
    return this.c.get<{ used_bytes: number }>("SELECT used_bytes FROM teams WHERE id = ?", teamId)?.used_bytes ?? 0;
  }

  async catchAll() {
    return orNull(this.c.get<Record<string, any>>("SELECT * FROM inboxes WHERE catch_all = 1"));
  }

  async insert(r: InboxRecord) {
    this.c.run(
      `INSERT INTO inboxes (id, project_id, address, local_part, domain, domain_id, name, type, status, password_enc,
         uid_validity, uid_next, expires_at, expiring_alerted_at, created_by_session, message_count, unread_count,
         used_bytes, created_at, catch_all)
       VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
      r.id,
      r.projectId,
      r.address,
      r.localPart,
      r.domain,
      r.domainId,
      r.name,
      r.type === "catch_all" ? "persistent" : r.type,
      r.status,
      r.passwordEnc,
      r.uidValidity,
      r.uidNext,
      r.expiresAt,
      r.expiringAlertedAt,
      r.createdBySession,
      r.messageCount,
      r.unreadCount,
      r.usedBytes,
      r.createdAt,
      r.type === "catch_all" ? 1 : 0,
    );
  }

  async update(id: string, patch: InboxPatch) {
    const has = (k: keyof InboxPatch) => (k in patch && patch[k] !== undefined ? 1 : 0);
    this.c.run(
      `UPDATE inboxes SET name = IIF(?2, ?3, name), expires_at = IIF(?4, ?5, expires_at),
         expiring_alerted_at = IIF(?6, ?7, expiring_alerted_at)
       WHERE id = ?1`,
      id,
      has("name"),
      patch.name ?? null,
      has("expiresAt"),
      patch.expiresAt ?? null,
      has("expiringAlertedAt"),
      patch.expiringAlertedAt ?? null,
    );
  }

  async setPassword(id: string, passwordEnc: string) {
    this.c.run("UPDATE inboxes SET password_enc = ? WHERE id = ?", passwordEnc, id);
  }

  async lockForDelivery(_ids: string[]) {
    // One writer: the transaction already holds the whole database.
  }

  async takeUid(id: string, folderId: string | null = null) {
    if (folderId !== null) {
      // Another mailbox's own counter (migration 0029); the inbox row is read beside it.
      const t = this.c.get<{ uid: number }>(
        "UPDATE imap_mailboxes SET uid_next = uid_next + 1 WHERE id = ? AND inbox_id = ? RETURNING uid_next - 1 AS uid",
        folderId,
        id,
      );
      const inbox = t && this.c.get<Record<string, any>>("SELECT * FROM inboxes WHERE id = ?", id);
      return t && inbox ? { uid: t.uid, inbox: inboxFromRow(inbox) } : null;
    }
    const r = this.c.get<Record<string, any>>(
      "UPDATE inboxes SET uid_next = uid_next + 1 WHERE id = ? RETURNING uid_next - 1 AS uid, * ",
      id,
    );
    return r ? { uid: r.uid as number, inbox: inboxFromRow(r) } : null;
  }

  async mailboxStatus(id: string): Promise<MailboxStatus | null> {
    const r = this.c.get<{ uid_validity: number; uid_next: number; n: number; unseen: number; max_uid: number | null }>(
      // The counters the triggers keep (migrations/0002_mail.ts), not a count of a million rows.
      `SELECT i.uid_validity, i.uid_next, i.message_count AS n, i.unread_count AS unseen,
              (SELECT MAX(uid) FROM messages m WHERE m.inbox_id = i.id AND m.mailbox_id IS NULL) AS max_uid
       FROM inboxes i WHERE i.id = ?`,
      id,
    );
    return r ? { uidValidity: r.uid_validity, uidNext: r.uid_next, messages: r.n, unseen: r.unseen, maxUid: r.max_uid } : null;
  }

  async deleteInProject(projectId: string, id: string) {
    const keys = [
      ...this.c.all<{ blob_key: string }>("SELECT blob_key FROM messages WHERE inbox_id = ?", id),
      ...this.c.all<{ blob_key: string }>(
        "SELECT a.blob_key FROM attachments a JOIN messages m ON m.id = a.message_id WHERE m.inbox_id = ?",
        id,
      ),
    ].map((r) => r.blob_key);
    return this.c.run("DELETE FROM inboxes WHERE id = ? AND project_id = ?", id, projectId).changes > 0 ? keys : null;
  }

  async expired(now: string, limit: number) {
    return this.c.all<ExpiredInbox>(
      "SELECT id, project_id, address, expires_at FROM inboxes WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?",
      now,
      limit,
    );
  }

  async claimExpiring(now: string, leadDays: number) {
    return this.c
      .all<Record<string, any>>(
        `UPDATE inboxes SET expiring_alerted_at = ?1
         WHERE expires_at IS NOT NULL AND expiring_alerted_at IS NULL AND expires_at > ?1
           AND julianday(expires_at) - julianday(?1) <= MIN(?2, 0.2 * (julianday(expires_at) - julianday(created_at)))
         RETURNING *`,
        now,
        leadDays,
      )
      .map(inboxFromRow);
  }
}

class SqliteInboxWatches implements InboxWatchRepository {
  constructor(private readonly c: SqliteConnection) {}

  async add(w: { inboxId: string; deviceSessionId: string; userId: string; createdAt: string }) {
    this.c.run(
      "INSERT OR IGNORE INTO inbox_watches (inbox_id, device_session_id, user_id, created_at) VALUES (?, ?, ?, ?)",
      w.inboxId,
      w.deviceSessionId,
      w.userId,
      w.createdAt,
    );
  }

  async remove(inboxId: string, deviceSessionId: string) {
    this.c.run("DELETE FROM inbox_watches WHERE inbox_id = ? AND device_session_id = ?", inboxId, deviceSessionId);
  }

  async watchedAmong(deviceSessionId: string, inboxIds: string[]) {
    if (inboxIds.length === 0) return [];
    return this.c
      .all<{ inbox_id: string }>(
        "SELECT inbox_id FROM inbox_watches WHERE device_session_id = ? AND inbox_id IN (SELECT value FROM json_each(?))",
        deviceSessionId,
        JSON.stringify(inboxIds),
      )
      .map((r) => r.inbox_id);
  }

  async watcherUserIds(inboxId: string) {
    return this.c.all<{ user_id: string }>("SELECT DISTINCT user_id FROM inbox_watches WHERE inbox_id = ?", inboxId).map((r) => r.user_id);
  }
}

interface ChaosRow {
  inbox_id: string;
  stage: "rcpt" | "data";
  code: number;
  message: string | null;
  rate: number;
  delay_ms: number;
}

const chaosRule = (r: ChaosRow): ChaosRuleRecord => ({
  stage: r.stage,
  code: r.code,
  message: r.message,
  rate: r.rate,
  delayMs: r.delay_ms,
});

class SqliteInboxChaos implements InboxChaosRepository {
  constructor(private readonly c: SqliteConnection) {}

  async ofInbox(inboxId: string) {
    return this.c
      .all<ChaosRow>(
        "SELECT inbox_id, stage, code, message, rate, delay_ms FROM inbox_chaos_rules WHERE inbox_id = ? ORDER BY position",
        inboxId,
      )
      .map(chaosRule);
  }

  async replace(inboxId: string, rules: ChaosRuleRecord[], createdAt: string) {
    this.c.run("DELETE FROM inbox_chaos_rules WHERE inbox_id = ?", inboxId);
    rules.forEach((r, i) =>
      this.c.run(
        "INSERT INTO inbox_chaos_rules (inbox_id, position, stage, code, message, rate, delay_ms, created_at) VALUES (?,?,?,?,?,?,?,?)",
        inboxId,
        i,
        r.stage,
        r.code,
        r.message,
        r.rate,
        r.delayMs,
        createdAt,
      ),
    );
  }

  async clear(inboxId: string) {
    return this.c.run("DELETE FROM inbox_chaos_rules WHERE inbox_id = ?", inboxId).changes > 0;
  }
}

class SqliteSmtpChaos implements SmtpChaosRepository {
  constructor(private readonly c: SqliteConnection) {}

  async list() {
    return this.c
      .all<{ code: 421 | 554 | null; message: string | null; rate: number; delay_ms: number }>(
        "SELECT code, message, rate, delay_ms FROM smtp_chaos_rules ORDER BY position",
      )
      .map((r): SmtpChaosRuleRecord => ({ stage: "connect", code: r.code, message: r.message, rate: r.rate, delayMs: r.delay_ms }));
  }

  async replace(rules: SmtpChaosRuleRecord[], createdAt: string) {
    this.c.run("DELETE FROM smtp_chaos_rules");
    rules.forEach((r, i) =>
      this.c.run(
        "INSERT INTO smtp_chaos_rules (position, stage, code, message, rate, delay_ms, created_at) VALUES (?,?,?,?,?,?,?)",
        i,
        r.stage,
        r.code,
        r.message,
        r.rate,
        r.delayMs,
        createdAt,
      ),
    );
  }

  async clear() {
    this.c.run("DELETE FROM smtp_chaos_rules");
  }
}

class SqliteMessages implements MessageRepository {
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
    // A compressed body (text_z, html_z) is out of LIKE's reach: such a row that the SQL test did
    // not keep is tested here, on text + "\n" + HTML as BODY_SQL does, with LIKE's
    // case-insensitivity (ASCII letters only).
    const bodyField = key.field === "body" || key.field === "text";
    const cols = bodyField
      ? `m.uid, (${check}) AS hit, m.text_body AS t, m.text_z AS tz, m.html_body AS h, m.html_z AS hz`
      : "m.uid, 1 AS hit";
    const where = bodyField ? `((${check}) OR m.text_z IS NOT NULL OR m.html_z IS NOT NULL)` : `(${check})`;
    const colParams = bodyField ? params : [];
    type Row = { uid: number; hit: number; t?: string | null; tz?: Uint8Array | null; h?: string | null; hz?: Uint8Array | null };
    const keep = (rows: Row[]) => {
      const needle = asciiLower(key.value);
      const body = (r: Row) => `${bodyOf(r.t ?? null, r.tz ?? null) ?? ""}\n${bodyOf(r.h ?? null, r.hz ?? null) ?? ""}`;
      return rows.filter((r) => r.hit || asciiLower(body(r)).includes(needle)).map((r) => r.uid);
    };
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

// -- Search: the AST of src/storage/mail.ts as SQL (docs/search.md) ---------------------------------
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

/** IMAP SEARCH text keys: the index column that holds the field's words (null: every column; absent: none). */
const FTS_COLUMN: Record<string, string | null> = {
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
const ANY_HEADER_SQL = `EXISTS (SELECT 1 FROM json_each(m.headers) h WHERE json_extract(h.value, '$.value') ${LIKE_Q})`;

/** The substring test of one IMAP text key, with its parameters in order. */
function imapTextTest(key: ImapTextKey): { sql: string; params: string[] } {
  const v = likeArg(key.value);
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
/** What SQLite's LIKE folds: ASCII letters only. */
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

type Params = Array<string | number>;
/** From this many full-text matches on, a list query tests rows one by one instead of collecting the matches. */
const COMMON_MATCHES = 2000;
type FtsMode = "index" | "per-row";

/** An FTS5 string literal (nothing inside is syntax). */
const ftsString = (v: string) => `"${v.replace(/"/g, '""')}"`;
const ftsTerm = (t: { value: string; prefix: boolean }) => (t.prefix ? `${ftsString(t.value)} *` : ftsString(t.value));
const likeArg = (v: string) => `%${v.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const LIKE = "LIKE ? ESCAPE '\\'";

function scopeOf(s: MessageSearch): { sql: string; params: Params } {
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
function searchWhere(
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

class SqliteAttachments implements AttachmentRepository {
  constructor(private readonly c: SqliteConnection) {}

  async ofMessages(messageIds: string[]) {
    if (messageIds.length === 0) return [];
    if (messageIds.length === 1) {
      return this.c.all<AttachmentRecord>("SELECT * FROM attachments WHERE message_id = ? ORDER BY position", messageIds[0]!);
    }
    return this.c.all<AttachmentRecord>(
      "SELECT * FROM attachments WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY message_id, position",
      JSON.stringify(messageIds),
    );
  }

  async byId(messageId: string, id: string) {
    return this.c.get<AttachmentRecord>("SELECT * FROM attachments WHERE id = ? AND message_id = ?", id, messageId);
  }

  async insert(records: AttachmentRecord[]) {
    for (const a of records) {
      this.c.run(
        `INSERT INTO attachments (id, message_id, position, filename, declared_content_type, served_content_type,
           disposition, content_id, size_bytes, sha256, blob_key) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
        a.id,
        a.message_id,
        a.position,
        a.filename,
        a.declared_content_type,
        a.served_content_type,
        a.disposition,
        a.content_id,
        a.size_bytes,
        a.sha256,
        a.blob_key,
      );
    }
  }
}

class SqliteBlobRefs implements BlobRefRepository {
  constructor(private readonly c: SqliteConnection) {}

  async isReferenced(key: string) {
    return (
      this.c.get<{ used: number }>(
        "SELECT EXISTS(SELECT 1 FROM messages WHERE blob_key = ?1) OR EXISTS(SELECT 1 FROM attachments WHERE blob_key = ?1) AS used",
        key,
      )!.used !== 0
    );
  }
}

export function sqliteMailRepositories(c: SqliteConnection): MailRepositories {
  return {
    inboxes: new SqliteInboxes(c),
    inboxWatches: new SqliteInboxWatches(c),
    inboxChaos: new SqliteInboxChaos(c),
    smtpChaos: new SqliteSmtpChaos(c),
    messages: new SqliteMessages(c),
    attachments: new SqliteAttachments(c),
    blobRefs: new SqliteBlobRefs(c),
    messageAuth: new SqliteMessageAuth(c),
  };
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
