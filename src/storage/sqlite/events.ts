// SQLite implementation of the events repositories (src/storage/events.ts).
import type {
  AlertFilter,
  AlertRecord,
  AlertRepository,
  AttemptRecord,
  DeliveryOutcome,
  DeliveryRecord,
  DispatchState,
  EventLogRepository,
  EventRecord,
  EventsRepositories,
  NewClaimedDelivery,
  NewDelivery,
  StoredEvent,
  WebhookDeliveryRepository,
  WebhookFilter,
  WebhookRecord,
  WebhookRepository,
} from "../events";
import { ALERT_COALESCE, ALERT_COLUMNS, alertValues } from "../events";
import type { SqliteConnection } from "./connection";

class SqliteEventLog implements EventLogRepository {
  constructor(private readonly c: SqliteConnection) {}

  async append(e: EventRecord): Promise<number> {
    // seq is the rowid (INTEGER PRIMARY KEY): run() reports it without a RETURNING row.
    const r = this.c.run(
      "INSERT INTO events (id, project_id, type, inbox_id, user_id, data, occurred_at, message_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      e.id,
      e.projectId,
      e.type,
      e.inboxId,
      e.userId,
      e.data,
      e.occurredAt,
      e.messageId ?? null,
    );
    return Number(r.lastInsertRowid);
  }

  async lastSeq(projectId: string): Promise<number> {
    return this.c.get<{ s: number | null }>("SELECT MAX(seq) AS s FROM events WHERE project_id = ?", projectId)?.s ?? 0;
  }

  async after(projectId: string, seq: number, userId: string | null, limit: number): Promise<StoredEvent[]> {
    return this.c.all<StoredEvent>(
      `SELECT seq, id, type, data, occurred_at FROM events
         WHERE project_id = ? AND seq > ? AND (user_id IS NULL OR user_id = ?) ORDER BY seq LIMIT ?`,
      projectId,
      seq,
      userId ?? "",
      limit,
    );
  }

  async byId(id: string): Promise<StoredEvent | null> {
    return this.c.get<StoredEvent>("SELECT seq, id, type, data, occurred_at FROM events WHERE id = ?", id);
  }

  async prune(before: string, limit: number): Promise<number> {
    return this.c.run("DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE occurred_at < ? LIMIT ?)", before, limit).changes;
  }
}

class SqliteWebhooks implements WebhookRepository {
  constructor(private readonly c: SqliteConnection) {}

