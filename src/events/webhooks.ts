// Webhooks: per-project registrations (url, event types, optional inbox filter, enabled flag,
// signing secret), the outbox rows written in the same transaction as the event, and the
// per-try delivery log. Sending is the dispatcher's job (webhook-dispatcher.ts).
import { inBatches } from "../lib/batches";
import type { AppContext } from "../runtime/context";
import type { Repositories, Transaction } from "../storage";
import type { DeliveryRecord, WebhookFilter, WebhookRecord } from "../storage/events";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { newWebhookSecret } from "../lib/standard-webhooks";
import { conflict, DomainError, notFound, validation } from "../lib/errors";
import { isIP } from "node:net";
import { classifyAddress, portOf } from "../lib/egress";
import { type AppendedEvent, publicBaseUrl } from "./event-stream";
import type { InboxService } from "../mail/inboxes";
import type { OriginUse } from "./webhook-dispatcher";
// Other modules emit these through EventLog.emit.
import { WEBHOOK_EVENT_TYPES } from "./webhook-event-types";

/** After rotation the previous secret keeps signing for this long. */
const ROTATION_OVERLAP_MS = 24 * 3600_000;

export type WebhookRow = WebhookRecord;
export type DeliveryRow = DeliveryRecord;

export interface WebhookInput {
  url?: string;
  description?: string | null;
  event_types?: string[];
  inbox_id?: string | null;
  enabled?: boolean;
}

export class WebhookService {
  private readonly enabledRows = new Map<string, WebhookFilter[]>();
  constructor(
    private readonly ctx: AppContext,
    private readonly inboxes: InboxService,
    private readonly origins: OriginUse,
    /** The dispatcher: send one delivery now and wait for its outcome (the test operation). */
    private readonly dispatch: { sendNow(d: DeliveryRow): Promise<void> },
  ) {}

  /** Whether a message event of this inbox goes to a webhook (which then needs the bodies). */
  async wantsBodies(repos: Repositories, projectId: string, inboxId: string): Promise<boolean> {
    return (await this.matching(repos, projectId, "message.received", inboxId)).length > 0;
  }

  private get storage() {
    return this.ctx.storage;
  }

  async create(projectId: string, input: WebhookInput): Promise<{ row: WebhookRow; secret: string }> {
    if (input.url === undefined) throw validation("url is required", { field: "url" });
    const url = await this.checkUrl(projectId, input.url);
    const types = this.checkTypes(input.event_types ?? ["message.received"]);
    if (input.inbox_id != null) await this.inboxes.get(projectId, input.inbox_id);
    this.checkDescription(input.description);
    const secret = newWebhookSecret();
    const now = nowIso();
    const row = await this.storage.webhooks.insert({
      id: newId(),
      project_id: projectId,
      url,
      description: input.description ?? null,
      event_types: JSON.stringify(types),
      inbox_id: input.inbox_id ?? null,
      enabled: input.enabled === false ? 0 : 1,
      secret_enc: this.ctx.sealer.seal(secret),
      previous_secret_enc: null,
      previous_expires_at: null,
      created_at: now,
      updated_at: now,
      delivery_seq: 0,
      paused: 0,
      consecutive_failures: 0,
      circuit_open_until: 0,
      last_success_at: null,
      last_failure_at: null,
    });
    this.enabledRows.clear();
    return { row, secret };
  }

  async get(projectId: string, id: string): Promise<WebhookRow> {
    const row = await this.find(projectId, id);
    if (!row) throw notFound("webhook");
    return row;
  }

  find(projectId: string, id: string): Promise<WebhookRow | null> {
    return this.storage.webhooks.inProject(projectId, id);
  }

  list(projectId: string, cursor: string | undefined, limit: number): Promise<WebhookRow[]> {
    return this.storage.webhooks.listInProject(projectId, cursor ?? "~", limit + 1);
  }

