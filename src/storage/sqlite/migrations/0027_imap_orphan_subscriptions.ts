// IMAP subscriptions that outlive their mailbox (RFC 3501 §6.3.6: "the server MUST NOT
// unilaterally remove an existing mailbox name from the subscription list even if a mailbox by
// that name no longer exists"). A subscribed mailbox keeps its flag on imap_mailboxes; when it is
// deleted its name moves here, LIST (SUBSCRIBED) shows it \NonExistent, UNSUBSCRIBE removes it
// and a CREATE of the same name takes it back as the new mailbox's flag.
import type { TwoDialectMigration } from "./dialects";

const sqlite = /* sql */ `
CREATE TABLE imap_orphan_subscriptions (
  inbox_id TEXT NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  PRIMARY KEY (inbox_id, name)
) WITHOUT ROWID;
`;

const postgres = /* sql */ `
CREATE TABLE imap_orphan_subscriptions (
  inbox_id TEXT NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  PRIMARY KEY (inbox_id, name)
);
`;

export default { sqlite, postgres } satisfies TwoDialectMigration;
