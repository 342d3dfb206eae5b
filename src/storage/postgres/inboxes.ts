// PostgreSQL implementation of the inbox repositories of the mail capability (src/storage/mail.ts:
// inboxes, their watches and chaos rules), the SQLite ones (../sqlite/inboxes.ts) statement for
// statement. Messages, attachments, blob references and auth checks follow (docs/scaling.md).
//
// takeUid is the IMAP UID allocator: the UPDATE's row lock lives until the transaction ends, so
// across nodes an inbox's UIDs are handed out, and committed, strictly in order.
import type {
  ChaosRuleRecord,
  ExpiredInbox,
  InboxChaosRepository,
  SmtpChaosRepository,
  SmtpChaosRuleRecord,
  InboxPatch,
  InboxRecord,
  InboxRepository,
  InboxWatchRepository,
  MailboxStatus,
  MailRepositories,
} from "../mail";
import type { PgClient } from "./connection";
import { inboxFromPgRow, num, type Row, teamUsedBytesSql } from "./rows";

const orNull = (r: Row | null) => (r ? inboxFromPgRow(r) : null);

async function takeFolderUid(c: PgClient, inboxId: string, folderId: string): Promise<number | null> {
  const r = await c.row<{ uid: string }>(
    "UPDATE imap_mailboxes SET uid_next = uid_next + 1 WHERE id = $1 AND inbox_id = $2 RETURNING uid_next - 1 AS uid",
    folderId,
    inboxId,
  );
  return r ? num(r.uid) : null;
}

/**
 * The next UID of a mailbox of the inbox (null: INBOX, the inbox's counter; else the mailbox's own,
 * migration 0029), or null when it is gone. The counter row's lock lives until COMMIT, so a
 * mailbox's UIDs commit in order across nodes. Lock order inbox row, then mailbox row, as 0028's
 * modseq trigger and the counter triggers take them: otherwise a COPY and a STORE deadlock.
 */
/**
 * Locks inbox rows until COMMIT, in id order; how many exist. The one lock order of an inbox's
 * writers: its row before any of its messages' rows. The counters' and modseq triggers (0028) take
 * the row too, but at the first message they change: a flag change, a deletion or a move then held
 * the inbox while it waited for message rows another writer of the inbox held, and that one waited
 * for the inbox (a cycle PostgreSQL breaks after a second), with every delivery to the inbox, which
 * needs the row for its UID, queued behind (bench/mixed-stress.ts). Taken first, a writer waits its
 * turn holding nothing. In id order, two writers of several inboxes queue on the first shared one.
 */
export async function lockInboxRows(c: PgClient, ids: string[]): Promise<number> {
  const locked = await c.rows("SELECT 1 FROM inboxes WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE", [...new Set(ids)]);
  return locked.length;
}

export async function takeMailboxUid(c: PgClient, inboxId: string, folderId: string | null): Promise<number | null> {
  if (folderId === null) {
    const r = await c.row<{ uid: string }>(
      "UPDATE inboxes SET uid_next = uid_next + 1 WHERE id = $1 RETURNING uid_next - 1 AS uid",
      inboxId,
    );
    return r ? num(r.uid) : null;
  }
  if ((await lockInboxRows(c, [inboxId])) === 0) return null;
  return takeFolderUid(c, inboxId, folderId);
}

class PgInboxes implements InboxRepository {
  constructor(private readonly c: PgClient) {}

  async byId(id: string) {
    return orNull(await this.c.row("SELECT * FROM inboxes WHERE id = $1", id));
  }

  async inProject(projectId: string, id: string) {
    return orNull(await this.c.row("SELECT * FROM inboxes WHERE id = $1 AND project_id = $2", id, projectId));
  }

  async byAddress(address: string) {
    return orNull(await this.c.row("SELECT * FROM inboxes WHERE address = $1", address));
  }

  async listInProject(projectId: string, before: string | null, limit: number, type: InboxRecord["type"] | null = null) {
    // The catch-all flag is a column of its own; the type column says "persistent" for it.
    const storedType = type === "catch_all" ? null : type;
    const catchAll = type === null ? null : type === "catch_all" ? 1 : 0;
    const rows = await this.c.rows<Row>(
      `SELECT * FROM inboxes WHERE project_id = $1 AND id < $2 AND ($3::text IS NULL OR type = $3) AND ($4::int IS NULL OR catch_all = $4)
        ORDER BY id DESC LIMIT $5`,
      projectId,
      before ?? "~",
      storedType,
      catchAll,
      limit,
    );
    return rows.map(inboxFromPgRow);
  }

