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
import type { TwoDialectMigration } from "./dialects";

const next = (row: string) =>
  `1 + CASE WHEN ${row}.mailbox_id IS NULL THEN (SELECT highest_modseq FROM inboxes WHERE id = ${row}.inbox_id)
        ELSE (SELECT highest_modseq FROM imap_mailboxes WHERE id = ${row}.mailbox_id) END`;

const follow = `
  UPDATE inboxes SET highest_modseq = MAX(highest_modseq, NEW.modseq) WHERE id = NEW.inbox_id AND NEW.mailbox_id IS NULL;
  UPDATE imap_mailboxes SET highest_modseq = MAX(highest_modseq, NEW.modseq) WHERE id = NEW.mailbox_id;`;

const sqlite = /* sql */ `
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

// PostgreSQL: the same columns, index and trigger names, one difference in who picks the value.
// On SQLite the one writer reads the counter and the triggers follow; on PostgreSQL two nodes
// doing that at once would read the same counter and give two changes one modseq, and a change
// could commit below a HIGHESTMODSEQ a client has already seen. So here the triggers run BEFORE
// the row is written and take the next value themselves with an UPDATE … RETURNING of the
// mailbox's counter: its row lock lives until COMMIT, so within a mailbox modseqs are unique and
// commit in order (the UID allocator's argument, docs/scaling.md). Whatever value a writer put in
// `modseq` (NEXT_MODSEQ, or a copy's) is replaced by that next value, the value SQLite's writers
// compute; a PostgreSQL writer needs not set it at all (a flag change alone fires
// messages_modseq_net). Expunges bump the counter as on SQLite.
const postgres = /* sql */ `
ALTER TABLE inboxes ADD COLUMN highest_modseq BIGINT NOT NULL DEFAULT 1;
ALTER TABLE imap_mailboxes ADD COLUMN highest_modseq BIGINT NOT NULL DEFAULT 1;
ALTER TABLE messages ADD COLUMN modseq BIGINT NOT NULL DEFAULT 1;
CREATE INDEX messages_modseq ON messages(inbox_id, mailbox_id, modseq);
CREATE FUNCTION messages_modseq_next() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  taken BIGINT;
BEGIN
  IF NEW.mailbox_id IS NULL THEN
    UPDATE inboxes SET highest_modseq = highest_modseq + 1 WHERE id = NEW.inbox_id RETURNING highest_modseq INTO taken;
  ELSE
    -- The inbox's row first, as every writer locks it (the UID allocator, the counters): one lock
    -- order, inbox then mailbox, so a STORE and a COPY into one mailbox cannot deadlock.
    PERFORM 1 FROM inboxes WHERE id = NEW.inbox_id FOR NO KEY UPDATE;
    UPDATE imap_mailboxes SET highest_modseq = highest_modseq + 1 WHERE id = NEW.mailbox_id RETURNING highest_modseq INTO taken;
  END IF;
  -- No counter row (a mailbox id that names nothing): keep the writer's value, as SQLite would.
  IF taken IS NOT NULL THEN
    NEW.modseq := taken;
  END IF;
  RETURN NEW;
END $$;
CREATE FUNCTION messages_modseq_expunged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.mailbox_id IS NULL THEN
    UPDATE inboxes SET highest_modseq = highest_modseq + 1 WHERE id = OLD.inbox_id;
  ELSE
    UPDATE imap_mailboxes SET highest_modseq = highest_modseq + 1 WHERE id = OLD.mailbox_id;
  END IF;
  RETURN OLD;
END $$;
CREATE TRIGGER messages_modseq_ai BEFORE INSERT ON messages FOR EACH ROW EXECUTE FUNCTION messages_modseq_next();
CREATE TRIGGER messages_modseq_au BEFORE UPDATE OF modseq ON messages FOR EACH ROW
WHEN (NEW.modseq IS DISTINCT FROM OLD.modseq) EXECUTE FUNCTION messages_modseq_next();
-- BEFORE triggers fire in name order and a WHEN sees the NEW of those before it: when
-- messages_modseq_au has taken a value, this one sees a changed modseq and stays out.
CREATE TRIGGER messages_modseq_net BEFORE UPDATE OF read, flagged, deleted_flag, imap_flags, mailbox_id ON messages FOR EACH ROW
WHEN (NEW.modseq IS NOT DISTINCT FROM OLD.modseq AND (OLD.read IS DISTINCT FROM NEW.read OR OLD.flagged IS DISTINCT FROM NEW.flagged
  OR OLD.deleted_flag IS DISTINCT FROM NEW.deleted_flag OR OLD.imap_flags IS DISTINCT FROM NEW.imap_flags
  OR OLD.mailbox_id IS DISTINCT FROM NEW.mailbox_id))
EXECUTE FUNCTION messages_modseq_next();
CREATE TRIGGER messages_modseq_ad AFTER DELETE ON messages FOR EACH ROW EXECUTE FUNCTION messages_modseq_expunged();
`;

export default { sqlite, postgres } satisfies TwoDialectMigration;

/** The next modseq of a row's mailbox, for writers' UPDATE/INSERT statements (the triggers follow it). */
export const NEXT_MODSEQ = next("messages");
