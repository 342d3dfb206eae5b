// The automation layer: agents, allowed HTTP origins, scenario secrets, scenarios and their
// published versions, runs with their event log and cleanup ledger.
export default /* sql */ `
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
`;
