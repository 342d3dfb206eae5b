// CONDSTORE fix (0028): the safety-net trigger gave a row the next modseq of its (new) mailbox and
// left the counter to messages_modseq_au, which fires only when the modseq changed. A message
// filed in another mailbox (APPEND to a folder, RENAME INBOX) carries a modseq numbered by its old
// mailbox; when that number happened to equal the new mailbox's next value, the modseq "did not
// change", the counter stayed below it, and HIGHESTMODSEQ no longer covered the message. The
// trigger now moves the counter itself. Numbered 0030 to leave 0029 to the per-mailbox UIDs
// migration being written beside it.
//
// PostgreSQL has nothing to fix: its triggers (0028) take the value from the counter itself, under
// the counter row's lock, so the counter always moves with the row.
import type { TwoDialectMigration } from "./dialects";

const sqlite = /* sql */ `
DROP TRIGGER messages_modseq_net;
CREATE TRIGGER messages_modseq_net AFTER UPDATE OF read, flagged, deleted_flag, imap_flags, mailbox_id ON messages
WHEN NEW.modseq IS OLD.modseq AND (OLD.read IS NOT NEW.read OR OLD.flagged IS NOT NEW.flagged
  OR OLD.deleted_flag IS NOT NEW.deleted_flag OR OLD.imap_flags IS NOT NEW.imap_flags OR OLD.mailbox_id IS NOT NEW.mailbox_id)
BEGIN
  UPDATE messages SET modseq = 1 + CASE WHEN NEW.mailbox_id IS NULL THEN (SELECT highest_modseq FROM inboxes WHERE id = NEW.inbox_id)
    ELSE (SELECT highest_modseq FROM imap_mailboxes WHERE id = NEW.mailbox_id) END WHERE rowid = NEW.rowid;
  UPDATE inboxes SET highest_modseq = MAX(highest_modseq, (SELECT modseq FROM messages WHERE rowid = NEW.rowid))
    WHERE id = NEW.inbox_id AND NEW.mailbox_id IS NULL;
  UPDATE imap_mailboxes SET highest_modseq = MAX(highest_modseq, (SELECT modseq FROM messages WHERE rowid = NEW.rowid))
    WHERE id = NEW.mailbox_id;
END;
`;

const postgres = /* sql */ `
-- Nothing to change on PostgreSQL (see the file's comment); a statement so the version is recorded.
SELECT 1;
`;

export default { sqlite, postgres } satisfies TwoDialectMigration;
