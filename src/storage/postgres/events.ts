// PostgreSQL implementation of the events repositories (src/storage/events.ts), the SQLite one
// (../sqlite/events.ts) statement for statement but where several nodes need more:
//
// The log's contract is that seq is commit order within a project: a stream that has read up to
// seq N never gets an event below N later. SQLite has it for free (one writer). Here an identity
// column hands out numbers at INSERT, and transactions commit in any order, so a later number
// could become visible first and the earlier one be skipped for ever. append therefore takes a
// per-project advisory lock held until its transaction ends: appends to one project commit in seq
// order (appends to different projects do not wait for each other).
//
// Webhook deliveries are claimed with FOR UPDATE SKIP LOCKED: two nodes' dispatchers never claim
// one delivery, and a dead node's claims lapse at claimed_until and are taken over. SQLite's
// "relaxed" claims (no fsync for the dispatcher's bookkeeping) have no counterpart: PostgreSQL's
// group commit already shares the flushes.
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
import type { PgClient } from "./connection";
import { num, type Row } from "./rows";

/** First key of the two-key advisory locks of the event log (the second is the project's hash). */
const EVENT_LOG_LOCK = 0x65766e74; // "evnt"

const stored = (r: Row): StoredEvent => ({ seq: num(r.seq), id: r.id, type: r.type, data: r.data, occurred_at: r.occurred_at });

/** NUL cannot be in PostgreSQL text (connection.ts stores it as U+FFFD): the same for values sent inside JSON. */
const noNul = (v: string | null): string | null => (v === null ? null : v.replaceAll("\u0000", "\uFFFD"));

/**
 * A transaction's events, appended right before its COMMIT (Transaction.appendEvent): the
 * projects' locks in one order (hash order, so two such transactions never wait on each other in
 * a cycle), then every row in one statement, in the order they were made, so `seq` follows it.
 */
