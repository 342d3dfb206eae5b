// PostgreSQL baseline: the SQLite schema after migration 0025, table for table, column for column,
// index for index (test/storage/schema-parity.test.ts compares the two engines' catalogues and
// fails on any drift). Later migrations carry both dialects (see ./index.ts).
//
// Type mapping: TEXT stays TEXT (timestamps too: ISO-8601 strings compare and round-trip exactly
// as in SQLite); INTEGER becomes INTEGER, or BIGINT where it holds bytes, epoch milliseconds,
// UIDs or sequence numbers; BLOB becomes BYTEA; REAL becomes DOUBLE PRECISION; events.seq's
// AUTOINCREMENT becomes an identity column. Booleans stay 0/1 INTEGERs so that both engines'
// repositories read the same values.
//
// SQLite-only pieces and what stands in for them here:
// - the counter triggers (messages_ai, messages_ad, messages_au_read) and messages_ad_events:
//   PL/pgSQL trigger functions with the same effect, below;
// - search_queue and its trigger (the FTS5 index lives in a second SQLite file, filled after the
//   commit): PostgreSQL indexes in the same transaction, messages.search_vector (tsvector, filled by
//   the mail repository) with a GIN index, so no queue;
// - text_z/html_z (zstd bodies) and blobs_inline.codec: kept for parity, but the PostgreSQL
//   repositories write plain text and codec 0, TOAST compresses large values itself.
export default `
CREATE TABLE teams (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  plan TEXT NOT NULL,
  created_at TEXT NOT NULL,
  used_bytes BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  team_id TEXT NOT NULL REFERENCES teams(id),
  email TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('owner','admin','member')),
  created_at TEXT NOT NULL
);
CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  team_id TEXT NOT NULL REFERENCES teams(id),
  slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  environment TEXT NOT NULL DEFAULT 'live',
  settings TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL
);
CREATE INDEX projects_team ON projects(team_id);
CREATE TABLE device_sessions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  last_seen_at TEXT
);
CREATE INDEX device_sessions_user ON device_sessions(user_id);
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  environment TEXT NOT NULL DEFAULT 'live',
  secret_hash TEXT NOT NULL UNIQUE,
  last_four TEXT NOT NULL,
  scopes TEXT NOT NULL,
  last_used_at TEXT,
  expires_at TEXT,
  revoked_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX api_keys_project ON api_keys(project_id, id);
CREATE TABLE idempotency_keys (
  principal_id TEXT NOT NULL,
  route TEXT NOT NULL,
  key TEXT NOT NULL,
  body_hash TEXT NOT NULL,
  status INTEGER NOT NULL,
  body TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (principal_id, route, key)
);
CREATE INDEX idempotency_created ON idempotency_keys(created_at);
CREATE TABLE inboxes (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  address TEXT NOT NULL UNIQUE,
  local_part TEXT NOT NULL,
  domain TEXT NOT NULL,
  domain_id TEXT,
  name TEXT,
  type TEXT NOT NULL CHECK (type IN ('disposable','persistent')),
  status TEXT NOT NULL DEFAULT 'active',
  password_enc TEXT NOT NULL,
  uid_validity BIGINT NOT NULL,
  uid_next BIGINT NOT NULL DEFAULT 1,
  expires_at TEXT,
  expiring_alerted_at TEXT,
  created_by_session TEXT,
  message_count INTEGER NOT NULL DEFAULT 0,
  unread_count INTEGER NOT NULL DEFAULT 0,
  used_bytes BIGINT NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  catch_all INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX inboxes_project ON inboxes(project_id, id);
CREATE INDEX inboxes_expiry ON inboxes(expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE messages (
  id TEXT PRIMARY KEY,
  inbox_id TEXT NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL,
  uid INTEGER NOT NULL,
  blob_key TEXT NOT NULL,
  size_bytes BIGINT NOT NULL,
  logical_size_bytes BIGINT NOT NULL,
  envelope_from TEXT,
  envelope_to TEXT NOT NULL,
  from_email TEXT NOT NULL DEFAULT '',
  from_name TEXT NOT NULL DEFAULT '',
  to_json TEXT NOT NULL DEFAULT '[]',
  cc_json TEXT NOT NULL DEFAULT '[]',
  subject TEXT NOT NULL DEFAULT '',
  preview TEXT NOT NULL DEFAULT '',
  text_body TEXT,
  html_body TEXT,
  codes TEXT NOT NULL DEFAULT '[]',
  links TEXT NOT NULL DEFAULT '[]',
  headers TEXT NOT NULL DEFAULT '[]',
  headers_truncated INTEGER NOT NULL DEFAULT 0,
  message_id_header TEXT,
  sent_at TEXT,
  attachment_count INTEGER NOT NULL DEFAULT 0,
  parse_error TEXT,
  read INTEGER NOT NULL DEFAULT 0,
  flagged INTEGER NOT NULL DEFAULT 0,
  deleted_flag INTEGER NOT NULL DEFAULT 0,
  received_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  text_z BYTEA,
  html_z BYTEA,
  mailbox_id TEXT,
  imap_flags TEXT,
  UNIQUE (inbox_id, uid)
);
CREATE INDEX messages_inbox ON messages(inbox_id, id);
CREATE INDEX messages_blob ON messages(blob_key);
CREATE INDEX messages_expiry ON messages(expires_at);
CREATE TABLE attachments (
  id TEXT PRIMARY KEY,
  message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  filename TEXT NOT NULL,
  declared_content_type TEXT NOT NULL,
  served_content_type TEXT NOT NULL,
  disposition TEXT NOT NULL DEFAULT 'attachment',
  content_id TEXT,
  size_bytes BIGINT NOT NULL,
  sha256 TEXT NOT NULL,
  blob_key TEXT NOT NULL
);
CREATE INDEX attachments_message ON attachments(message_id, position);
CREATE INDEX attachments_blob ON attachments(blob_key);
CREATE TABLE inbox_watches (
  inbox_id TEXT NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  device_session_id TEXT NOT NULL REFERENCES device_sessions(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (inbox_id, device_session_id)
);
CREATE INDEX inbox_watches_device ON inbox_watches(device_session_id);
CREATE TABLE events (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  project_id TEXT NOT NULL,
  type TEXT NOT NULL,
  inbox_id TEXT,
  -- set: only that user's streams see it (alerts); null: everyone in the project
  user_id TEXT,
  data TEXT NOT NULL,
  occurred_at TEXT NOT NULL,
  message_id TEXT
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
  updated_at TEXT NOT NULL,
  delivery_seq BIGINT NOT NULL DEFAULT 0,
  paused INTEGER NOT NULL DEFAULT 0,
  consecutive_failures INTEGER NOT NULL DEFAULT 0,
  circuit_open_until BIGINT NOT NULL DEFAULT 0,
  last_success_at TEXT,
  last_failure_at TEXT
);
CREATE INDEX webhooks_project ON webhooks(project_id, id);
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
  next_attempt_at BIGINT NOT NULL,
  claimed_until BIGINT NOT NULL DEFAULT 0,
  claimed_by TEXT,
  last_status_code INTEGER,
  last_error TEXT,
  created_at TEXT NOT NULL,
  completed_at TEXT,
  seq BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE status = 'pending';
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
CREATE UNIQUE INDEX alerts_coalesce ON alerts(user_id, project_id, type, resource_id) WHERE read_at IS NULL;
CREATE INDEX inboxes_domain ON inboxes(domain_id) WHERE domain_id IS NOT NULL;
CREATE TABLE agents (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  permissions TEXT NOT NULL DEFAULT '[]',
  preset TEXT,
  revoked_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX agents_project ON agents(project_id, id);
CREATE UNIQUE INDEX agents_standard ON agents(project_id) WHERE preset = 'standard' AND revoked_at IS NULL;
CREATE TABLE http_origins (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  origin TEXT NOT NULL,
  scheme TEXT NOT NULL,
  host TEXT NOT NULL,
  port INTEGER NOT NULL,
  is_wildcard INTEGER NOT NULL DEFAULT 0,
  description TEXT,
  last_used_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (project_id, origin)
);
CREATE INDEX http_origins_project ON http_origins(project_id, id);
CREATE TABLE scenario_secrets (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value_enc TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1,
  last_used_at TEXT,
  rotated_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (project_id, name)
);
CREATE INDEX scenario_secrets_project ON scenario_secrets(project_id, id);
CREATE TABLE scenarios (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  draft_definition TEXT NOT NULL DEFAULT '{}',
  draft_revision INTEGER NOT NULL DEFAULT 1,
  current_version_id TEXT,
  deleted_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX scenarios_project ON scenarios(project_id, id);
CREATE TABLE scenario_versions (
  id TEXT PRIMARY KEY,
  scenario_id TEXT NOT NULL REFERENCES scenarios(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  schema_version INTEGER NOT NULL,
  definition TEXT NOT NULL,
  definition_hash TEXT NOT NULL,
  required_permissions TEXT NOT NULL,
  has_test_mutations INTEGER NOT NULL,
  published_at TEXT NOT NULL,
  UNIQUE (scenario_id, version)
);
CREATE INDEX scenario_versions_scenario ON scenario_versions(scenario_id, id);
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  agent_id TEXT NOT NULL,
  agent_name TEXT NOT NULL,
  scenario_id TEXT,
  scenario_name TEXT NOT NULL DEFAULT '',
  version_id TEXT,
  version INTEGER NOT NULL DEFAULT 0,
  trigger_type TEXT NOT NULL,
  trigger TEXT NOT NULL DEFAULT '{}',
  status TEXT NOT NULL CHECK (status IN ('queued','running','awaiting_approval','succeeded','failed','cancelled','timed_out')),
  inputs TEXT NOT NULL DEFAULT '{}',
  current_step_index INTEGER NOT NULL DEFAULT 0,
  step_count INTEGER NOT NULL DEFAULT 0,
  steps TEXT NOT NULL DEFAULT '[]',
  outputs TEXT NOT NULL DEFAULT '{}',
  approved_step_index INTEGER,
  failed_assertions TEXT NOT NULL DEFAULT '[]',
  error_code TEXT,
  error_message TEXT,
  finishing_status TEXT,
  cleanup_status TEXT NOT NULL DEFAULT 'pending',
  cleanup_error TEXT,
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  claimed_by TEXT,
  claimed_until TEXT,
  deadline_at TEXT,
  launched_by_user TEXT,
  started_at TEXT,
  finished_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX runs_project ON runs(project_id, id);
CREATE INDEX runs_project_status ON runs(project_id, status, id);
CREATE INDEX runs_active ON runs(status, claimed_until) WHERE status IN ('queued','running');
CREATE INDEX runs_cleanup ON runs(cleanup_status) WHERE cleanup_status = 'pending';
CREATE TABLE run_events (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  type TEXT NOT NULL,
  payload TEXT NOT NULL DEFAULT '{}',
  occurred_at TEXT NOT NULL,
  UNIQUE (run_id, sequence)
);
CREATE TABLE run_cleanup (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL,
  resource_type TEXT NOT NULL,
  resource_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  removed_at TEXT,
  error TEXT
);
CREATE INDEX run_cleanup_run ON run_cleanup(run_id);
CREATE TABLE agent_sessions (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  principal_kind TEXT NOT NULL,
  principal_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  scopes TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('open','released','expired')),
  expires_at TEXT NOT NULL,
  released_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX agent_sessions_project ON agent_sessions(project_id, id);
CREATE INDEX agent_sessions_open ON agent_sessions(expires_at) WHERE status = 'open';
CREATE TABLE approvals (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  run_id TEXT NOT NULL,
  step_index INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending','approved','rejected','expired')),
  action TEXT NOT NULL,
  target_resource_type TEXT NOT NULL,
  target_resource_id TEXT NOT NULL,
  binding_snapshot TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  decided_at TEXT,
  decided_by TEXT,
  decision_reason TEXT,
  self_approved INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE INDEX approvals_project ON approvals(project_id, id);
CREATE INDEX approvals_pending ON approvals(expires_at) WHERE status = 'pending';
CREATE UNIQUE INDEX approvals_run_step ON approvals(run_id, step_index) WHERE status = 'pending';
CREATE TABLE blobs_inline (
  key TEXT PRIMARY KEY,
  bytes BYTEA NOT NULL,
  codec INTEGER NOT NULL DEFAULT 0,
  raw_size BIGINT
);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(webhook_id, next_attempt_at) WHERE status = 'pending';
CREATE TABLE inbox_chaos_rules (
  inbox_id TEXT NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  stage TEXT NOT NULL CHECK (stage IN ('rcpt','data')),
  code INTEGER NOT NULL CHECK (code BETWEEN 400 AND 599),
  message TEXT,
  rate DOUBLE PRECISION NOT NULL DEFAULT 1 CHECK (rate >= 0 AND rate <= 1),
  delay_ms INTEGER NOT NULL DEFAULT 0 CHECK (delay_ms >= 0),
  created_at TEXT NOT NULL,
  PRIMARY KEY (inbox_id, position)
);
CREATE UNIQUE INDEX inboxes_catch_all ON inboxes(catch_all) WHERE catch_all = 1;
CREATE INDEX messages_project ON messages(project_id, id);
CREATE TABLE signin_tokens (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX signin_tokens_expires ON signin_tokens(expires_at);
CREATE TABLE message_auth (
  message_id TEXT PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
  client_ip TEXT,
  helo TEXT,
  verdict TEXT CHECK (verdict IN ('pass', 'fail', 'none')),
  result_json TEXT,
  checked_at TEXT
);
CREATE INDEX message_auth_pending ON message_auth (message_id) WHERE verdict IS NULL;
CREATE TABLE domains (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  domain TEXT NOT NULL,
  mode TEXT NOT NULL DEFAULT 'normal',
  status TEXT NOT NULL CHECK (status IN ('pending','verified','failed')),
  dkim_selector TEXT NOT NULL,
  dkim_private_key_enc TEXT NOT NULL,
  dkim_public_key TEXT NOT NULL,
  ownership_token TEXT NOT NULL,
  catch_all_inbox_id TEXT REFERENCES inboxes(id) ON DELETE SET NULL,
  verified_at TEXT,
  last_checked_at TEXT,
  failure_reason TEXT,
  record_status TEXT NOT NULL DEFAULT '{}',
  check_claimed_until TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX domains_project ON domains(project_id, id);
CREATE INDEX domains_pending ON domains(status, last_checked_at);
CREATE INDEX domains_catch_all ON domains(catch_all_inbox_id) WHERE catch_all_inbox_id IS NOT NULL;
CREATE INDEX domains_name ON domains(domain);
CREATE UNIQUE INDEX domains_verified_name ON domains(domain) WHERE status = 'verified';
CREATE UNIQUE INDEX domains_project_name ON domains(project_id, domain);
CREATE INDEX events_message ON events(message_id) WHERE message_id IS NOT NULL;
CREATE INDEX webhook_deliveries_pending_event ON webhook_deliveries(event_id) WHERE status = 'pending';
CREATE TABLE imap_mailboxes (
  id TEXT PRIMARY KEY,
  inbox_id TEXT NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  uid_validity BIGINT NOT NULL,
  uid_next BIGINT NOT NULL DEFAULT 1,
  subscribed INTEGER NOT NULL DEFAULT 1,
  special_use TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (inbox_id, name)
);
CREATE INDEX messages_imap_flags ON messages(inbox_id, uid) WHERE imap_flags IS NOT NULL;
CREATE INDEX messages_mailbox ON messages(inbox_id,
  mailbox_id, uid, size_bytes, read, flagged, deleted_flag);

-- The counters the SQLite triggers of 0002_mail keep.
CREATE FUNCTION messages_counters() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE inboxes SET message_count = message_count + 1, unread_count = unread_count + (1 - NEW.read),
      used_bytes = used_bytes + NEW.size_bytes WHERE id = NEW.inbox_id;
    UPDATE teams SET used_bytes = used_bytes + NEW.size_bytes WHERE id = (SELECT team_id FROM projects WHERE id = NEW.project_id);
    RETURN NEW;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE inboxes SET message_count = message_count - 1, unread_count = unread_count - (1 - OLD.read),
      used_bytes = used_bytes - OLD.size_bytes WHERE id = OLD.inbox_id;
    UPDATE teams SET used_bytes = used_bytes - OLD.size_bytes WHERE id = (SELECT team_id FROM projects WHERE id = OLD.project_id);
    -- messages_ad_events (0022): a message's events go with it, unless a webhook delivery still waits on one.
    DELETE FROM events WHERE message_id = OLD.id
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id AND d.status = 'pending');
    RETURN OLD;
  ELSE
    IF OLD.read <> NEW.read THEN
      UPDATE inboxes SET unread_count = unread_count + (OLD.read - NEW.read) WHERE id = NEW.inbox_id;
    END IF;
    RETURN NEW;
  END IF;
END $$;
CREATE TRIGGER messages_ai AFTER INSERT ON messages FOR EACH ROW EXECUTE FUNCTION messages_counters();
CREATE TRIGGER messages_ad AFTER DELETE ON messages FOR EACH ROW EXECUTE FUNCTION messages_counters();
CREATE TRIGGER messages_au_read AFTER UPDATE OF read ON messages FOR EACH ROW EXECUTE FUNCTION messages_counters();

-- Full-text search in the database itself (SQLite: FTS5 in a second file, see above).
ALTER TABLE messages ADD COLUMN search_vector tsvector;
CREATE INDEX messages_search ON messages USING GIN (search_vector);
`;
