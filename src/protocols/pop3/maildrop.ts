// What a POP3 session sees of an inbox: the messages present at log-in, numbered 1..n in
// arrival order and fixed for the session (RFC 1939 §5), their raw bytes, and the UPDATE
// state that applies the session's deletions and read marks when the client says QUIT.
//
// The drop is column-wise (issue 19): UID and size per message in typed arrays (8 bytes each),
// read in pages from a covering index, so log-in + STAT on a million messages holds ~8 MB and
// yields between pages. Ids and blob keys are looked up by UID when a command needs them.
import type { AppContext } from "../../runtime/context";
import type { Services } from "../../services";
import type { InboxRow } from "../../mail/inboxes";

/** Rows read per page at log-in (imap/mailbox.ts says why this size). */
const PAGE = 5000;

export class Maildrop {
  private constructor(
    private readonly ctx: AppContext,
    private readonly services: Services,
    readonly inbox: InboxRow,
    private readonly uids: Uint32Array,
    private readonly sizes: Uint32Array,
    /** Octets of all messages, as stored (the transmitted size for CRLF mail, which SMTP delivers). */
    readonly totalBytes: number,
  ) {}

  static async open(ctx: AppContext, services: Services, inbox: InboxRow): Promise<Maildrop> {
    const uids: Uint32Array[] = [];
    const sizes: Uint32Array[] = [];
    let n = 0;
    for (let after = 0; ; ) {
      const page = await ctx.storage.messages.mailboxPage(inbox.id, after, PAGE);
      uids.push(page.uids);
      sizes.push(page.sizes);
      n += page.uids.length;
      if (page.uids.length < PAGE) break;
      after = page.uids[page.uids.length - 1]!;
    }
    const all = { uids: new Uint32Array(n), sizes: new Uint32Array(n) };
    let at = 0;
    let total = 0;
    for (let p = 0; p < uids.length; p++) {
      all.uids.set(uids[p]!, at);
      all.sizes.set(sizes[p]!, at);
      at += uids[p]!.length;
      for (const s of sizes[p]!) total += s;
    }
    return new Maildrop(ctx, services, inbox, all.uids, all.sizes, total);
  }

  /** How many messages the drop holds (numbered 1..count). */
  get count(): number {
    return this.uids.length;
  }

  /** Size of message n (1-based). */
  size(n: number): number {
    return this.sizes[n - 1]!;
  }

  /** Ids of messages ns (1-based), in the same order; "" for one deleted through another channel since log-in. */
  async ids(ns: number[]): Promise<string[]> {
    const byUid = new Map<number, string>();
    for (let i = 0; i < ns.length; i += 500) {
      const uids = ns.slice(i, i + 500).map((n) => this.uids[n - 1]!);
      for (const d of await this.ctx.storage.messages.mailboxDetails(this.inbox.id, uids)) byUid.set(d.uid, d.id);
    }
    return ns.map((n) => byUid.get(this.uids[n - 1]!) ?? "");
  }

  /** The raw bytes of message n, or null when another channel deleted it since log-in. */
  async raw(n: number): Promise<Uint8Array | null> {
    // Blobs are shared by identical messages, so the row, not the blob, says whether it still exists.
    const [d] = await this.ctx.storage.messages.mailboxDetails(this.inbox.id, [this.uids[n - 1]!]);
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
