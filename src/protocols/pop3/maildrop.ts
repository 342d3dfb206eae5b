// What a POP3 session sees of an inbox: the messages present at log-in, numbered 1..n in
// arrival order and fixed for the session (RFC 1939 §5), their raw bytes, and the UPDATE
// state that applies the session's deletions and read marks when the client says QUIT.
//
// The drop is column-wise (issue 19): UID and size per message in typed arrays (8 bytes each,
// ~8 MB for a million). Log-in reads no rows: the count and octets come from the inbox's counters,
// read in one statement (an instant S), and the arrays fill in the background in small pages with
// a turn of the event loop between them; commands that need numbers or sizes wait for `ready`.
// The messages of S are those with a UID below S's uid_next (a UID is taken in the transaction
// that inserts the message) still stored when their page is read; the ones deleted meanwhile keep
// their numbers as "deleted through another channel" (UID 0), at the end: the client has seen
// only the count when they are numbered. Ids and blob keys are looked up by UID when needed.
import type { AppContext } from "../../runtime/context";
import type { Services } from "../../services";
import type { InboxRow } from "../../mail/inboxes";
import { yieldToLoop } from "../../lib/batches";

/** Rows read per page (imap/mailbox.ts says why this size). */
const PAGE = 2000;

export class Maildrop {
  /** Settles when every message's UID and size are known. */
  readonly ready: Promise<void>;

  private constructor(
    private readonly ctx: AppContext,
    private readonly services: Services,
    readonly inbox: InboxRow,
    /** How many messages the drop holds (numbered 1..count). */
    readonly count: number,
    /** Octets of all messages, as stored (the transmitted size for CRLF mail, which SMTP delivers). */
    readonly totalBytes: number,
    uidNext: number,
  ) {
    this.uids = new Uint32Array(count);
    this.sizes = new Uint32Array(count);
    this.ready = this.load(uidNext - 1);
  }

  private readonly uids: Uint32Array;
  private readonly sizes: Uint32Array;

  static async open(ctx: AppContext, services: Services, inbox: InboxRow): Promise<Maildrop> {
    // POP3 serves INBOX: the inbox's counters less the mail filed in other IMAP mailboxes.
    const c = await ctx.storage.imapFolders.counts(inbox.id, null);
    return new Maildrop(ctx, services, inbox, c.messages, c.bytes, c.uidNext);
  }

  private async load(last: number): Promise<void> {
    let at = 0;
    for (let after = 0; at < this.count; ) {
      const page = await this.ctx.storage.messages.mailboxPage(this.inbox.id, after, PAGE);
      let k = 0;
      while (k < page.uids.length && page.uids[k]! <= last && at + k < this.count) k++;
      this.uids.set(page.uids.subarray(0, k), at);
      this.sizes.set(page.sizes.subarray(0, k), at);
      at += k;
      if (k < PAGE) return;
      after = page.uids[k - 1]!;
      await yieldToLoop();
    }
  }

  /** Size of message n (1-based). */
  size(n: number): number {
    return this.sizes[n - 1]!;
  }

  /** Ids of messages ns (1-based), in the same order; "" for one deleted through another channel since log-in. */
  async ids(ns: number[]): Promise<string[]> {
    await this.ready;
    const byUid = new Map<number, string>();
    for (let i = 0; i < ns.length; i += 500) {
      const uids = ns.slice(i, i + 500).map((n) => this.uids[n - 1]!);
      for (const d of await this.ctx.storage.messages.mailboxDetails(this.inbox.id, null, uids)) byUid.set(d.uid, d.id);
    }
    return ns.map((n) => byUid.get(this.uids[n - 1]!) ?? "");
  }

  /** The raw bytes of message n, or null when another channel deleted it since log-in. */
  async raw(n: number): Promise<Uint8Array | null> {
    await this.ready;
    if (this.uids[n - 1] === 0) return null;
    // Blobs are shared by identical messages, so the row, not the blob, says whether it still exists.
    const [d] = await this.ctx.storage.messages.mailboxDetails(this.inbox.id, null, [this.uids[n - 1]!]);
    return d ? this.ctx.storage.blobs.get(d.blob_key) : null;
  }

  /**
   * The UPDATE state: retrieved messages become read through the message service (as Dovecot
   * does by default; \Seen and the REST read field are one fact), then the deleted ones go
   * through the same removal service as the REST delete. Returns how many were deleted.
   */
  async commit(deleted: number[], retrieved: number[]): Promise<number> {
    const gone = new Set(deleted);
    // Messages deleted through another channel since they were retrieved are simply not marked.
    const toRead = (await this.ids(retrieved.filter((n) => !gone.has(n)))).filter(Boolean).map((id) => ({ id, read: true }));
    await this.services.messages.setFlags(this.inbox.projectId, this.inbox.id, toRead);
    return this.services.removal.deleteMessages(this.inbox.projectId, (await this.ids(deleted)).filter(Boolean));
  }
}
