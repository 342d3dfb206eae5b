// The instance key's verifier (issue 20): a value sealed with INBOXD_SECRET_KEY when the database
// was first opened with this migration. Nodes sharing one PostgreSQL must share the key; a node
// whose key cannot open the verifier refuses to start (runtime/secret-check.ts) instead of failing
// on each sealed value later. On SQLite it catches a changed INBOXD_SECRET_KEY or a lost
// secret.key the same way. One row per name, so later instance-wide values can live here too.
import type { TwoDialectMigration } from "./dialects";

const sqlite = /* sql */ `
CREATE TABLE instance_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL, created_at TEXT NOT NULL);
`;

const postgres = /* sql */ `
CREATE TABLE instance_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL, created_at TEXT NOT NULL);
`;

export default { sqlite, postgres } satisfies TwoDialectMigration;
