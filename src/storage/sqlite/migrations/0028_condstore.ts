// CONDSTORE/QRESYNC (RFC 7162, issue 21): a modification sequence per message and HIGHESTMODSEQ
// per mailbox, kept, never computed (issue 19: SELECT must not depend on the mailbox's size).
// INBOX's counter is a column of the inbox (INBOX is the inbox itself), every other mailbox's a
// column of imap_mailboxes; a message's modseq is a value of its own mailbox's counter.
//
// Writers that know about modseqs (flag writes, arrival, COPY) put the next value in the row in
// the same statement; the triggers then only move the counter up to it (one small row, never a
// second write of the message row, which SQLite rewrites whole, bodies included). Any other
// change of flags, keywords or mailbox (a future writer that forgets) is caught by the safety-net
// trigger, which gives the row the next value itself. An expunge bumps the counter (QRESYNC: a
// client's HIGHESTMODSEQ must go stale when a message goes); no tombstones are kept (docs/imap.md).
const next = (row: string) =>
  `1 + CASE WHEN ${row}.mailbox_id IS NULL THEN (SELECT highest_modseq FROM inboxes WHERE id = ${row}.inbox_id)
        ELSE (SELECT highest_modseq FROM imap_mailboxes WHERE id = ${row}.mailbox_id) END`;

const follow = `
  UPDATE inboxes SET highest_modseq = MAX(highest_modseq, NEW.modseq) WHERE id = NEW.inbox_id AND NEW.mailbox_id IS NULL;
  UPDATE imap_mailboxes SET highest_modseq = MAX(highest_modseq, NEW.modseq) WHERE id = NEW.mailbox_id;`;

export default /* sql */ `
ALTER TABLE inboxes ADD COLUMN highest_modseq INTEGER NOT NULL DEFAULT 1;
ALTER TABLE imap_mailboxes ADD COLUMN highest_modseq INTEGER NOT NULL DEFAULT 1;
ALTER TABLE messages ADD COLUMN modseq INTEGER NOT NULL DEFAULT 1;
CREATE INDEX messages_modseq ON messages(inbox_id, mailbox_id, modseq);
CREATE TRIGGER messages_modseq_ai AFTER INSERT ON messages BEGIN${follow}
END;
CREATE TRIGGER messages_modseq_au AFTER UPDATE OF modseq ON messages WHEN NEW.modseq IS NOT OLD.modseq BEGIN${follow}
END;
CREATE TRIGGER messages_modseq_net AFTER UPDATE OF read, flagged, deleted_flag, imap_flags, mailbox_id ON messages
WHEN NEW.modseq IS OLD.modseq AND (OLD.read IS NOT NEW.read OR OLD.flagged IS NOT NEW.flagged
  OR OLD.deleted_flag IS NOT NEW.deleted_flag OR OLD.imap_flags IS NOT NEW.imap_flags OR OLD.mailbox_id IS NOT NEW.mailbox_id)
BEGIN
  UPDATE messages SET modseq = ${next("NEW")} WHERE rowid = NEW.rowid;
END;
CREATE TRIGGER messages_modseq_ad AFTER DELETE ON messages BEGIN
  UPDATE inboxes SET highest_modseq = highest_modseq + 1 WHERE id = OLD.inbox_id AND OLD.mailbox_id IS NULL;
  UPDATE imap_mailboxes SET highest_modseq = highest_modseq + 1 WHERE id = OLD.mailbox_id;
END;
`;

/** The next modseq of a row's mailbox, for writers' UPDATE/INSERT statements (the triggers follow it). */
export const NEXT_MODSEQ = next("messages");
