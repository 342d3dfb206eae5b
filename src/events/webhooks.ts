// Webhooks: per-project registrations (url, event types, optional inbox filter, enabled flag,
// signing secret), the outbox rows written in the same transaction as the event, and the
// per-try delivery log. Sending is the dispatcher's job (webhook-dispatcher.ts).
import type { AppContext } from "../context";
import { deleteInBatches } from "../storage/sqlite/database";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { newWebhookSecret } from "../lib/standard-webhooks";
import { DomainError, notFound, validation } from "../lib/errors";
import type { AppendedEvent, EventLog } from "./event-stream";
import type { InboxService } from "../mail/inboxes";

/** Event types a webhook can subscribe to. Other modules emit them through EventLog.emit. */
export const WEBHOOK_EVENT_TYPES = [
  "message.received",
  "inbox.expiring",
  "inbox.expired",
  "run.finished",
  "approval.pending",
] as const;

/** After rotation the previous secret keeps signing for this long. */
const ROTATION_OVERLAP_MS = 24 * 3600_000;

export interface WebhookRow {
  id: string;
  project_id: string;
  url: string;
  description: string | null;
  event_types: string;
  inbox_id: string | null;
  enabled: number;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  project_id: string;
  event_id: string | null;
  event_type: string;
  order_key: string;
  payload: string | null;
  status: "pending" | "succeeded" | "failed";
  attempts: number;
  max_attempts: number;
  next_attempt_at: number;
  claimed_until: number;
  claimed_by: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  completed_at: string | null;
}

export interface WebhookInput {
  url?: string;
  description?: string | null;
  event_types?: string[];
  inbox_id?: string | null;
  enabled?: boolean;
}

