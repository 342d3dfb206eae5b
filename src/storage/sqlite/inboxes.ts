// SQLite implementation of the inbox repositories of the mail capability (src/storage/mail.ts:
// inboxes, their watches and chaos rules). The counters (message_count, unread_count, used_bytes)
// are kept by triggers (migrations/0002_mail.ts).
import type {
  ChaosRuleRecord,
  ExpiredInbox,
  InboxChaosRepository,
  InboxPatch,
  InboxRecord,
  InboxRepository,
  InboxWatchRepository,
  MailboxStatus,
  SmtpChaosRepository,
  SmtpChaosRuleRecord,
} from "../mail";
import { inboxFromRow } from "../row-records";
import type { SqliteConnection } from "./connection";

const orNull = (r: Record<string, any> | null) => (r ? inboxFromRow(r) : null);

export class SqliteInboxes implements InboxRepository {
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

export class SqliteInboxWatches implements InboxWatchRepository {
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

export class SqliteInboxChaos implements InboxChaosRepository {
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

export class SqliteSmtpChaos implements SmtpChaosRepository {
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
