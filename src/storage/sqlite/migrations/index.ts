// Versioned SQL migrations, embedded in the binary (no files read at run time).
// Append only: a released migration is never edited; add the next number instead. From 0026 on a
// migration carries both engines' SQL (./dialects.ts): list it here with `.sqlite` and in
// ../../postgres/migrations/index.ts with `.postgres`, under the same version and name.
import m0001 from "./0001_core";
import m0002 from "./0002_mail";
import m0003 from "./0003_inline_blobs";
import m0004 from "./0004_events";
import m0005 from "./0005_domains";
import m0006 from "./0006_automation";
import m0010 from "./0010_agent_sessions";
import m0013 from "./0013_inline_blobs_rowid";
import m0014 from "./0014_webhook_concurrency";
import m0015 from "./0015_inbox_chaos";
import m0016 from "./0016_catch_all_inbox";
import m0017 from "./0017_message_search";
import m0018 from "./0018_search_queue";
import m0019 from "./0019_signin_tokens";
import m0020 from "./0020_message_auth";
import m0021 from "./0021_idempotency_without_secrets";
import m0022 from "./0022_domain_claims";
import m0023 from "./0023_mailbox_view_index";
import m0024 from "./0024_compressed_storage";
import m0025 from "./0025_imap_mailboxes";
import m0026 from "./0026_imap_recent";
import m0027 from "./0027_imap_orphan_subscriptions";
import m0028 from "./0028_condstore";
import m0029 from "./0029_uids_per_mailbox";
import m0030 from "./0030_condstore_follow_moves";
import m0031 from "./0031_node_shared_state";
import m0032 from "./0032_blob_chunks";
import m0033 from "./0033_team_bytes_from_inboxes";
import m0034 from "./0034_blob_touched_at";
import m0035 from "./0035_smtp_chaos";
import type { Database } from "bun:sqlite";

/**
 * A migration is SQL, or (a table rebuild that reads the schema) a function; `foreignKeysOff`
 * runs it with PRAGMA foreign_keys off (checked with foreign_key_check before its commit).
 */
export interface Migration {
  version: number;
  name: string;
  sql: string | ((db: Database) => void);
  foreignKeysOff?: boolean;
}

export const migrations: Migration[] = [
  { version: 1, name: "core", sql: m0001 },
  { version: 2, name: "mail", sql: m0002 },
  { version: 3, name: "inline_blobs", sql: m0003 },
  { version: 4, name: "events", sql: m0004 },
  { version: 5, name: "domains", sql: m0005 },
  { version: 6, name: "automation", sql: m0006 },
  { version: 10, name: "agent_sessions", sql: m0010 },
  { version: 13, name: "inline_blobs_rowid", sql: m0013 },
  { version: 14, name: "webhook_concurrency", sql: m0014 },
  { version: 15, name: "inbox_chaos", sql: m0015 },
  { version: 16, name: "catch_all_inbox", sql: m0016 },
  { version: 17, name: "message_search", sql: m0017 },
  { version: 18, name: "search_queue", sql: m0018 },
  { version: 19, name: "signin_tokens", sql: m0019 },
  { version: 20, name: "message_auth", sql: m0020 },
  { version: 21, name: "idempotency_without_secrets", sql: m0021 },
  { version: 22, name: "domain_claims", sql: m0022 },
  { version: 23, name: "mailbox_view_index", sql: m0023 },
  { version: 24, name: "compressed_storage", sql: m0024 },
  { version: 25, name: "imap_mailboxes", sql: m0025 },
  { version: 26, name: "imap_recent", sql: m0026.sqlite },
  { version: 27, name: "imap_orphan_subscriptions", sql: m0027.sqlite },
  { version: 28, name: "condstore", sql: m0028.sqlite },
  { version: 29, name: "uids_per_mailbox", sql: m0029.sqlite, foreignKeysOff: true },
  { version: 30, name: "condstore_follow_moves", sql: m0030.sqlite },
  { version: 31, name: "node_shared_state", sql: m0031.sqlite },
  { version: 32, name: "blob_chunks", sql: m0032.sqlite },
  { version: 33, name: "team_bytes_from_inboxes", sql: m0033.sqlite },
  { version: 34, name: "blob_touched_at", sql: m0034.sqlite },
  { version: 35, name: "smtp_chaos", sql: m0035.sqlite },
];
