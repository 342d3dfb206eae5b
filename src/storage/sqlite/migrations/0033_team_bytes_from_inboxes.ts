// A team's stored bytes on PostgreSQL become the sum of its inboxes' (issue 20, docs/scaling.md
// "Measured"). The message trigger added every message's size to its team's row as well as its
// inbox's: every delivery of a team updated that one teams row and held its lock until COMMIT, so
// the deliveries of a team committed one after the other whatever the node and the inbox. Now the
// trigger keeps the inbox counters only, and whoever needs the team's figure (the quota check, the
// usage endpoint, a team read) sums the team's inboxes (teamUsedBytesSql in postgres/rows.ts). The
// column stays, for schema parity with SQLite, and is set to 0: nothing reads it on PostgreSQL.
//
// SQLite needs nothing: one writer at a time, so a hot row costs it no waiting.
import type { TwoDialectMigration } from "./dialects";

// Nothing on SQLite (a function: bun:sqlite refuses an exec without a statement); the version is
// recorded all the same, so both engines list the same migrations.
const sqlite = (): void => {};

const postgres = /* sql */ `
CREATE OR REPLACE FUNCTION messages_counters() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE inboxes SET message_count = message_count + 1, unread_count = unread_count + (1 - NEW.read),
      used_bytes = used_bytes + NEW.size_bytes WHERE id = NEW.inbox_id;
    RETURN NEW;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE inboxes SET message_count = message_count - 1, unread_count = unread_count - (1 - OLD.read),
      used_bytes = used_bytes - OLD.size_bytes WHERE id = OLD.inbox_id;
    -- messages_ad_events (0022): a message's events go with it, unless a webhook delivery still waits on one.
    DELETE FROM events WHERE message_id = OLD.id
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id AND d.status = 'pending');
    RETURN OLD;
  ELSE
    IF OLD.read <> NEW.read THEN
      UPDATE inboxes SET unread_count = unread_count + (OLD.read - NEW.read) WHERE id = NEW.inbox_id;
    END IF;
    RETURN NEW;
  END IF;
END $$;
UPDATE teams SET used_bytes = 0;
`;

export default { sqlite, postgres } satisfies TwoDialectMigration;