export class WebhookService {
  private readonly enabledRows = new Map<string, { id: string; event_types: string; inbox_id: string | null }[]>();
  /** Set by the dispatcher: send one delivery now and wait for its outcome (the test operation). */
  sendNow: ((d: DeliveryRow) => Promise<void>) | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly events: EventLog,
    private readonly inboxes: InboxService,
  ) {
    events.fanout.push((e) => this.enqueue(e));
    events.bodiesWanted = (projectId, inboxId) => this.matching(projectId, "message.received", inboxId).length > 0;
  }

  private get sqlite() {
    return this.ctx.db.sqlite;
  }

  create(projectId: string, input: WebhookInput): { row: WebhookRow; secret: string } {
    if (input.url === undefined) throw validation("url is required", { field: "url" });
    const url = this.checkUrl(projectId, input.url);
    const types = this.checkTypes(input.event_types ?? ["message.received"]);
    if (input.inbox_id != null) this.inboxes.get(projectId, input.inbox_id);
    this.checkDescription(input.description);
    const secret = newWebhookSecret();
    const now = nowIso();
    const row = this.sqlite
      .query(
        `INSERT INTO webhooks (id, project_id, url, description, event_types, inbox_id, enabled, secret_enc, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(
        newId(), projectId, url, input.description ?? null, JSON.stringify(types), input.inbox_id ?? null,
        input.enabled === false ? 0 : 1, this.ctx.sealer.seal(secret), now, now,
      ) as WebhookRow;
    return { row, secret };
  }

  get(projectId: string, id: string): WebhookRow {
    const row = this.sqlite.query("SELECT * FROM webhooks WHERE id = ? AND project_id = ?").get(id, projectId) as WebhookRow | null;
    if (!row) throw notFound("webhook");
    return row;
  }

  list(projectId: string, cursor: string | undefined, limit: number): WebhookRow[] {
    return this.sqlite
      .query("SELECT * FROM webhooks WHERE project_id = ? AND id < ? ORDER BY id DESC LIMIT ?")
      .all(projectId, cursor ?? "~", limit + 1) as WebhookRow[];
  }

  update(projectId: string, id: string, input: WebhookInput): WebhookRow {
    if (Object.values(input).every((v) => v === undefined)) {
      throw validation("send at least one of url, description, event_types, inbox_id, enabled");
    }
    const row = this.get(projectId, id);
    const next = { ...row };
    if (input.url !== undefined) next.url = this.checkUrl(projectId, input.url);
    if (input.event_types !== undefined) next.event_types = JSON.stringify(this.checkTypes(input.event_types));
    if (input.inbox_id !== undefined) {
      if (input.inbox_id !== null) this.inboxes.get(projectId, input.inbox_id);
      next.inbox_id = input.inbox_id;
    }
    if (input.description !== undefined) {
      this.checkDescription(input.description);
      next.description = input.description;
    }
    if (input.enabled !== undefined) next.enabled = input.enabled ? 1 : 0;
    next.updated_at = nowIso();
    this.sqlite
      .query("UPDATE webhooks SET url = ?, event_types = ?, inbox_id = ?, description = ?, enabled = ?, updated_at = ? WHERE id = ?")
      .run(next.url, next.event_types, next.inbox_id, next.description, next.enabled, next.updated_at, id);
    // Re-enabling releases what queued meanwhile.
    if (input.enabled === true) this.ctx.bus.publish({ type: "outbox.ready" });
    return next;
  }

  delete(projectId: string, id: string): void {
    // Pending deliveries go with it (ON DELETE CASCADE): nobody is left to receive them.
    if (this.sqlite.query("DELETE FROM webhooks WHERE id = ? AND project_id = ?").run(id, projectId).changes === 0) {
      throw notFound("webhook");
    }
  }

  /** A new secret; the previous one keeps signing (as a second signature) for 24 hours. */
  rotateSecret(projectId: string, id: string): { row: WebhookRow; secret: string } {
    const row = this.get(projectId, id);
    const secret = newWebhookSecret();
    const updated = this.sqlite
      .query(
        `UPDATE webhooks SET secret_enc = ?, previous_secret_enc = ?, previous_expires_at = ?, updated_at = ? WHERE id = ? RETURNING *`,
      )
      .get(this.ctx.sealer.seal(secret), row.secret_enc, new Date(Date.now() + ROTATION_OVERLAP_MS).toISOString(), nowIso(), id) as WebhookRow;
    return { row: updated, secret };
  }

  /** The secrets that sign a delivery of this webhook right now (current first). */
  signingSecrets(row: WebhookRow): string[] {
    const out = [this.ctx.sealer.open(row.secret_enc)];
    if (row.previous_secret_enc && row.previous_expires_at && row.previous_expires_at > nowIso()) {
      out.push(this.ctx.sealer.open(row.previous_secret_enc));
    }
    return out;
  }

  view(row: WebhookRow, secret?: string) {
    return {
      id: row.id,
      url: row.url,
      description: row.description,
      event_types: JSON.parse(row.event_types) as string[],
      inbox_id: row.inbox_id,
      enabled: row.enabled === 1,
      ...(secret !== undefined ? { secret } : {}),
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  /**
   * Enabled webhooks of a project that take this event type for this inbox. Runs for every stored
   * message, so it reads the project's few webhook rows by index and filters in JS (a json_each
   * join per message cost more than the rest of the event work).
   */
  private matching(projectId: string, type: string, inboxId: string): string[] {
    // Read once per synchronous turn: a group commit stores many messages of one project in one
    // transaction, and asks twice per message (bodies wanted? outbox rows?).
    let rows = this.enabledRows.get(projectId);
    if (!rows) {
      if (this.enabledRows.size === 0) queueMicrotask(() => this.enabledRows.clear());
      rows = this.sqlite
        .query("SELECT id, event_types, inbox_id FROM webhooks WHERE project_id = ? AND enabled = 1")
        .all(projectId) as { id: string; event_types: string; inbox_id: string | null }[];
      this.enabledRows.set(projectId, rows);
    }
    const out: string[] = [];
    for (const r of rows) {
      if (r.inbox_id !== null && r.inbox_id !== inboxId) continue;
      if ((JSON.parse(r.event_types) as string[]).includes(type)) out.push(r.id);
    }
    return out;
  }

  /**
   * Fan-out from EventLog.emit, inside its transaction: one outbox row per matching webhook. The
   * dispatcher is woken (after the commit) only when a row was written, so a project without
   * webhooks costs it nothing per message.
   */
  private enqueue(e: AppendedEvent): void {
    if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(e.type) || e.userId !== null) return;
    const hooks = this.matching(e.projectId, e.type, e.inboxId ?? "");
    if (hooks.length === 0) return;
    const ins = this.sqlite.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, project_id, event_id, event_type, order_key, status, max_attempts, next_attempt_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
    );
    const now = Date.now();
    const tries = this.ctx.config.webhookMaxAttempts;
    for (const h of hooks) ins.run(newId(), h, e.projectId, e.id, e.type, e.orderKey, tries, now, e.occurredAt);
    // Transactions here are synchronous: by the next turn the caller has committed (or rolled
    // back, and the pump then finds nothing).
    setImmediate(() => this.ctx.bus.publish({ type: "outbox.ready" }));
  }

  /** The test operation: a sample event to this webhook alone, one try, sent before answering. */
  async sendTest(projectId: string, id: string, type: string): Promise<DeliveryRow> {
    const wh = this.get(projectId, id);
    this.checkTypes([type]);
    const now = nowIso();
    const deliveryId = newId();
    const body = JSON.stringify({ type, timestamp: now, data: { ...sampleData(type, projectId, wh.inbox_id), test: true } });
    // Claimed from birth so that the dispatcher's own loop leaves it to us.
    const row = this.sqlite
      .query(
        `INSERT INTO webhook_deliveries (id, webhook_id, project_id, event_id, event_type, order_key, payload, status, max_attempts,
           next_attempt_at, claimed_until, claimed_by, created_at)
         VALUES (?, ?, ?, NULL, ?, ?, ?, 'pending', 1, ?, ?, ?, ?) RETURNING *`,
      )
      .get(deliveryId, id, projectId, type, `test:${deliveryId}`, body, Date.now(), Date.now() + this.ctx.config.webhookTimeoutMs + 60_000,
        this.ctx.workerId, now) as DeliveryRow;
    if (!this.sendNow) throw new DomainError("unavailable", "unavailable", "webhook dispatch is not running");
    await this.sendNow(row);
    return this.delivery(projectId, id, deliveryId);
  }

  delivery(projectId: string, webhookId: string, id: string): DeliveryRow {
    const row = this.sqlite
      .query("SELECT * FROM webhook_deliveries WHERE id = ? AND webhook_id = ? AND project_id = ?")
      .get(id, webhookId, projectId) as DeliveryRow | null;
    if (!row) throw notFound("delivery");
    return row;
  }

  listDeliveries(projectId: string, webhookId: string, status: string | undefined, cursor: string | undefined, limit: number) {
    this.get(projectId, webhookId);
    return this.sqlite
      .query(
        `SELECT * FROM webhook_deliveries WHERE webhook_id = ? AND id < ? AND (? IS NULL OR status = ?) ORDER BY id DESC LIMIT ?`,
      )
      .all(webhookId, cursor ?? "~", status ?? null, status ?? null, limit + 1) as DeliveryRow[];
  }

  deliveryView(d: DeliveryRow) {
    const attempts = this.sqlite
      .query("SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt")
      .all(d.id) as { attempt: number; started_at: string; duration_ms: number; status_code: number | null; ok: number; error: string | null; response_excerpt: string | null }[];
    return {
      id: d.id,
      webhook_id: d.webhook_id,
      event_id: d.event_id,
      event_type: d.event_type,
      status: d.status,
      attempt_count: d.attempts,
      max_attempts: d.max_attempts,
      next_attempt_at: d.status === "pending" ? new Date(d.next_attempt_at).toISOString() : null,
      last_status_code: d.last_status_code,
      last_error: d.last_error,
      created_at: d.created_at,
      completed_at: d.completed_at,
      attempts: attempts.map((a) => ({
        attempt: a.attempt,
        started_at: a.started_at,
        duration_ms: a.duration_ms,
        status_code: a.status_code,
        ok: a.ok === 1,
        error: a.error,
        response_excerpt: a.response_excerpt,
      })),
    };
  }

  /** Finished deliveries older than a week go (their attempts cascade). */
  prune(now = Date.now()): number {
    const before = new Date(now - 7 * 86_400_000).toISOString();
    const del = this.sqlite.query(
      "DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE completed_at IS NOT NULL AND completed_at < ? LIMIT 2000)",
    );
    return deleteInBatches(del, before);
  }

  /**
   * A webhook URL is absolute http(s) without credentials. When the project lists HTTP origins,
   * the URL's origin must be one of them. Private and loopback addresses are allowed on purpose
   * (receivers in labs and CI run there); see docs/webhooks.md.
   */
  checkUrl(projectId: string, raw: string): string {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw validation("url is not an absolute URL", { field: "url" });
    }
    if (u.protocol !== "http:" && u.protocol !== "https:") throw validation("url must be http or https", { field: "url" });
    if (u.username || u.password) throw validation("url must not carry credentials", { field: "url" });
    if (raw.length > 2000) throw validation("url is at most 2000 characters", { field: "url" });
    if (!this.originAllowed(projectId, u)) {
      throw new DomainError("invalid", "origin_not_allowed", `${u.origin} is not in the project's HTTP origins`, { field: "url", origin: u.origin });
    }
    return u.toString();
  }

  private hasOriginsTable: boolean | null = null;

  originAllowed(projectId: string, u: URL): boolean {
    // The origins table belongs to the automation layer; without it there is no list to honour.
    this.hasOriginsTable ??= !!this.sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'http_origins'").get();
    if (!this.hasOriginsTable) return true;
    const rows = this.sqlite
      .query("SELECT scheme, host, port, is_wildcard FROM http_origins WHERE project_id = ?")
      .all(projectId) as { scheme: string; host: string; port: number | null; is_wildcard: number }[];
    if (rows.length === 0) return true;
    const scheme = u.protocol.slice(0, -1);
    const host = u.hostname.toLowerCase().replace(/^\[|\]$/g, "");
    const port = u.port ? Number(u.port) : scheme === "https" ? 443 : 80;
    return rows.some((o) => {
      if (o.scheme.toLowerCase().replace(/:$/, "") !== scheme) return false;
      const oport = o.port ?? (o.scheme === "https" ? 443 : 80);
      if (oport !== port) return false;
      const oh = o.host.toLowerCase().replace(/^\[|\]$/g, "");
      if (!o.is_wildcard) return oh === host;
      const base = oh.replace(/^\*\./, "");
      return host.endsWith("." + base);
    });
  }

  private checkTypes(types: string[]): string[] {
    if (types.length === 0) throw validation("event_types must name at least one event type", { field: "event_types" });
    for (const t of types) {
      if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(t)) {
        throw validation(`unknown event type ${t}`, { field: "event_types", allowed: WEBHOOK_EVENT_TYPES });
      }
    }
    return [...new Set(types)];
  }

  private checkDescription(d: string | null | undefined): void {
    if (d != null && d.length > 500) throw validation("description is at most 500 characters", { field: "description" });
  }
}

function sampleData(type: string, projectId: string, inboxId: string | null): Record<string, unknown> {
  const id = "01HZZZZZZZZZZZZZZZZZZZZZZZ";
  switch (type) {
    case "message.received":
      return {
        id,
        inbox_id: inboxId ?? id,
        inbox_address: "sample@example.test",
        from: { email: "sender@example.test", name: "Sample Sender" },
        to: [{ email: "sample@example.test", name: "" }],
        cc: [],
        subject: "Sample message from inboxd",
        preview: "Your verification code is 123456",
        text: "Your verification code is 123456\nhttps://example.test/verify?token=abc\n",
        html: '<p>Your verification code is <b>123456</b></p><p><a href="https://example.test/verify?token=abc">Verify</a></p>',
        links: ["https://example.test/verify?token=abc"],
        codes: ["123456"],
        attachments: [],
        attachment_count: 0,
        received_at: nowIso(),
      };
    case "inbox.expiring":
    case "inbox.expired":
      return { inbox_id: inboxId ?? id, address: "sample@example.test", expires_at: nowIso() };
    default:
      return { project_id: projectId, sample: true };
  }
}