  async insert(r: WebhookRecord): Promise<WebhookRecord> {
    return this.c.get<WebhookRecord>(
      `INSERT INTO webhooks (id, project_id, url, description, event_types, inbox_id, enabled, secret_enc, previous_secret_enc,
         previous_expires_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      r.id,
      r.project_id,
      r.url,
      r.description,
      r.event_types,
      r.inbox_id,
      r.enabled,
      r.secret_enc,
      r.previous_secret_enc,
      r.previous_expires_at,
      r.created_at,
      r.updated_at,
    )!;
  }

  async byId(id: string): Promise<WebhookRecord | null> {
    return this.c.get<WebhookRecord>("SELECT * FROM webhooks WHERE id = ?", id);
  }

  async inProject(projectId: string, id: string): Promise<WebhookRecord | null> {
    return this.c.get<WebhookRecord>("SELECT * FROM webhooks WHERE id = ? AND project_id = ?", id, projectId);
  }

  async listInProject(projectId: string, before: string, limit: number): Promise<WebhookRecord[]> {
    return this.c.all<WebhookRecord>(
      "SELECT * FROM webhooks WHERE project_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
      projectId,
      before,
      limit,
    );
  }

  async update(
    id: string,
    f: Pick<WebhookRecord, "url" | "event_types" | "inbox_id" | "description" | "enabled" | "updated_at">,
  ): Promise<void> {
    this.c.run(
      "UPDATE webhooks SET url = ?, event_types = ?, inbox_id = ?, description = ?, enabled = ?, updated_at = ? WHERE id = ?",
      f.url,
      f.event_types,
      f.inbox_id,
      f.description,
      f.enabled,
      f.updated_at,
      id,
    );
  }

  async deleteInProject(projectId: string, id: string): Promise<boolean> {
    return this.c.run("DELETE FROM webhooks WHERE id = ? AND project_id = ?", id, projectId).changes > 0;
  }

  async rotateSecret(
    id: string,
    secretEnc: string,
    previousSecretEnc: string,
    previousExpiresAt: string,
    updatedAt: string,
  ): Promise<WebhookRecord> {
    return this.c.get<WebhookRecord>(
      "UPDATE webhooks SET secret_enc = ?, previous_secret_enc = ?, previous_expires_at = ?, updated_at = ? WHERE id = ? RETURNING *",
      secretEnc,
      previousSecretEnc,
      previousExpiresAt,
      updatedAt,
      id,
    )!;
  }

  async enabledInProject(projectId: string): Promise<WebhookFilter[]> {
    return this.c.all<WebhookFilter>("SELECT id, event_types, inbox_id FROM webhooks WHERE project_id = ? AND enabled = 1", projectId);
  }

  async dispatchStates(): Promise<DispatchState[]> {
    return this.c.all<DispatchState>("SELECT id, consecutive_failures, circuit_open_until FROM webhooks WHERE enabled = 1 AND paused = 0");
  }

  async dispatchState(id: string): Promise<DispatchState | null> {
    return this.c.get<DispatchState>(
      "SELECT id, consecutive_failures, circuit_open_until FROM webhooks WHERE id = ? AND enabled = 1 AND paused = 0",
      id,
    );
  }

  async recordSuccess(id: string, at: string): Promise<void> {
    this.c.run("UPDATE webhooks SET consecutive_failures = 0, circuit_open_until = 0, last_success_at = ? WHERE id = ?", at, id);
  }

  async recordFailure(id: string, at: string): Promise<number> {
    return (
      this.c.get<{ n: number }>(
        "UPDATE webhooks SET consecutive_failures = consecutive_failures + 1, last_failure_at = ? WHERE id = ? RETURNING consecutive_failures AS n",
        at,
        id,
      )?.n ?? 0
    );
  }

  async setPaused(projectId: string, id: string, paused: boolean, updatedAt: string): Promise<WebhookRecord | null> {
    return this.c.get<WebhookRecord>(
      paused
        ? "UPDATE webhooks SET paused = 1, updated_at = ? WHERE id = ? AND project_id = ? RETURNING *"
        : "UPDATE webhooks SET paused = 0, circuit_open_until = 0, consecutive_failures = 0, updated_at = ? WHERE id = ? AND project_id = ? RETURNING *",
      updatedAt,
      id,
      projectId,
    );
  }

  async setCircuit(id: string, openUntil: number, consecutiveFailures?: number): Promise<void> {
    if (consecutiveFailures === undefined) this.c.run("UPDATE webhooks SET circuit_open_until = ? WHERE id = ?", openUntil, id);
    else
      this.c.run("UPDATE webhooks SET circuit_open_until = ?, consecutive_failures = ? WHERE id = ?", openUntil, consecutiveFailures, id);
  }
}

/**
 * Runs a write of the dispatcher's own bookkeeping (claims) without the per-commit fsync (WAL +
 * synchronous=NORMAL: durable across a process crash, not a power cut). Losing one to a power cut
 * only means a try is made again, which at-least-once delivery allows, and it halves the fsyncs
 * that compete with ingest for the write lock. Inside a transaction the commit decides.
 */
function relaxed<T>(c: SqliteConnection, fn: () => T): T {
  if (c.open || c.db.inTransaction) return fn();
  const prev = c.get<{ synchronous: number }>("PRAGMA synchronous")!.synchronous;
  c.db.exec("PRAGMA synchronous = NORMAL");
  try {
    return fn();
  } finally {
    c.db.exec(`PRAGMA synchronous = ${prev}`);
  }
}

class SqliteWebhookDeliveries implements WebhookDeliveryRepository {
  constructor(private readonly c: SqliteConnection) {}

  async enqueue(rows: NewDelivery[]): Promise<void> {
    for (const r of rows) {
      const seq = this.c.get<{ seq: number }>(
        "UPDATE webhooks SET delivery_seq = delivery_seq + 1 WHERE id = ? RETURNING delivery_seq AS seq",
        r.webhookId,
      )!.seq;
      this.c.run(
        `INSERT INTO webhook_deliveries (id, webhook_id, project_id, event_id, event_type, order_key, status, max_attempts, next_attempt_at, created_at, seq)
         VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)`,
        r.id,
        r.webhookId,
        r.projectId,
        r.eventId,
        r.eventType,
        r.orderKey,
        r.maxAttempts,
        r.nextAttemptAt,
        r.createdAt,
        seq,
      );
    }
  }

  async insertClaimed(r: NewClaimedDelivery): Promise<DeliveryRecord> {
    return this.c.get<DeliveryRecord>(
      `INSERT INTO webhook_deliveries (id, webhook_id, project_id, event_id, event_type, order_key, payload, status, max_attempts,
         next_attempt_at, claimed_until, claimed_by, created_at)
       VALUES (?, ?, ?, NULL, ?, ?, ?, 'pending', ?, ?, ?, ?, ?) RETURNING *`,
      r.id,
      r.webhookId,
      r.projectId,
      r.eventType,
      r.orderKey,
      r.payload,
      r.maxAttempts,
      r.nextAttemptAt,
      r.claimedUntil,
      r.claimedBy,
      r.createdAt,
    )!;
  }

  async inWebhook(projectId: string, webhookId: string, id: string): Promise<DeliveryRecord | null> {
    return this.c.get<DeliveryRecord>(
      "SELECT * FROM webhook_deliveries WHERE id = ? AND webhook_id = ? AND project_id = ?",
      id,
      webhookId,
      projectId,
    );
  }

  async listForWebhook(webhookId: string, status: string | null, before: string, limit: number): Promise<DeliveryRecord[]> {
    return this.c.all<DeliveryRecord>(
      "SELECT * FROM webhook_deliveries WHERE webhook_id = ? AND id < ? AND (? IS NULL OR status = ?) ORDER BY id DESC LIMIT ?",
      webhookId,
      before,
      status,
      status,
      limit,
    );
  }

  async attempts(deliveryId: string): Promise<AttemptRecord[]> {
    return this.c.all<AttemptRecord>(
      "SELECT attempt, started_at, duration_ms, status_code, ok, error, response_excerpt FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt",
      deliveryId,
    );
  }

  async claim(workerId: string, webhookId: string, now: number, until: number, limit: number): Promise<DeliveryRecord[]> {
    // Walks webhook_deliveries_pending from the earliest due; rows skipped for a live claim are
    // at most the tries in flight.
    const sql = `UPDATE webhook_deliveries SET claimed_until = ?1, claimed_by = ?2
       WHERE id IN (
         SELECT id FROM webhook_deliveries
         WHERE webhook_id = ?3 AND status = 'pending' AND next_attempt_at <= ?4 AND claimed_until <= ?4
           AND EXISTS (SELECT 1 FROM webhooks WHERE id = ?3 AND enabled = 1 AND paused = 0)
         ORDER BY next_attempt_at LIMIT ?5)
       RETURNING *`;
    const rows = relaxed(this.c, () => this.c.all<DeliveryRecord>(sql, until, workerId, webhookId, now, limit));
    return rows.sort((a, b) => a.next_attempt_at - b.next_attempt_at || (a.id < b.id ? -1 : 1));
  }

  async release(workerId: string, ids: string[]): Promise<void> {
    relaxed(this.c, () =>
      this.c.run(
        "UPDATE webhook_deliveries SET claimed_until = 0, claimed_by = NULL WHERE claimed_by = ? AND id IN (SELECT value FROM json_each(?))",
        workerId,
        JSON.stringify(ids),
      ),
    );
  }

  async nextDue(webhookId: string): Promise<number | null> {
    // The earliest rows by next_attempt_at; a claimed one counts from its lapse. Claims are few
    // (the tries in flight), so the head of the index holds the answer.
    const rows = this.c.all<{ n: number; c: number }>(
      `SELECT next_attempt_at AS n, claimed_until AS c FROM webhook_deliveries
        WHERE webhook_id = ? AND status = 'pending' ORDER BY next_attempt_at LIMIT 64`,
      webhookId,
    );
    let due: number | null = null;
    for (const r of rows) {
      const t = Math.max(r.n, r.c);
      if (due === null || t < due) due = t;
    }
    return due;
  }

  async pendingCount(webhookId: string): Promise<number> {
    return this.c.get<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending'", webhookId)!
      .n;
  }

  async redeliver(id: string, now: number): Promise<DeliveryRecord | null> {
    return this.c.get<DeliveryRecord>(
      `UPDATE webhook_deliveries SET status = 'pending', max_attempts = attempts + 1, next_attempt_at = ?, completed_at = NULL,
              claimed_until = 0, claimed_by = NULL
        WHERE id = ? AND status <> 'pending' RETURNING *`,
      now,
      id,
    );
  }

  async record(d: Pick<DeliveryRecord, "id" | "claimed_by" | "attempts">, o: DeliveryOutcome): Promise<boolean> {
    const changed = this.c.run(
      `UPDATE webhook_deliveries SET attempts = ?, status = ?, next_attempt_at = ?, claimed_until = 0, claimed_by = NULL,
             last_status_code = ?, last_error = ?, completed_at = ?
           WHERE id = ? AND claimed_by = ? AND attempts = ?`,
      o.attempt,
      o.status,
      o.nextAttemptAt,
      o.statusCode,
      o.error,
      o.completedAt,
      d.id,
      d.claimed_by,
      d.attempts,
    ).changes;
    if (changed === 0) return false;
    this.c.run(
      `INSERT INTO webhook_attempts (id, delivery_id, attempt, started_at, duration_ms, status_code, ok, error, response_excerpt)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      o.attemptId,
      d.id,
      o.attempt,
      o.startedAt,
      o.durationMs,
      o.statusCode,
      o.ok ? 1 : 0,
      o.error,
      o.excerpt,
    );
    return true;
  }

  async prune(before: string, limit: number): Promise<number> {
    return this.c.run(
      "DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE completed_at IS NOT NULL AND completed_at < ? LIMIT ?)",
      before,
      limit,
    ).changes;
  }
}

