// The events capability's repositories: what its services keep, as typed records and small
// interfaces. Engines implement them in src/storage/<engine>/events.ts.

/** A row of the project event log as written (data is the JSON text). */
export interface EventRecord {
  id: string;
  projectId: string;
  type: string;
  inboxId: string | null;
  /** Set: only that user's streams see it (alerts); null: everyone in the project. */
  userId: string | null;
  data: string;
  occurredAt: string;
  /** The message a message.received event describes: the event leaves the log with it. */
  messageId?: string | null;
}

/** An event as the stream and the webhook payloads read it back. */
export interface StoredEvent {
  seq: number;
  id: string;
  type: string;
  data: string;
  occurred_at: string;
}

export interface EventLogRepository {
  /** Appends the event; returns its seq (commit order within the log). */
  append(e: EventRecord): Promise<number>;
  /** The highest seq of the project (0 when it has none). */
  lastSeq(projectId: string): Promise<number>;
  /** Events after `seq` visible to this user (userId null: only the ones for everyone), oldest first. */
  after(projectId: string, seq: number, userId: string | null, limit: number): Promise<StoredEvent[]>;
  byId(id: string): Promise<StoredEvent | null>;
  /** Deletes at most `limit` of the events that occurred before `before` (callers loop). Returns how many. */
  prune(before: string, limit: number): Promise<number>;
}

export interface WebhookRecord {
  id: string;
  project_id: string;
  url: string;
  description: string | null;
  /** JSON array of event types. */
  event_types: string;
  inbox_id: string | null;
  enabled: number;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_expires_at: string | null;
  created_at: string;
  updated_at: string;
  /** The last sequence number given to one of its deliveries. */
  delivery_seq: number;
  /** 1: paused by an operator (deliveries queue; none is tried). */
  paused: number;
  /** Failed tries in a row (any success resets it); the circuit opens at a threshold. */
  consecutive_failures: number;
  /** Epoch ms until which no delivery is tried (0: closed). */
  circuit_open_until: number;
  last_success_at: string | null;
  last_failure_at: string | null;
}

/** What the dispatcher needs of an enabled webhook. */
export interface DispatchState {
  id: string;
  consecutive_failures: number;
  circuit_open_until: number;
}

/** What the fan-out needs of an enabled webhook. */
export interface WebhookFilter {
  id: string;
  event_types: string;
  inbox_id: string | null;
}

export interface WebhookRepository {
  insert(r: WebhookRecord): Promise<WebhookRecord>;
  byId(id: string): Promise<WebhookRecord | null>;
  inProject(projectId: string, id: string): Promise<WebhookRecord | null>;
  /** Newest first, ids below `before` ("~": from the top); at most `limit` records. */
  listInProject(projectId: string, before: string, limit: number): Promise<WebhookRecord[]>;
  update(id: string, f: Pick<WebhookRecord, "url" | "event_types" | "inbox_id" | "description" | "enabled" | "updated_at">): Promise<void>;
  /** Deletes the webhook (its deliveries go with it); false when there was none. */
  deleteInProject(projectId: string, id: string): Promise<boolean>;
  /** Sets a new secret and keeps the previous one until previousExpiresAt; returns the webhook after. */
  rotateSecret(
    id: string,
    secretEnc: string,
    previousSecretEnc: string,
    previousExpiresAt: string,
    updatedAt: string,
  ): Promise<WebhookRecord>;
  enabledInProject(projectId: string): Promise<WebhookFilter[]>;
  /** Every enabled webhook with its circuit (all projects): the dispatcher's full scan. */
  dispatchStates(): Promise<DispatchState[]>;
  dispatchState(id: string): Promise<DispatchState | null>;
  /** A try succeeded: failures reset, circuit closed. */
  recordSuccess(id: string, at: string): Promise<void>;
  /** A try failed; returns the failures in a row now. */
  recordFailure(id: string, at: string): Promise<number>;
  /** Sets (or, with 0, clears) the time until which the webhook's deliveries wait. */
  setCircuit(id: string, openUntil: number, consecutiveFailures?: number): Promise<void>;
  /** Pauses or resumes (which also closes the circuit); returns the webhook after, null if none. */
  setPaused(projectId: string, id: string, paused: boolean, updatedAt: string): Promise<WebhookRecord | null>;
}

export interface DeliveryRecord {
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
  /** Per-webhook sequence number, in the order the deliveries were written (0 for test sends). */
  seq: number;
}

/** An outbox row for an event (pending, never claimed). */
export interface NewDelivery {
  id: string;
  webhookId: string;
  projectId: string;
  eventId: string;
  eventType: string;
  orderKey: string;
  maxAttempts: number;
  nextAttemptAt: number;
  createdAt: string;
}

/** A delivery with an inline payload and no event, claimed from birth (the test send). */
export interface NewClaimedDelivery {
  id: string;
  webhookId: string;
  projectId: string;
  eventType: string;
  orderKey: string;
  payload: string;
  maxAttempts: number;
  nextAttemptAt: number;
  claimedUntil: number;
  claimedBy: string;
  createdAt: string;
}

export interface AttemptRecord {
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  ok: number;
  error: string | null;
  response_excerpt: string | null;
}

/** The outcome of one try of a claimed delivery. */
export interface DeliveryOutcome {
  attemptId: string;
  attempt: number;
  status: "pending" | "succeeded" | "failed";
  nextAttemptAt: number;
  statusCode: number | null;
  error: string | null;
  completedAt: string | null;
  ok: boolean;
  excerpt: string | null;
  startedAt: string;
  durationMs: number;
}

