// MCP agent sessions and approvals of parked run steps.
export default /* sql */ `
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
`;
