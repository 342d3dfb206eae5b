// The mail capability's repositories on SQLite (src/storage/mail.ts), assembled from their files:
// inboxes.ts (inboxes, watches, chaos rules), messages.ts (with message-search.ts), attachments.ts,
// message-auth.ts. Every method is synchronous inside (see connection.ts).
import type { MailRepositories } from "../mail";
import { SqliteAttachments, SqliteBlobRefs } from "./attachments";
import type { SqliteConnection } from "./connection";
import { SqliteInboxChaos, SqliteInboxes, SqliteInboxWatches, SqliteSmtpChaos } from "./inboxes";
import { SqliteMessageAuth } from "./message-auth";
import { SqliteMessages } from "./messages";

export function sqliteMailRepositories(c: SqliteConnection): MailRepositories {
  return {
    inboxes: new SqliteInboxes(c),
    inboxWatches: new SqliteInboxWatches(c),
    inboxChaos: new SqliteInboxChaos(c),
    smtpChaos: new SqliteSmtpChaos(c),
    messages: new SqliteMessages(c),
    attachments: new SqliteAttachments(c),
    blobRefs: new SqliteBlobRefs(c),
    messageAuth: new SqliteMessageAuth(c),
  };
}
