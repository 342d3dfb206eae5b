// A domain name was UNIQUE across the instance, so the first tenant to type a name held it (and
// told every other tenant that it had): with DNS verification on, several projects may now claim
// a name while pending, and the first verified wins it (one verified row per name, enforced
// here). SQLite cannot drop a column constraint, so the table is rebuilt; nothing references
// domains by foreign key (inboxes.domain_id is a plain column), so the drop cascades nowhere.
export default /* sql */ `
CREATE TABLE domains_rebuilt (
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
INSERT INTO domains_rebuilt SELECT id, project_id, domain, mode, status, dkim_selector, dkim_private_key_enc, dkim_public_key,
  ownership_token, catch_all_inbox_id, verified_at, last_checked_at, failure_reason, record_status, check_claimed_until, created_at
  FROM domains;
DROP TABLE domains;
ALTER TABLE domains_rebuilt RENAME TO domains;
CREATE INDEX domains_project ON domains(project_id, id);
CREATE INDEX domains_pending ON domains(status, last_checked_at);
CREATE INDEX domains_catch_all ON domains(catch_all_inbox_id) WHERE catch_all_inbox_id IS NOT NULL;
CREATE INDEX domains_name ON domains(domain);
CREATE UNIQUE INDEX domains_verified_name ON domains(domain) WHERE status = 'verified';
CREATE UNIQUE INDEX domains_project_name ON domains(project_id, domain);
`;
