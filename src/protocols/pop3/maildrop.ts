// What a POP3 session sees of an inbox: the messages present at log-in, numbered 1..n in
// arrival order and fixed for the session (RFC 1939 §5), their raw bytes, and the UPDATE
// state that applies the session's deletions and read marks when the client says QUIT.
import type { AppContext } from "../../context";
import type { Services } from "../../services";
import type { InboxRow } from "../../mail/inboxes";
import { DomainError } from "../../lib/errors";

export interface DropMessage {
  id: string;
  uid: number;
  /** Octets as stored; equal to the transmitted size for CRLF mail, which is what SMTP delivers. */
  size: number;
  blobKey: string;
}

export class Maildrop {
  private constructor(
    private readonly ctx: AppContext,
    private readonly services: Services,
    readonly inbox: InboxRow,
    readonly messages: DropMessage[],
  ) {}

  static open(ctx: AppContext, services: Services, inbox: InboxRow): Maildrop {
    const rows = ctx.db.sqlite
      .query("SELECT id, uid, size_bytes AS size, blob_key AS blobKey FROM messages WHERE inbox_id = ? ORDER BY uid")
      .all(inbox.id) as DropMessage[];
    return new Maildrop(ctx, services, inbox, rows);
  }

  /** The raw bytes, or null when another channel deleted the message since log-in. */
  async raw(m: DropMessage): Promise<Uint8Array | null> {
    // Blobs are shared by identical messages, so the row, not the blob, says whether it still exists.
    const present = this.ctx.db.sqlite.query("SELECT 1 FROM messages WHERE id = ?").get(m.id);
    if (!present) return null;
    return this.ctx.blobs.get(m.blobKey);
  }

  /**
   * The UPDATE state: retrieved messages become read through the message service (as Dovecot
   * does by default; \Seen and the REST read field are one fact), then the deleted ones go
   * through the same removal service as the REST delete. Returns how many were deleted.
   */
  async commit(deleted: string[], retrieved: string[]): Promise<number> {
    const gone = new Set(deleted);
    const toRead = retrieved.filter((id) => !gone.has(id));
    for (const id of toRead) {
      try {
        this.services.messages.setRead(this.inbox.projectId, id, true);
      } catch (e) {
        // Deleted through another channel since it was retrieved: nothing left to mark.
        if (!(e instanceof DomainError && e.kind === "not_found")) throw e;
      }
    }
    return this.services.removal.deleteMessages(this.inbox.projectId, deleted);
  }
}
