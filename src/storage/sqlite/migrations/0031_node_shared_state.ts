// Shared state of several nodes on one database (issue 20, docs/scaling.md).
//
// instance_meta: the instance key's verifier: a value sealed with INBOXD_SECRET_KEY when the database
// was first opened with this migration. Nodes sharing one PostgreSQL must share the key; a node
// whose key cannot open the verifier refuses to start (runtime/secret-check.ts) instead of failing
// on each sealed value later. On SQLite it catches a changed INBOXD_SECRET_KEY or a lost
// secret.key the same way. One row per name, so later instance-wide values can live here too.
//
// message_auth.check_claimed_until/_by: the SPF/DKIM/DMARC checker claims its batch (a lease), so
// two nodes never check one message twice; a dead node's claims lapse and another node takes them,
// and the same node restarted (claimed_by names the node: host and data directory) takes its own
// back at once.
import type { TwoDialectMigration } from "./dialects";

const sqlite = /* sql */ `
CREATE TABLE instance_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL, created_at TEXT NOT NULL);
ALTER TABLE message_auth ADD COLUMN check_claimed_until TEXT;
ALTER TABLE message_auth ADD COLUMN check_claimed_by TEXT;
`;

const postgres = /* sql */ `
CREATE TABLE instance_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL, created_at TEXT NOT NULL);
ALTER TABLE message_auth ADD COLUMN check_claimed_until TEXT;
ALTER TABLE message_auth ADD COLUMN check_claimed_by TEXT;
`;

export default { sqlite, postgres } satisfies TwoDialectMigration;