class SqliteAlerts implements AlertRepository {
  constructor(private readonly c: SqliteConnection) {}

  async raise(r: AlertRecord): Promise<{ row: AlertRecord; created: boolean }> {
    const row = this.c.get<AlertRecord>(
      `INSERT INTO alerts (${ALERT_COLUMNS})
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ${ALERT_COALESCE}`,
      ...alertValues(r),
    );
    return { row: row!, created: row!.id === r.id };
  }

  async setTitle(id: string, title: string): Promise<AlertRecord> {
    return this.c.get<AlertRecord>("UPDATE alerts SET title = ? WHERE id = ? RETURNING *", title, id)!;
  }

  async insert(r: AlertRecord): Promise<AlertRecord> {
    return this.c.get<AlertRecord>(
      `INSERT INTO alerts (${ALERT_COLUMNS})
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      ...alertValues(r),
    )!;
  }

  async list(userId: string, projectId: string, f: AlertFilter, before: string, limit: number): Promise<AlertRecord[]> {
    return this.c.all<AlertRecord>(
      `SELECT * FROM alerts WHERE user_id = ? AND project_id = ? AND id < ?
           AND (?4 IS NULL OR (?4 = 1 AND read_at IS NULL) OR (?4 = 0 AND read_at IS NOT NULL))
           AND (?5 IS NULL OR channel = ?5) AND (?6 IS NULL OR type = ?6)
         ORDER BY id DESC LIMIT ?7`,
      userId,
      projectId,
      before,
      f.unread === null ? null : f.unread ? 1 : 0,
      f.channel,
      f.type,
      limit,
    );
  }

  async unreadCount(userId: string, projectId: string): Promise<number> {
    return this.c.get<{ n: number }>(
      "SELECT COUNT(*) AS n FROM alerts WHERE user_id = ? AND project_id = ? AND read_at IS NULL",
      userId,
      projectId,
    )!.n;
  }

  async markAllRead(userId: string, projectId: string, readAt: string): Promise<void> {
    this.c.run("UPDATE alerts SET read_at = ? WHERE user_id = ? AND project_id = ? AND read_at IS NULL", readAt, userId, projectId);
  }

  async existing(userId: string, projectId: string, ids: string[]): Promise<string[]> {
    return this.c
      .all<{ id: string }>(
        "SELECT id FROM alerts WHERE user_id = ? AND project_id = ? AND id IN (SELECT value FROM json_each(?))",
        userId,
        projectId,
        JSON.stringify(ids),
      )
      .map((r) => r.id);
  }

  async markRead(userId: string, projectId: string, ids: string[], readAt: string): Promise<void> {
    this.c.run(
      "UPDATE alerts SET read_at = ? WHERE user_id = ? AND project_id = ? AND read_at IS NULL AND id IN (SELECT value FROM json_each(?))",
      readAt,
      userId,
      projectId,
      JSON.stringify(ids),
    );
  }

  async teamOwnerIds(teamId: string): Promise<string[]> {
    return this.c.all<{ id: string }>("SELECT id FROM users WHERE team_id = ? AND role = 'owner'", teamId).map((r) => r.id);
  }
}

export function sqliteEventsRepositories(c: SqliteConnection): EventsRepositories {
  return {
    eventLog: new SqliteEventLog(c),
    webhooks: new SqliteWebhooks(c),
    webhookDeliveries: new SqliteWebhookDeliveries(c),
    alerts: new SqliteAlerts(c),
  };
}