  async update(projectId: string, id: string, input: WebhookInput): Promise<WebhookRow> {
    if (Object.values(input).every((v) => v === undefined)) {
      throw validation("send at least one of url, description, event_types, inbox_id, enabled");
    }
    const row = await this.get(projectId, id);
    const next = { ...row };
    if (input.url !== undefined) next.url = await this.checkUrl(projectId, input.url);
    if (input.event_types !== undefined) next.event_types = JSON.stringify(this.checkTypes(input.event_types));
    if (input.inbox_id !== undefined) {
      if (input.inbox_id !== null) await this.inboxes.get(projectId, input.inbox_id);
      next.inbox_id = input.inbox_id;
    }
    if (input.description !== undefined) {
      this.checkDescription(input.description);
      next.description = input.description;
    }
    if (input.enabled !== undefined) next.enabled = input.enabled ? 1 : 0;
    next.updated_at = nowIso();
    await this.storage.webhooks.update(id, next);
    this.enabledRows.clear();
    // Re-enabling releases what queued before it was disabled.
    if (input.enabled === true) this.ctx.bus.publish({ type: "outbox.ready", webhookIds: [id] });
    return next;
  }

  /** Paused: deliveries keep queueing, none is tried until resumed. */
  async pause(projectId: string, id: string): Promise<WebhookRow> {
    const row = await this.storage.webhooks.setPaused(projectId, id, true, nowIso());
    if (!row) throw notFound("webhook");
    return row;
  }

  /** Resumed: the circuit closes too, and what queued meanwhile goes out now. */
  async resume(projectId: string, id: string): Promise<WebhookRow> {
    const row = await this.storage.webhooks.setPaused(projectId, id, false, nowIso());
    if (!row) throw notFound("webhook");
    this.ctx.bus.publish({ type: "outbox.ready", webhookIds: [id] });
    return row;
  }

  /** One more try of a finished (succeeded or failed) delivery, now, with the same webhook-id. */
  async redeliver(projectId: string, webhookId: string, deliveryId: string): Promise<DeliveryRow> {
    const d = await this.delivery(projectId, webhookId, deliveryId);
    if (d.status === "pending") throw conflict("delivery_pending", "the delivery is still pending; it will be tried on its schedule");
    if (d.event_id !== null && !(await this.storage.eventLog.byId(d.event_id))) {
      throw conflict("event_pruned", "the event of this delivery is no longer in the log");
    }
    const row = await this.storage.webhookDeliveries.redeliver(d.id, Date.now());
    if (!row) throw conflict("delivery_pending", "the delivery is already pending again");
    this.ctx.bus.publish({ type: "outbox.ready", webhookIds: [webhookId] });
    return row;
  }

  async delete(projectId: string, id: string): Promise<void> {
    // Pending deliveries go with it (ON DELETE CASCADE): nobody is left to receive them.
    const deleted = await this.storage.webhooks.deleteInProject(projectId, id);
    this.enabledRows.clear();
    if (!deleted) throw notFound("webhook");
  }

