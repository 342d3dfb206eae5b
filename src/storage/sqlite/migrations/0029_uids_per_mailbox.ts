// UIDs per mailbox (issue 21; RFC 3501 §2.3.1.1): every mailbox, INBOX included, hands out its own
// ascending UIDs from its own counter (INBOX: inboxes.uid_next; others: imap_mailboxes.uid_next),
// so a mailbox's next UID is always the UIDNEXT it announced, whatever happened in the others.
// Two mailboxes of an inbox may now hold the same UID: uniqueness is per mailbox.
//
// UNIQUE (inbox_id, uid) is a table constraint of 0002, which SQLite cannot drop: the table is
// rebuilt as https://www.sqlite.org/lang_altertable.html ("Making Other Kinds Of Table Schema
// Changes") says. The new table's SQL is the stored one without the constraint (so the columns
// added since 0002 come along in their order), rows keep their rowids (the full-text index, the
// search queue and the inline blobs key on them), and every index and trigger on messages is
// recreated from its stored SQL. Runs with foreign keys off (migrate() sees to it): dropping the
// old table must not cascade into attachments and message_auth, which reference messages(id).
import type { Database } from "bun:sqlite";
import type { TwoDialectMigration } from "./dialects";

const CONSTRAINT = /,\s*UNIQUE \(inbox_id, uid\)\s*\)\s*$/;

function sqlite(db: Database): void {
  const table = db.query("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'messages'").get() as { sql: string };
  if (!CONSTRAINT.test(table.sql)) throw new Error("migration 0029: messages has no UNIQUE (inbox_id, uid) to drop");
  const rebuilt = table.sql.replace(/^CREATE TABLE "?messages"?/, "CREATE TABLE messages_new").replace(CONSTRAINT, "\n)");
  // Indexes and triggers on messages, in creation order (the autoindex of the constraint has no SQL).
  const dependents = db
    .query("SELECT sql FROM sqlite_master WHERE tbl_name = 'messages' AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY rowid")
    .all() as { sql: string }[];
  const columns = (db.query("SELECT name FROM pragma_table_info('messages')").all() as { name: string }[]).map((c) => c.name).join(", ");
  db.exec(rebuilt);
  db.exec(`INSERT INTO messages_new (rowid, ${columns}) SELECT rowid, ${columns} FROM messages`);
  db.exec("DROP TABLE messages");
  db.exec("ALTER TABLE messages_new RENAME TO messages");
  for (const d of dependents) db.exec(d.sql);
  // INBOX is the mail without a mailbox; every other mailbox is keyed by its id.
  db.exec("CREATE UNIQUE INDEX messages_uid_inbox ON messages(inbox_id, uid) WHERE mailbox_id IS NULL");
  db.exec("CREATE UNIQUE INDEX messages_uid_mailbox ON messages(inbox_id, mailbox_id, uid) WHERE mailbox_id IS NOT NULL");
  // A mailbox deleted and created again starts at UID 1 again, so its UIDVALIDITY must differ from
  // the old one's even within the same second: the inbox keeps the last one it handed out.
  db.exec("ALTER TABLE inboxes ADD COLUMN last_folder_uid_validity INTEGER NOT NULL DEFAULT 0");
  db.exec(`UPDATE inboxes SET last_folder_uid_validity =
             COALESCE((SELECT MAX(uid_validity) FROM imap_mailboxes f WHERE f.inbox_id = inboxes.id), 0)`);
  // A mailbox's counter must be above every UID it holds (until now its UIDs came from the inbox's
  // counter and it was only raised above them; this keeps it so for any row it may have missed).
  db.exec(`UPDATE imap_mailboxes SET uid_next = MAX(uid_next,
             COALESCE((SELECT MAX(uid) + 1 FROM messages m WHERE m.inbox_id = imap_mailboxes.inbox_id AND m.mailbox_id = imap_mailboxes.id), 1))`);
  // \Recent marks (0026) of other mailboxes were raised to the inbox's counter; their new UIDs come
  // from their own, lower counter and must land above the mark to be recent.
  db.exec(`UPDATE imap_recent SET last_uid = MIN(last_uid, (SELECT uid_next - 1 FROM imap_mailboxes f WHERE f.id = imap_recent.mailbox))
           WHERE mailbox <> ''`);
}

// PostgreSQL drops a constraint in place; the rest is the same.
const postgres = /* sql */ `
ALTER TABLE messages DROP CONSTRAINT messages_inbox_id_uid_key;
CREATE UNIQUE INDEX messages_uid_inbox ON messages(inbox_id, uid) WHERE mailbox_id IS NULL;
CREATE UNIQUE INDEX messages_uid_mailbox ON messages(inbox_id, mailbox_id, uid) WHERE mailbox_id IS NOT NULL;
ALTER TABLE inboxes ADD COLUMN last_folder_uid_validity BIGINT NOT NULL DEFAULT 0;
UPDATE inboxes SET last_folder_uid_validity =
  COALESCE((SELECT MAX(uid_validity) FROM imap_mailboxes f WHERE f.inbox_id = inboxes.id), 0);
UPDATE imap_mailboxes SET uid_next = GREATEST(uid_next,
  COALESCE((SELECT MAX(uid) + 1 FROM messages m WHERE m.inbox_id = imap_mailboxes.inbox_id AND m.mailbox_id = imap_mailboxes.id), 1));
UPDATE imap_recent SET last_uid = LEAST(last_uid, (SELECT uid_next - 1 FROM imap_mailboxes f WHERE f.id = imap_recent.mailbox))
  WHERE mailbox <> '';
`;

export default { sqlite, postgres } satisfies TwoDialectMigration;
