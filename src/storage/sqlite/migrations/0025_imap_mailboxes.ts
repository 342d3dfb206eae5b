// IMAP mailboxes per inbox (issue 21). INBOX is not a row: it is the inbox itself (its UIDVALIDITY
// and UIDNEXT are the inbox's, SMTP delivers there, POP3 serves it), and a message with
// mailbox_id NULL is in INBOX, so the million messages of an existing inbox move to no new place
// (ADD COLUMN with a NULL default rewrites nothing). UIDs stay unique per inbox (UNIQUE(inbox_id,
// uid) of 0002): every mailbox takes its UIDs from the inbox's counter, so they ascend in each
// mailbox and a UID names one message of the inbox wherever it is filed; each mailbox keeps its
// own UIDNEXT (bumped only when mail is added to it) and UIDVALIDITY.
//
// imap_flags holds what IMAP keeps beyond \Seen, \Flagged and \Deleted (which have columns):
// \Answered, \Draft and keywords, space-separated, NULL for the (usual) message with none; a
// partial index finds the few that have some.
//
// The view index of 0023 gains mailbox_id after inbox_id (same name: the queries say INDEXED BY
// it), so one mailbox's UIDs, sizes and flags stay an index-only range walk.
export default /* sql */ `
CREATE TABLE imap_mailboxes (
  id TEXT PRIMARY KEY,
  inbox_id TEXT NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  uid_validity INTEGER NOT NULL,
  uid_next INTEGER NOT NULL DEFAULT 1,
  subscribed INTEGER NOT NULL DEFAULT 1,
  special_use TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (inbox_id, name)
);
ALTER TABLE messages ADD COLUMN mailbox_id TEXT;
ALTER TABLE messages ADD COLUMN imap_flags TEXT;
CREATE INDEX messages_imap_flags ON messages(inbox_id, uid) WHERE imap_flags IS NOT NULL;
DROP INDEX IF EXISTS messages_mailbox;
CREATE INDEX messages_mailbox ON messages(inbox_id, mailbox_id, uid, size_bytes, read, flagged, deleted_flag);
`;