  /** A new secret; the previous one keeps signing (as a second signature) for 24 hours. */
  async rotateSecret(projectId: string, id: string): Promise<{ row: WebhookRow; secret: string }> {
    const row = await this.get(projectId, id);
    const secret = newWebhookSecret();
    const updated = await this.storage.webhooks.rotateSecret(
      id,
      this.ctx.sealer.seal(secret),
      row.secret_enc,
      new Date(Date.now() + ROTATION_OVERLAP_MS).toISOString(),
      nowIso(),
    );
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
      paused: row.paused === 1,
      health: healthOf(row),
      ...(secret !== undefined ? { secret } : {}),
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  /**
   * Enabled webhooks of a project that take this event type for this inbox. Runs for every stored
   * message, so it reads the project's few webhook rows by index and filters in JS (a json_each
   * join per message cost more than the rest of the event work). `repos`: the caller's transaction,
   * or the storage.
   */
  private async matching(repos: Repositories, projectId: string, type: string, inboxId: string): Promise<string[]> {
    // Read once per turn of the event loop: a group commit stores many messages of one project in
    // one transaction, and asks twice per message (bodies wanted? outbox rows?). This service's
    // own writes drop the cache.
    let rows = this.enabledRows.get(projectId);
    if (!rows) {
      rows = await repos.webhooks.enabledInProject(projectId);
      if (this.enabledRows.size === 0) setImmediate(() => this.enabledRows.clear());
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
  async enqueue(tx: Transaction, e: AppendedEvent): Promise<void> {
    if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(e.type) || e.userId !== null) return;
    const hooks = await this.matching(tx, e.projectId, e.type, e.inboxId ?? "");
    if (hooks.length === 0) return;
    const now = Date.now();
    const tries = this.ctx.config.webhookMaxAttempts;
    await tx.webhookDeliveries.enqueue(
      hooks.map((h) => ({
        id: newId(),
        webhookId: h,
        projectId: e.projectId,
        eventId: e.id,
        eventType: e.type,
        orderKey: e.orderKey,
        maxAttempts: tries,
        nextAttemptAt: now,
        createdAt: e.occurredAt,
      })),
    );
    // After the caller's commit (or rollback, and the pump then finds nothing).
    tx.afterCommit(() => this.ctx.bus.publish({ type: "outbox.ready", webhookIds: hooks }));
  }

  /** The test operation: a sample event to this webhook alone, one try, sent before answering. */
  async sendTest(projectId: string, id: string, type: string): Promise<DeliveryRow> {
    const wh = await this.get(projectId, id);
    this.checkTypes([type]);
    const now = nowIso();
    const deliveryId = newId();
    const body = JSON.stringify({
      type,
      timestamp: now,
      data: { ...sampleData(type, wh.inbox_id, publicBaseUrl(this.ctx)), test: true },
    });
    // Claimed from birth so that the dispatcher's own loop leaves it to us.
    const row = await this.storage.webhookDeliveries.insertClaimed({
      id: deliveryId,
      webhookId: id,
      projectId,
      eventType: type,
      orderKey: `test:${deliveryId}`,
      payload: body,
      maxAttempts: 1,
      nextAttemptAt: Date.now(),
      claimedUntil: Date.now() + this.ctx.config.webhookTimeoutMs + 60_000,
      claimedBy: this.ctx.workerId,
      createdAt: now,
    });
    await this.dispatch.sendNow(row);
    return this.delivery(projectId, id, deliveryId);
  }

  async delivery(projectId: string, webhookId: string, id: string): Promise<DeliveryRow> {
    const row = await this.storage.webhookDeliveries.inWebhook(projectId, webhookId, id);
    if (!row) throw notFound("delivery");
    return row;
  }

  async listDeliveries(projectId: string, webhookId: string, status: string | undefined, cursor: string | undefined, limit: number) {
    await this.get(projectId, webhookId);
    return this.storage.webhookDeliveries.listForWebhook(webhookId, status ?? null, cursor ?? "~", limit + 1);
  }

  async deliveryView(d: DeliveryRow) {
    const attempts = await this.storage.webhookDeliveries.attempts(d.id);
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
  prune(now = Date.now()): Promise<number> {
    const before = new Date(now - 7 * 86_400_000).toISOString();
    return inBatches(200, (limit) => this.storage.webhookDeliveries.prune(before, limit));
  }

  /**
   * A webhook URL is absolute http(s) without credentials. When the project lists HTTP origins,
   * the URL's origin must be one of them. A literal address the egress policy refuses (any
   * spelling: the URL parser writes 0x7f000001 as 127.0.0.1) is refused here already; names are
   * judged at each delivery on the address connected to (docs/webhooks.md, docs/security.md).
   */
  async checkUrl(projectId: string, raw: string): Promise<string> {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw validation("url is not an absolute URL", { field: "url" });
    }
    if (u.protocol !== "http:" && u.protocol !== "https:") throw validation("url must be http or https", { field: "url" });
    if (u.username || u.password) throw validation("url must not carry credentials", { field: "url" });
    if (raw.length > 2000) throw validation("url is at most 2000 characters", { field: "url" });
    const host = u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname;
    if (isIP(host) && !this.ctx.egress.tenant.permits(host, { host, port: portOf(u) })) {
      throw validation(
        `url points at a ${classifyAddress(host)} address, which this server's egress policy does not allow (INBOXD_EGRESS_PRIVATE, INBOXD_EGRESS_ALLOW)`,
        { field: "url", reason: "egress_denied" },
      );
    }
    if (!(await this.origins.admits(projectId, u))) {
      throw new DomainError("invalid", "origin_not_allowed", `${u.origin} is not in the project's HTTP origins`, {
        field: "url",
        origin: u.origin,
      });
    }
    return u.toString();
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

/**
 * The data of a test delivery: the shape the real event of that type has (docs/webhooks.md), with sample
 * values, so a receiver written against a test delivery also reads the real ones.
 */
function sampleData(type: string, inboxId: string | null, baseUrl: string): Record<string, unknown> {
  const id = "01HZZZZZZZZZZZZZZZZZZZZZZZ";
  const now = nowIso();
  const inHour = new Date(Date.now() + 3_600_000).toISOString();
  const msgUrl = `${baseUrl}/v1/messages/${id}`;
  switch (type) {
    case "message.received":
      return {
        id,
        inbox_id: inboxId ?? id,
        inbox_address: "sample@example.test",
        from: { email: "sender@example.test", name: "Sample Sender" },
        to: [{ email: "sample@example.test", name: "" }],
        cc: [],
        envelope: { from: "sender@example.test", to: "sample@example.test", rcpt_to: ["sample@example.test"] },
        subject: "Sample message from inboxd",
        preview: "Your verification code is 123456",
        text: "Your verification code is 123456\nhttps://example.test/verify?token=abc\n",
        text_truncated: false,
        html: '<p>Your verification code is <b>123456</b></p><p><a href="https://example.test/verify?token=abc">Verify</a></p>',
        html_truncated: false,
        has_text: true,
        has_html: true,
        links: [{ url: "https://example.test/verify?token=abc", text: "Verify" }],
        codes: ["123456"],
        message_id_header: "<sample@example.test>",
        sent_at: now,
        received_at: now,
        expires_at: inHour,
        size_bytes: 512,
        attachment_count: 0,
        attachments: [],
        url: msgUrl,
        raw_url: `${msgUrl}/raw`,
      };
    case "inbox.expiring":
      return { inbox_id: inboxId ?? id, address: "sample@example.test", name: "Sample inbox", expires_at: inHour };
    case "inbox.expired":
      return { inbox_id: inboxId ?? id, address: "sample@example.test", expired_at: now };
    case "run.finished":
      return {
        run: {
          id,
          status: "succeeded",
          agent: { id, name: "sample agent" },
          scenario: { id, name: "sample scenario", version: 1 },
          trigger: { type: "api" },
          current_step_index: 0,
          step_count: 1,
          steps: [],
          inputs: {},
          started_at: now,
          finished_at: now,
          cleanup_status: "completed",
          cleanup_error: "",
          failed_assertions: [],
          error: null,
          cancel_requested: false,
          events_url: `/v1/runs/${id}/events`,
          created_at: now,
        },
      };
    default:
      return {
        approval: {
          ulid: id,
          status: "pending",
          action: "sample.action",
          run_ulid: id,
          step_index: 0,
          target_resource_type: "inbox",
          target_resource_id: inboxId ?? id,
          binding_snapshot: {},
          expires_at: inHour,
          decided_at: null,
          decision_reason: null,
          self_approved: false,
        },
      };
  }
}

/**
 * How the endpoint is doing: `disabled` (queues nothing), `paused` (queues, sends nothing),
 * `circuit_open` (failed too often in a row; tried again at `circuit_open_until`), `failing` (the
 * last tries failed, fewer than the circuit's threshold), else `healthy`.
 */
function healthOf(row: WebhookRow) {
  const open = row.circuit_open_until > Date.now();
  const state =
    row.enabled !== 1
      ? "disabled"
      : row.paused === 1
        ? "paused"
        : open
          ? "circuit_open"
          : row.consecutive_failures > 0
            ? "failing"
            : "healthy";
  return {
    state,
    consecutive_failures: row.consecutive_failures,
    circuit_open_until: open ? new Date(row.circuit_open_until).toISOString() : null,
    last_success_at: row.last_success_at,
    last_failure_at: row.last_failure_at,
  };
}
