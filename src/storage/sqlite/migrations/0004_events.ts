// Events: the project event log (SSE resume and webhook payload source), webhooks with their
// outbox of deliveries and per-try log, and per-user alerts.
export default /* sql */ `
-- seq is assigned under SQLite's single writer lock, so commit order = seq order: a reader that
-- resumes "after seq N" never misses a row committed later with a smaller key (ULIDs from
-- several processes could interleave that way).
CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  project_id TEXT NOT NULL,
  type TEXT NOT NULL,
  inbox_id TEXT,
  -- set: only that user's streams see it (alerts); null: everyone in the project
  user_id TEXT,
  data TEXT NOT NULL,
  occurred_at TEXT NOT NULL
);
CREATE INDEX events_project_seq ON events(project_id, seq);
CREATE INDEX events_occurred ON events(occurred_at);

CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  description TEXT,
  event_types TEXT NOT NULL,
  -- no foreign key: a filter on an inbox outlives it (and still hears its inbox.expired)
  inbox_id TEXT,
  enabled INTEGER NOT NULL DEFAULT 1,
  secret_enc TEXT NOT NULL,
  -- after a rotation the old secret also signs, until previous_expires_at (Standard Webhooks
  -- receivers accept any of several space-separated signatures)
  previous_secret_enc TEXT,
  previous_expires_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX webhooks_project ON webhooks(project_id, id);

-- The outbox: one row per (event, webhook), written in the transaction that produced the event.
-- id doubles as the webhook-id header (stable across retries, so receivers can de-duplicate).
CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL,
  event_id TEXT,
  event_type TEXT NOT NULL,
  -- deliveries of one webhook with the same order_key are sent one at a time, oldest first
  order_key TEXT NOT NULL DEFAULT '',
  -- inline body for deliveries without an event row (the test send)
  payload TEXT,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','succeeded','failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  next_attempt_at INTEGER NOT NULL,
  claimed_until INTEGER NOT NULL DEFAULT 0,
  claimed_by TEXT,
  last_status_code INTEGER,
  last_error TEXT,
  created_at TEXT NOT NULL,
  completed_at TEXT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_queue ON webhook_deliveries(webhook_id, order_key, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_list ON webhook_deliveries(webhook_id, id);
CREATE INDEX webhook_deliveries_completed ON webhook_deliveries(completed_at) WHERE completed_at IS NOT NULL;

CREATE TABLE webhook_attempts (
  id TEXT PRIMARY KEY,
  delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  duration_ms INTEGER NOT NULL,
  status_code INTEGER,
  ok INTEGER NOT NULL,
  error TEXT,
  response_excerpt TEXT
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts(delivery_id, attempt);

CREATE TABLE alerts (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  channel TEXT NOT NULL,
  severity TEXT NOT NULL,
  title TEXT NOT NULL,
  detail TEXT NOT NULL,
  resource_type TEXT NOT NULL,
  resource_id TEXT NOT NULL,
  -- kept as copies: the alert outlives its inbox
  inbox_id TEXT NOT NULL,
  inbox_address TEXT NOT NULL,
  count INTEGER NOT NULL DEFAULT 1,
  occurred_at TEXT NOT NULL,
  read_at TEXT
);
CREATE INDEX alerts_user ON alerts(user_id, project_id, id);
CREATE INDEX alerts_unread ON alerts(user_id, project_id) WHERE read_at IS NULL;
-- at most one unread alert per user, type and resource: further occurrences bump its count
CREATE UNIQUE INDEX alerts_coalesce ON alerts(user_id, project_id, type, resource_id) WHERE read_at IS NULL;
`;
