// PostgreSQL migrations, embedded in the binary like SQLite's (../../sqlite/migrations).
//
// One source of truth for both engines: PostgreSQL starts from one baseline equal to SQLite's
// schema after 0025 (version 25, so both engines' schema_migrations agree on what is applied),
// and from 0026 on every migration is one file under src/storage/sqlite/migrations exporting both
// dialects ({ sqlite, postgres }), listed in both indexes with the same version. The schema parity
// test (test/storage/schema-parity.test.ts) compares the two catalogues after migrating, so a
// migration written for one engine only fails the suite.
//
// Append only: a released migration is never edited; add the next number instead.
import m0026 from "../../sqlite/migrations/0026_imap_recent";
import m0027 from "../../sqlite/migrations/0027_imap_orphan_subscriptions";
import m0028 from "../../sqlite/migrations/0028_condstore";
import m0029 from "../../sqlite/migrations/0029_uids_per_mailbox";
import m0030 from "../../sqlite/migrations/0030_condstore_follow_moves";
import m0031 from "../../sqlite/migrations/0031_node_shared_state";
import m0032 from "../../sqlite/migrations/0032_blob_chunks";
import m0033 from "../../sqlite/migrations/0033_team_bytes_from_inboxes";
import m0034 from "../../sqlite/migrations/0034_blob_touched_at";
import m0035 from "../../sqlite/migrations/0035_smtp_chaos";
import baseline from "./0025_baseline";

export const postgresMigrations: { version: number; name: string; sql: string }[] = [
  { version: 25, name: "baseline_sqlite_0025", sql: baseline },
  { version: 26, name: "imap_recent", sql: m0026.postgres },
  { version: 27, name: "imap_orphan_subscriptions", sql: m0027.postgres },
  { version: 28, name: "condstore", sql: m0028.postgres },
  { version: 29, name: "uids_per_mailbox", sql: m0029.postgres },
  { version: 30, name: "condstore_follow_moves", sql: m0030.postgres },
  { version: 31, name: "node_shared_state", sql: m0031.postgres },
  { version: 32, name: "blob_chunks", sql: m0032.postgres },
  { version: 33, name: "team_bytes_from_inboxes", sql: m0033.postgres },
  { version: 34, name: "blob_touched_at", sql: m0034.postgres },
  { version: 35, name: "smtp_chaos", sql: m0035.postgres },
];
