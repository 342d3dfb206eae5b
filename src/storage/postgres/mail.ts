// The mail capability's repositories on PostgreSQL (src/storage/mail.ts), assembled from their
// files: inboxes.ts (inboxes, watches, chaos rules), messages.ts, attachments.ts.
import type { MailRepositories } from "../mail";
import { PgAttachments, PgBlobRefs, PgMessageAuth } from "./attachments";
import type { PgClient } from "./connection";
import { postgresInboxRepositories } from "./inboxes";
import { PgMessages } from "./messages";

export function postgresMailRepositories(c: PgClient): MailRepositories {
  return {
    ...postgresInboxRepositories(c),
    messages: new PgMessages(c),
    attachments: new PgAttachments(c),
    blobRefs: new PgBlobRefs(c),
    messageAuth: new PgMessageAuth(c),
  };
}
