// What a POP3 session sees of an inbox: the messages present at log-in, numbered 1..n in
// arrival order and fixed for the session (RFC 1939 §5), their raw bytes, and the UPDATE
// state that applies the session's deletions and read marks when the client says QUIT.
import type { AppContext } from "../../runtime/context";
import type { Services } from "../../services";
import type { InboxRow } from "../../mail/inboxes";

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

  static async open(ctx: AppContext, services: Services, inbox: InboxRow): Promise<Maildrop> {
    const rows = await ctx.storage.messages.mailbox(inbox.id, 0);
    return new Maildrop(
      ctx,
      services,
      inbox,
      rows.map((r) => ({ id: r.id, uid: r.uid, size: r.size_bytes, blobKey: r.blob_key })),
    );
  }

  /** The raw bytes, or null when another channel deleted the message since log-in. */
  async raw(m: DropMessage): Promise<Uint8Array | null> {
    // Blobs are shared by identical messages, so the row, not the blob, says whether it still exists.
    if (!(await this.ctx.storage.messages.exists(m.id))) return null;
    return this.ctx.storage.blobs.get(m.blobKey);
  }

  /**
   * The UPDATE state: retrieved messages become read through the message service (as Dovecot
   * does by default; \Seen and the REST read field are one fact), then the deleted ones go
   * through the same removal service as the REST delete. Returns how many were deleted.
   */
  async commit(deleted: string[], retrieved: string[]): Promise<number> {
    const gone = new Set(deleted);
    // Messages deleted through another channel since they were retrieved are simply not marked.
    const toRead = retrieved.filter((id) => !gone.has(id)).map((id) => ({ id, read: true }));
    await this.services.messages.setFlags(this.inbox.projectId, this.inbox.id, toRead);
    return this.services.removal.deleteMessages(this.inbox.projectId, deleted);
  }
}
