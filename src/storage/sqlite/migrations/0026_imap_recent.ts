// IMAP \Recent (RFC 3501 §2.3.2): a message is recent in the one session that first selects its
// mailbox after it arrived. Kept as a watermark per mailbox, the highest UID already handed to a
// session (UIDs ascend in every mailbox), not as a flag per message: a SELECT moves the mark and
// counts the index range above it, never touching the rows. mailbox '' is INBOX (mailbox_id NULL).
// A mailbox without a row has handed out nothing yet (INBOX: see imap-folders.ts, recentMark).
import type { TwoDialectMigration } from "./dialects";

const sqlite = /* sql */ `
CREATE TABLE imap_recent (
  inbox_id TEXT NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  mailbox TEXT NOT NULL,
  last_uid INTEGER NOT NULL,
  PRIMARY KEY (inbox_id, mailbox)
) WITHOUT ROWID;
`;

// PostgreSQL: the same table; a UID is a BIGINT there (the baseline's mapping).
const postgres = /* sql */ `
CREATE TABLE imap_recent (
  inbox_id TEXT NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  mailbox TEXT NOT NULL,
  last_uid BIGINT NOT NULL,
  PRIMARY KEY (inbox_id, mailbox)
);
`;

export default { sqlite, postgres } satisfies TwoDialectMigration;
