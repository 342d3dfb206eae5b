// Custom domains: DNS records a user publishes, their verification state, the DKIM key pair (the
// private half sealed with the instance key) and the optional catch-all inbox.
export default /* sql */ `
CREATE TABLE domains (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  domain TEXT NOT NULL UNIQUE,
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
CREATE INDEX inboxes_domain ON inboxes(domain_id) WHERE domain_id IS NOT NULL;
`;