export async function appendPgEvents(c: PgClient, events: EventRecord[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((e) => ({
    id: e.id,
    project_id: e.projectId,
    type: e.type,
    inbox_id: e.inboxId,
    user_id: e.userId,
    data: noNul(e.data),
    occurred_at: e.occurredAt,
    message_id: e.messageId ?? null,
  }));
  // One statement: the uncorrelated subquery runs once, before the first row passes its filter,
  // so every lock is held before the first identity is drawn.
  await c.run(
    `WITH lock AS (
       SELECT pg_advisory_xact_lock($1, h) FROM (SELECT DISTINCT hashtext(p) AS h FROM unnest($2::text[]) AS p ORDER BY 1) AS x)
     INSERT INTO events (id, project_id, type, inbox_id, user_id, data, occurred_at, message_id)
     SELECT r->>'id', r->>'project_id', r->>'type', r->>'inbox_id', r->>'user_id', r->>'data', r->>'occurred_at', r->>'message_id'
     FROM jsonb_array_elements($3::text::jsonb) WITH ORDINALITY AS t(r, n) WHERE (SELECT count(*) FROM lock) >= 0 ORDER BY n`,
    EVENT_LOG_LOCK,
    [...new Set(events.map((e) => e.projectId))],
    JSON.stringify(rows),
  );
}

class PgEventLog implements EventLogRepository {
  constructor(private readonly c: PgClient) {}

  async append(e: EventRecord): Promise<number> {
    // One statement, so the lock is taken before the identity is drawn even in autocommit.
    const r = await this.c.row<{ seq: string }>(
      `WITH lock AS (SELECT pg_advisory_xact_lock($9, hashtext($2)))
       INSERT INTO events (id, project_id, type, inbox_id, user_id, data, occurred_at, message_id)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8 FROM lock RETURNING seq`,
      e.id,
      e.projectId,
      e.type,
      e.inboxId,
      e.userId,
      e.data,
      e.occurredAt,
      e.messageId ?? null,
      EVENT_LOG_LOCK,
    );
    return num(r!.seq);
  }

  async lastSeq(projectId: string): Promise<number> {
    const r = await this.c.row<{ s: string | null }>("SELECT MAX(seq) AS s FROM events WHERE project_id = $1", projectId);
    return num(r?.s ?? 0);
  }

  async after(projectId: string, seq: number, userId: string | null, limit: number): Promise<StoredEvent[]> {
    const rows = await this.c.rows<Row>(
      `SELECT seq, id, type, data, occurred_at FROM events
         WHERE project_id = $1 AND seq > $2 AND (user_id IS NULL OR user_id = $3) ORDER BY seq LIMIT $4`,
      projectId,
      seq,
      userId ?? "",
      limit,
    );
    return rows.map(stored);
  }

  async byId(id: string): Promise<StoredEvent | null> {
    const r = await this.c.row<Row>("SELECT seq, id, type, data, occurred_at FROM events WHERE id = $1", id);
    return r ? stored(r) : null;
  }

  async prune(before: string, limit: number): Promise<number> {
    return this.c.run("DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE occurred_at < $1 LIMIT $2)", before, limit);
  }
}

const webhook = (r: Row): WebhookRecord => ({
  ...(r as WebhookRecord),
  delivery_seq: num(r.delivery_seq),
  circuit_open_until: num(r.circuit_open_until),
});
const orNullWebhook = (r: Row | null) => (r ? webhook(r) : null);

const dispatch = (r: Row): DispatchState => ({
  id: r.id,
  consecutive_failures: r.consecutive_failures,
  circuit_open_until: num(r.circuit_open_until),
});

const delivery = (r: Row): DeliveryRecord => ({
  ...(r as DeliveryRecord),
  next_attempt_at: num(r.next_attempt_at),
  claimed_until: num(r.claimed_until),
  seq: num(r.seq),
});

class PgWebhooks implements WebhookRepository {
  constructor(private readonly c: PgClient) {}

  async insert(r: WebhookRecord): Promise<WebhookRecord> {
    const row = await this.c.row<Row>(
      `INSERT INTO webhooks (id, project_id, url, description, event_types, inbox_id, enabled, secret_enc, previous_secret_enc,
         previous_expires_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING *`,
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
    );
    return webhook(row!);
  }

  async byId(id: string): Promise<WebhookRecord | null> {
    return orNullWebhook(await this.c.row<Row>("SELECT * FROM webhooks WHERE id = $1", id));
  }

  async inProject(projectId: string, id: string): Promise<WebhookRecord | null> {
    return orNullWebhook(await this.c.row<Row>("SELECT * FROM webhooks WHERE id = $1 AND project_id = $2", id, projectId));
  }

  async listInProject(projectId: string, before: string, limit: number): Promise<WebhookRecord[]> {
    const rows = await this.c.rows<Row>(
      "SELECT * FROM webhooks WHERE project_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3",
      projectId,
      before,
      limit,
    );
    return rows.map(webhook);
  }

  async update(
    id: string,
    f: Pick<WebhookRecord, "url" | "event_types" | "inbox_id" | "description" | "enabled" | "updated_at">,
  ): Promise<void> {
    await this.c.run(
      "UPDATE webhooks SET url = $1, event_types = $2, inbox_id = $3, description = $4, enabled = $5, updated_at = $6 WHERE id = $7",
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
    return (await this.c.run("DELETE FROM webhooks WHERE id = $1 AND project_id = $2", id, projectId)) > 0;
  }

  async rotateSecret(
    id: string,
    secretEnc: string,
    previousSecretEnc: string,
    previousExpiresAt: string,
    updatedAt: string,
  ): Promise<WebhookRecord> {
    const row = await this.c.row<Row>(
      "UPDATE webhooks SET secret_enc = $1, previous_secret_enc = $2, previous_expires_at = $3, updated_at = $4 WHERE id = $5 RETURNING *",
      secretEnc,
      previousSecretEnc,
      previousExpiresAt,
      updatedAt,
      id,
    );
    return webhook(row!);
  }

  async enabledInProject(projectId: string): Promise<WebhookFilter[]> {
    return this.c.rows<WebhookFilter>("SELECT id, event_types, inbox_id FROM webhooks WHERE project_id = $1 AND enabled = 1", projectId);
  }

  async dispatchStates(): Promise<DispatchState[]> {
    const rows = await this.c.rows<Row>(
      "SELECT id, consecutive_failures, circuit_open_until FROM webhooks WHERE enabled = 1 AND paused = 0",
    );
    return rows.map(dispatch);
  }

  async dispatchState(id: string): Promise<DispatchState | null> {
    const r = await this.c.row<Row>(
      "SELECT id, consecutive_failures, circuit_open_until FROM webhooks WHERE id = $1 AND enabled = 1 AND paused = 0",
      id,
    );
    return r ? dispatch(r) : null;
  }

  async recordSuccess(id: string, at: string): Promise<void> {
    await this.c.run("UPDATE webhooks SET consecutive_failures = 0, circuit_open_until = 0, last_success_at = $1 WHERE id = $2", at, id);
  }

  async recordFailure(id: string, at: string): Promise<number> {
    const r = await this.c.row<{ n: number }>(
      "UPDATE webhooks SET consecutive_failures = consecutive_failures + 1, last_failure_at = $1 WHERE id = $2 RETURNING consecutive_failures AS n",
      at,
      id,
    );
    return r?.n ?? 0;
  }

  async setPaused(projectId: string, id: string, paused: boolean, updatedAt: string): Promise<WebhookRecord | null> {
    const r = await this.c.row<Row>(
      paused
        ? "UPDATE webhooks SET paused = 1, updated_at = $1 WHERE id = $2 AND project_id = $3 RETURNING *"
        : "UPDATE webhooks SET paused = 0, circuit_open_until = 0, consecutive_failures = 0, updated_at = $1 WHERE id = $2 AND project_id = $3 RETURNING *",
      updatedAt,
      id,
      projectId,
    );
    return orNullWebhook(r);
  }

  async setCircuit(id: string, openUntil: number, consecutiveFailures?: number): Promise<void> {
    if (consecutiveFailures === undefined) await this.c.run("UPDATE webhooks SET circuit_open_until = $1 WHERE id = $2", openUntil, id);
    else
      await this.c.run(
        "UPDATE webhooks SET circuit_open_until = $1, consecutive_failures = $2 WHERE id = $3",
        openUntil,
        consecutiveFailures,
        id,
      );
  }
}

/**
 * Outbox rows of one transaction, written together: the webhooks' rows are locked first, in id order.
 * Each row's seq comes from its webhook's row (`delivery_seq`), whose lock lives until COMMIT and so
 * orders a webhook's deliveries across nodes. Taken one event at a time instead, two transactions
 * whose events match the same webhooks in another order (two ingest groups of one project; a group
 * and the dispatcher recording outcomes of several webhooks) each held one row the other waited
 * for, and PostgreSQL aborted one after a second: every delivery of an ingest group got a 451.
 */
export async function enqueuePgDeliveries(c: PgClient, rows: NewDelivery[]): Promise<void> {
  if (rows.length === 0) return;
  const webhookIds = [...new Set(rows.map((r) => r.webhookId))].sort();
  if (webhookIds.length > 1) await c.run("SELECT 1 FROM webhooks WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE", webhookIds);
  for (const r of rows) {
    await c.run(
      `WITH s AS (UPDATE webhooks SET delivery_seq = delivery_seq + 1 WHERE id = $2 RETURNING delivery_seq)
       INSERT INTO webhook_deliveries (id, webhook_id, project_id, event_id, event_type, order_key, status, max_attempts, next_attempt_at, created_at, seq)
       SELECT $1, $2, $3, $4, $5, $6, 'pending', $7, $8, $9, s.delivery_seq FROM s`,
      r.id,
      r.webhookId,
      r.projectId,
      r.eventId,
      r.eventType,
      r.orderKey,
      r.maxAttempts,
      r.nextAttemptAt,
      r.createdAt,
    );
  }
}

export class PgWebhookDeliveries implements WebhookDeliveryRepository {
  /** `deferred`: in a transaction, the rows wait there for its COMMIT (storage/postgres/index.ts). */
  constructor(
    private readonly c: PgClient,
    private readonly deferred?: NewDelivery[],
  ) {}

  async enqueue(rows: NewDelivery[]): Promise<void> {
    if (this.deferred) this.deferred.push(...rows);
    else await enqueuePgDeliveries(this.c, rows);
  }

  async insertClaimed(r: NewClaimedDelivery): Promise<DeliveryRecord> {
    const row = await this.c.row<Row>(
      `INSERT INTO webhook_deliveries (id, webhook_id, project_id, event_id, event_type, order_key, payload, status, max_attempts,
         next_attempt_at, claimed_until, claimed_by, created_at)
       VALUES ($1, $2, $3, NULL, $4, $5, $6, 'pending', $7, $8, $9, $10, $11) RETURNING *`,
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
    );
    return delivery(row!);
  }

  async inWebhook(projectId: string, webhookId: string, id: string): Promise<DeliveryRecord | null> {
    const r = await this.c.row<Row>(
      "SELECT * FROM webhook_deliveries WHERE id = $1 AND webhook_id = $2 AND project_id = $3",
      id,
      webhookId,
      projectId,
    );
    return r ? delivery(r) : null;
  }

  async listForWebhook(webhookId: string, status: string | null, before: string, limit: number): Promise<DeliveryRecord[]> {
    const rows = await this.c.rows<Row>(
      "SELECT * FROM webhook_deliveries WHERE webhook_id = $1 AND id < $2 AND ($3::text IS NULL OR status = $3) ORDER BY id DESC LIMIT $4",
      webhookId,
      before,
      status,
      limit,
    );
    return rows.map(delivery);
  }

  async attempts(deliveryId: string): Promise<AttemptRecord[]> {
    return this.c.rows<AttemptRecord>(
      "SELECT attempt, started_at, duration_ms, status_code, ok, error, response_excerpt FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt",
      deliveryId,
    );
  }

  async claim(workerId: string, webhookId: string, now: number, until: number, limit: number): Promise<DeliveryRecord[]> {
    const rows = await this.c.rows<Row>(
      `UPDATE webhook_deliveries SET claimed_until = $1, claimed_by = $2
       WHERE id IN (
         SELECT id FROM webhook_deliveries
         WHERE webhook_id = $3 AND status = 'pending' AND next_attempt_at <= $4 AND claimed_until <= $4
           AND EXISTS (SELECT 1 FROM webhooks WHERE id = $3 AND enabled = 1 AND paused = 0)
         ORDER BY next_attempt_at LIMIT $5
         FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      until,
      workerId,
      webhookId,
      now,
      limit,
    );
    return rows.map(delivery).sort((a, b) => a.next_attempt_at - b.next_attempt_at || (a.id < b.id ? -1 : 1));
  }

  async release(workerId: string, ids: string[]): Promise<void> {
    await this.c.run(
      "UPDATE webhook_deliveries SET claimed_until = 0, claimed_by = NULL WHERE claimed_by = $1 AND id = ANY($2::text[])",
      workerId,
      ids,
    );
  }

  async nextDue(webhookId: string): Promise<number | null> {
    // The earliest due, a claimed row counting from its lapse; as SQLite's, over the head of the index.
    const r = await this.c.row<{ due: string | null }>(
      `SELECT MIN(GREATEST(next_attempt_at, claimed_until)) AS due FROM (
         SELECT next_attempt_at, claimed_until FROM webhook_deliveries
          WHERE webhook_id = $1 AND status = 'pending' ORDER BY next_attempt_at LIMIT 64) head`,
      webhookId,
    );
    return r?.due == null ? null : num(r.due);
  }

  async pendingCount(webhookId: string): Promise<number> {
    const r = await this.c.row<{ n: string }>(
      "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending'",
      webhookId,
    );
    return num(r!.n);
  }

  async redeliver(id: string, now: number): Promise<DeliveryRecord | null> {
    const r = await this.c.row<Row>(
      `UPDATE webhook_deliveries SET status = 'pending', max_attempts = attempts + 1, next_attempt_at = $1, completed_at = NULL,
              claimed_until = 0, claimed_by = NULL
        WHERE id = $2 AND status <> 'pending' RETURNING *`,
      now,
      id,
    );
    return r ? delivery(r) : null;
  }

  async record(d: Pick<DeliveryRecord, "id" | "claimed_by" | "attempts">, o: DeliveryOutcome): Promise<boolean> {
    // Conditional on still holding the claim: a late answer from a lapsed claim changes nothing.
    const changed = await this.c.run(
      `UPDATE webhook_deliveries SET attempts = $1, status = $2, next_attempt_at = $3, claimed_until = 0, claimed_by = NULL,
             last_status_code = $4, last_error = $5, completed_at = $6
           WHERE id = $7 AND claimed_by = $8 AND attempts = $9`,
      o.attempt,
      o.status,
      o.nextAttemptAt,
      o.statusCode,
      o.error,
      o.completedAt,
      d.id,
      d.claimed_by,
      d.attempts,
    );
    if (changed === 0) return false;
    await this.c.run(
      `INSERT INTO webhook_attempts (id, delivery_id, attempt, started_at, duration_ms, status_code, ok, error, response_excerpt)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
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
      "DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE completed_at IS NOT NULL AND completed_at < $1 LIMIT $2)",
      before,
      limit,
    );
  }
}

class PgAlerts implements AlertRepository {
  constructor(private readonly c: PgClient) {}

  async raise(r: AlertRecord): Promise<{ row: AlertRecord; created: boolean }> {
    const row = await this.c.row<AlertRecord>(
      `INSERT INTO alerts (${ALERT_COLUMNS})
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
         ${ALERT_COALESCE}`,
      ...alertValues(r),
    );
    return { row: row!, created: row!.id === r.id };
  }

  async setTitle(id: string, title: string): Promise<AlertRecord> {
    return (await this.c.row<AlertRecord>("UPDATE alerts SET title = $1 WHERE id = $2 RETURNING *", title, id))!;
  }

  async insert(r: AlertRecord): Promise<AlertRecord> {
    const row = await this.c.row<AlertRecord>(
      `INSERT INTO alerts (${ALERT_COLUMNS})
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING *`,
      ...alertValues(r),
    );
    return row!;
  }

  async list(userId: string, projectId: string, f: AlertFilter, before: string, limit: number): Promise<AlertRecord[]> {
    return this.c.rows<AlertRecord>(
      `SELECT * FROM alerts WHERE user_id = $1 AND project_id = $2 AND id < $3
           AND ($4::int IS NULL OR ($4 = 1 AND read_at IS NULL) OR ($4 = 0 AND read_at IS NOT NULL))
           AND ($5::text IS NULL OR channel = $5) AND ($6::text IS NULL OR type = $6)
         ORDER BY id DESC LIMIT $7`,
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
    const r = await this.c.row<{ n: string }>(
      "SELECT COUNT(*) AS n FROM alerts WHERE user_id = $1 AND project_id = $2 AND read_at IS NULL",
      userId,
      projectId,
    );
    return num(r!.n);
  }

  async markAllRead(userId: string, projectId: string, readAt: string): Promise<void> {
    await this.c.run(
      "UPDATE alerts SET read_at = $1 WHERE user_id = $2 AND project_id = $3 AND read_at IS NULL",
      readAt,
      userId,
      projectId,
    );
  }

  async existing(userId: string, projectId: string, ids: string[]): Promise<string[]> {
    const rows = await this.c.rows<{ id: string }>(
      "SELECT id FROM alerts WHERE user_id = $1 AND project_id = $2 AND id = ANY($3::text[])",
      userId,
      projectId,
      ids,
    );
    return rows.map((r) => r.id);
  }

  async markRead(userId: string, projectId: string, ids: string[], readAt: string): Promise<void> {
    await this.c.run(
      "UPDATE alerts SET read_at = $1 WHERE user_id = $2 AND project_id = $3 AND read_at IS NULL AND id = ANY($4::text[])",
      readAt,
      userId,
      projectId,
      ids,
    );
  }

  async teamOwnerIds(teamId: string): Promise<string[]> {
    const rows = await this.c.rows<{ id: string }>("SELECT id FROM users WHERE team_id = $1 AND role = 'owner'", teamId);
    return rows.map((r) => r.id);
  }
}

export function postgresEventsRepositories(c: PgClient): EventsRepositories {
  return {
    eventLog: new PgEventLog(c),
    webhooks: new PgWebhooks(c),
    webhookDeliveries: new PgWebhookDeliveries(c),
    alerts: new PgAlerts(c),
  };
}