  async listAll(before: string | null, limit: number) {
    const rows = await this.c.rows<Row>("SELECT * FROM inboxes WHERE id < $1 ORDER BY id DESC LIMIT $2", before ?? "~", limit);
    return rows.map(inboxFromPgRow);
  }

  async countForTeam(teamId: string) {
    const r = await this.c.row<{ n: string }>(
      "SELECT COUNT(*) AS n FROM inboxes i JOIN projects p ON p.id = i.project_id WHERE p.team_id = $1 AND i.catch_all = 0",
      teamId,
    );
    return num(r!.n);
  }

  async teamUsedBytes(teamId: string) {
    const r = await this.c.row<{ used_bytes: string }>(`SELECT ${teamUsedBytesSql("$1")} AS used_bytes`, teamId);
    return r ? num(r.used_bytes) : 0;
  }

  async catchAll() {
    return orNull(await this.c.row("SELECT * FROM inboxes WHERE catch_all = 1"));
  }

  async insert(r: InboxRecord) {
    await this.c.run(
      `INSERT INTO inboxes (id, project_id, address, local_part, domain, domain_id, name, type, status, password_enc,
         uid_validity, uid_next, expires_at, expiring_alerted_at, created_by_session, message_count, unread_count,
         used_bytes, created_at, catch_all)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)`,
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
    const has = (k: keyof InboxPatch) => k in patch && patch[k] !== undefined;
    await this.c.run(
      `UPDATE inboxes SET name = CASE WHEN $2 THEN $3 ELSE name END, expires_at = CASE WHEN $4 THEN $5 ELSE expires_at END,
         expiring_alerted_at = CASE WHEN $6 THEN $7 ELSE expiring_alerted_at END
       WHERE id = $1`,
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
    await this.c.run("UPDATE inboxes SET password_enc = $1 WHERE id = $2", passwordEnc, id);
  }

  async lockForDelivery(ids: string[]) {
    // In id order: two groups sharing inboxes queue on the first shared one instead of each holding
    // one the other waits for (a deadlock PostgreSQL breaks after 1 s by aborting one group, every
    // delivery of it refused). One inbox: takeUid's UPDATE takes the same lock.
    if (new Set(ids).size > 1) await lockInboxRows(this.c, ids);
  }

  async takeUid(id: string, folderId: string | null = null) {
    if (folderId !== null) {
      // Another mailbox's own counter (migration 0029), taken after the inbox row's lock (the
      // lock order of every writer, see takeMailboxUid); the inbox row is read under that lock.
      const inbox = await this.c.row<Row>("SELECT * FROM inboxes WHERE id = $1 FOR NO KEY UPDATE", id);
      const uid = inbox && (await takeFolderUid(this.c, id, folderId));
      return inbox && uid ? { uid, inbox: inboxFromPgRow(inbox) } : null;
    }
    const r = await this.c.row<Row>("UPDATE inboxes SET uid_next = uid_next + 1 WHERE id = $1 RETURNING uid_next - 1 AS uid, *", id);
    return r ? { uid: num(r.uid), inbox: inboxFromPgRow(r) } : null;
  }

  async mailboxStatus(id: string): Promise<MailboxStatus | null> {
    const r = await this.c.row<Row>(
      // The counters the triggers keep (migrations/0025_baseline.ts), not a count of a million rows.
      `SELECT i.uid_validity, i.uid_next, i.message_count AS n, i.unread_count AS unseen,
              (SELECT MAX(uid) FROM messages m WHERE m.inbox_id = i.id AND m.mailbox_id IS NULL) AS max_uid
       FROM inboxes i WHERE i.id = $1`,
      id,
    );
    return r
      ? { uidValidity: num(r.uid_validity), uidNext: num(r.uid_next), messages: r.n, unseen: r.unseen, maxUid: r.max_uid ?? null }
      : null;
  }

  async deleteInProject(projectId: string, id: string) {
    const keys = [
      ...(await this.c.rows<{ blob_key: string }>("SELECT blob_key FROM messages WHERE inbox_id = $1", id)),
      ...(await this.c.rows<{ blob_key: string }>(
        "SELECT a.blob_key FROM attachments a JOIN messages m ON m.id = a.message_id WHERE m.inbox_id = $1",
        id,
      )),
    ].map((r) => r.blob_key);
    return (await this.c.run("DELETE FROM inboxes WHERE id = $1 AND project_id = $2", id, projectId)) > 0 ? keys : null;
  }

  async expired(now: string, limit: number) {
    return this.c.rows<ExpiredInbox>(
      "SELECT id, project_id, address, expires_at FROM inboxes WHERE expires_at IS NOT NULL AND expires_at <= $1 ORDER BY expires_at LIMIT $2",
      now,
      limit,
    );
  }

  async claimExpiring(now: string, leadDays: number) {
    // SQLite's julianday differences, as seconds over 86,400. Two nodes claiming at once: the
    // second waits on the row, re-checks expiring_alerted_at IS NULL and skips it.
    const rows = await this.c.rows<Row>(
      `UPDATE inboxes SET expiring_alerted_at = $1
       WHERE expires_at IS NOT NULL AND expiring_alerted_at IS NULL AND expires_at > $1
         AND EXTRACT(EPOCH FROM expires_at::timestamptz - $1::timestamptz) / 86400
             <= LEAST($2::float8, 0.2 * EXTRACT(EPOCH FROM expires_at::timestamptz - created_at::timestamptz) / 86400)
       RETURNING *`,
      now,
      leadDays,
    );
    return rows.map(inboxFromPgRow);
  }
}

class PgInboxWatches implements InboxWatchRepository {
  constructor(private readonly c: PgClient) {}

  async add(w: { inboxId: string; deviceSessionId: string; userId: string; createdAt: string }) {
    await this.c.run(
      "INSERT INTO inbox_watches (inbox_id, device_session_id, user_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
      w.inboxId,
      w.deviceSessionId,
      w.userId,
      w.createdAt,
    );
  }

  async remove(inboxId: string, deviceSessionId: string) {
    await this.c.run("DELETE FROM inbox_watches WHERE inbox_id = $1 AND device_session_id = $2", inboxId, deviceSessionId);
  }

  async watchedAmong(deviceSessionId: string, inboxIds: string[]) {
    if (inboxIds.length === 0) return [];
    const rows = await this.c.rows<{ inbox_id: string }>(
      "SELECT inbox_id FROM inbox_watches WHERE device_session_id = $1 AND inbox_id = ANY($2::text[])",
      deviceSessionId,
      inboxIds,
    );
    return rows.map((r) => r.inbox_id);
  }

  async watcherUserIds(inboxId: string) {
    const rows = await this.c.rows<{ user_id: string }>("SELECT DISTINCT user_id FROM inbox_watches WHERE inbox_id = $1", inboxId);
    return rows.map((r) => r.user_id);
  }
}

class PgInboxChaos implements InboxChaosRepository {
  constructor(private readonly c: PgClient) {}

  async ofInbox(inboxId: string) {
    const rows = await this.c.rows<Row>(
      "SELECT stage, code, message, rate, delay_ms FROM inbox_chaos_rules WHERE inbox_id = $1 ORDER BY position",
      inboxId,
    );
    return rows.map((r): ChaosRuleRecord => ({ stage: r.stage, code: r.code, message: r.message, rate: r.rate, delayMs: r.delay_ms }));
  }

  async replace(inboxId: string, rules: ChaosRuleRecord[], createdAt: string) {
    await this.c.run("DELETE FROM inbox_chaos_rules WHERE inbox_id = $1", inboxId);
    for (const [i, r] of rules.entries()) {
      await this.c.run(
        "INSERT INTO inbox_chaos_rules (inbox_id, position, stage, code, message, rate, delay_ms, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        inboxId,
        i,
        r.stage,
        r.code,
        r.message,
        r.rate,
        r.delayMs,
        createdAt,
      );
    }
  }

  async clear(inboxId: string) {
    return (await this.c.run("DELETE FROM inbox_chaos_rules WHERE inbox_id = $1", inboxId)) > 0;
  }
}

class PgSmtpChaos implements SmtpChaosRepository {
  constructor(private readonly c: PgClient) {}

  async list() {
    const rows = await this.c.rows<Row>("SELECT code, message, rate, delay_ms FROM smtp_chaos_rules ORDER BY position");
    return rows.map(
      (r): SmtpChaosRuleRecord => ({ stage: "connect", code: r.code, message: r.message, rate: r.rate, delayMs: r.delay_ms }),
    );
  }

  async replace(rules: SmtpChaosRuleRecord[], createdAt: string) {
    await this.c.run("DELETE FROM smtp_chaos_rules");
    for (const [i, r] of rules.entries()) {
      await this.c.run(
        "INSERT INTO smtp_chaos_rules (position, stage, code, message, rate, delay_ms, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        i,
        r.stage,
        r.code,
        r.message,
        r.rate,
        r.delayMs,
        createdAt,
      );
    }
  }

  async clear() {
    await this.c.run("DELETE FROM smtp_chaos_rules");
  }
}

export function postgresInboxRepositories(c: PgClient): Pick<MailRepositories, "inboxes" | "inboxWatches" | "inboxChaos" | "smtpChaos"> {
  return { inboxes: new PgInboxes(c), inboxWatches: new PgInboxWatches(c), inboxChaos: new PgInboxChaos(c), smtpChaos: new PgSmtpChaos(c) };
}