export interface WebhookDeliveryRepository {
  enqueue(rows: NewDelivery[]): Promise<void>;
  insertClaimed(r: NewClaimedDelivery): Promise<DeliveryRecord>;
  inWebhook(projectId: string, webhookId: string, id: string): Promise<DeliveryRecord | null>;
  /** Newest first, ids below `before` ("~": from the top), optionally of one status; at most `limit`. */
  listForWebhook(webhookId: string, status: string | null, before: string, limit: number): Promise<DeliveryRecord[]>;
  attempts(deliveryId: string): Promise<AttemptRecord[]>;
  /**
   * Claims (claimed_until = until, claimed_by = worker) at most `limit` due deliveries of one
   * webhook whose claim has lapsed, earliest due first. An index probe: its cost does not grow
   * with the webhook's backlog. Several workers never claim the same row.
   */
  claim(workerId: string, webhookId: string, now: number, until: number, limit: number): Promise<DeliveryRecord[]>;
  /** Gives back claims of this worker. */
  release(workerId: string, ids: string[]): Promise<void>;
  /** When the webhook's earliest pending delivery may be tried (a claim counts until it lapses); null: none pending. */
  nextDue(webhookId: string): Promise<number | null>;
  /** Pending deliveries of a webhook. */
  pendingCount(webhookId: string): Promise<number>;
  /** A completed delivery goes back to pending for one more try now; null if it is pending already (or unknown). */
  redeliver(id: string, now: number): Promise<DeliveryRecord | null>;
  /**
   * Records a try of a delivery claimed as `d` (its attempts and claimed_by then), releasing the
   * claim, and logs the attempt. False (nothing written) when the claim was lost meanwhile.
   */
  record(d: Pick<DeliveryRecord, "id" | "claimed_by" | "attempts">, o: DeliveryOutcome): Promise<boolean>;
  /** Deletes at most `limit` of the deliveries completed before `before` (with their attempts; callers loop). */
  prune(before: string, limit: number): Promise<number>;
}

/** The alerts table's columns in the order alertValues() gives them: one list for every engine's INSERT. */
export const ALERT_COLUMNS =
  "id, project_id, user_id, type, channel, severity, title, detail, resource_type, resource_id, inbox_id, inbox_address, count, occurred_at, read_at";

/**
 * What makes alerts.raise coalesce, on every engine (after `INSERT INTO alerts (ALERT_COLUMNS) VALUES …`): the unread
 * alert of the same user, project, type and resource counts one more and takes the newest details, in the same
 * statement, so two nodes raising it at once give one alert with count 2.
 */
export const ALERT_COALESCE = `ON CONFLICT (user_id, project_id, type, resource_id) WHERE read_at IS NULL DO UPDATE
           SET count = alerts.count + 1, occurred_at = excluded.occurred_at, detail = excluded.detail,
               inbox_id = excluded.inbox_id, inbox_address = excluded.inbox_address
         RETURNING *`;

/** An alert record as the values of ALERT_COLUMNS. */
export function alertValues(r: AlertRecord): (string | number | null)[] {
  return [
    r.id,
    r.project_id,
    r.user_id,
    r.type,
    r.channel,
    r.severity,
    r.title,
    r.detail,
    r.resource_type,
    r.resource_id,
    r.inbox_id,
    r.inbox_address,
    r.count,
    r.occurred_at,
    r.read_at,
  ];
}

export interface AlertRecord {
  id: string;
  project_id: string;
  user_id: string;
  type: string;
  channel: string;
  severity: string;
  title: string;
  detail: string;
  resource_type: string;
  resource_id: string;
  inbox_id: string;
  inbox_address: string;
  count: number;
  occurred_at: string;
  read_at: string | null;
}

export interface AlertFilter {
  unread: boolean | null;
  channel: string | null;
  type: string | null;
}

export interface AlertRepository {
  /**
   * Raises an alert in one statement: inserts `r` (unread), or, when the user already has an unread
   * alert of this type and resource, bumps that one instead (count + 1, time, detail and inbox).
   * The partial unique index `alerts_coalesce` decides (INSERT … ON CONFLICT … DO UPDATE), so two
   * nodes raising the same alert at once make one alert counted twice, never two alerts nor an error.
   * Returns the row after, and whether it is `r` (created) or the bumped one.
   */
  raise(r: AlertRecord): Promise<{ row: AlertRecord; created: boolean }>;
  setTitle(id: string, title: string): Promise<AlertRecord>;
  insert(r: AlertRecord): Promise<AlertRecord>;
  /** The user's alerts in the project, newest first, ids below `before` ("~": from the top). */
  list(userId: string, projectId: string, f: AlertFilter, before: string, limit: number): Promise<AlertRecord[]>;
  unreadCount(userId: string, projectId: string): Promise<number>;
  markAllRead(userId: string, projectId: string, readAt: string): Promise<void>;
  /** Which of these ids are alerts of the user in the project. */
  existing(userId: string, projectId: string, ids: string[]): Promise<string[]>;
  markRead(userId: string, projectId: string, ids: string[], readAt: string): Promise<void>;
  /** The owners of a team (who receive its team alerts). */
  teamOwnerIds(teamId: string): Promise<string[]>;
}

export interface EventsRepositories {
  eventLog: EventLogRepository;
  webhooks: WebhookRepository;
  webhookDeliveries: WebhookDeliveryRepository;
  alerts: AlertRepository;
}
