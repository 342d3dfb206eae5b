// The selected INBOX as this session sees it: messages in sequence order with their flags.
// The database is the truth; refresh() compares it with the view and produces the untagged
// EXISTS / EXPUNGE / FETCH FLAGS responses that bring the client up to date.
import type { AppContext } from "../../runtime/context";
import type { MailboxEntry } from "../../storage/mail";
import { inSet, type SeqRange } from "./parser/sequence";
import { flagList, type FlagBits } from "./wire";

export interface Msg extends FlagBits {
  uid: number;
  id: string;
  size: number;
  receivedAt: string;
  blobKey: string;
  /** Deleted elsewhere but not yet announced (EXPUNGE is not allowed during FETCH/STORE/SEARCH). */
  gone: boolean;
}

type Row = MailboxEntry;

export class Mailbox {
  msgs: Msg[] = [];
  /** Largest UID ever in the view: later arrivals are appended, never inserted. */
  private maxUid = 0;

  private constructor(
    private readonly ctx: AppContext,
    readonly inboxId: string,
    readonly readOnly: boolean,
  ) {}

  /**
   * The inbox's current messages as a fresh view. `watch` receives the view before it is read, so
   * that bus events arriving meanwhile are noted on it (the next refresh applies them).
   */
  static async open(ctx: AppContext, inboxId: string, readOnly: boolean, watch?: (mb: Mailbox) => void): Promise<Mailbox> {
    const mb = new Mailbox(ctx, inboxId, readOnly);
    watch?.(mb);
    await mb.refresh(false, true);
    return mb;
  }

  private rows(afterUid = 0): Promise<Row[]> {
    return this.ctx.storage.messages.mailbox(this.inboxId, afterUid);
  }

  private append(r: Row): void {
    this.msgs.push({
      uid: r.uid,
      id: r.id,
      seen: r.read === 1,
      flagged: r.flagged === 1,
      deleted: r.deleted_flag === 1,
      size: r.size_bytes,
      receivedAt: r.received_at,
      blobKey: r.blob_key,
      gone: false,
    });
    this.maxUid = Math.max(this.maxUid, r.uid);
  }

  get exists(): number {
    return this.msgs.length;
  }

  async uidNext(): Promise<number> {
    const inbox = await this.ctx.storage.inboxes.byId(this.inboxId);
    return Math.max(inbox?.uidNext ?? 1, this.maxUid + 1);
  }

  /** What the bus said changed since the last refresh (exact while all writers publish, as they do). */
  private noted = { arrived: false, deletedUids: new Set<number>(), flagIds: new Set<string>() };

  noteArrived(): void {
    this.noted.arrived = true;
  }

  noteDeleted(uid: number): void {
    this.noted.deletedUids.add(uid);
  }

  noteFlags(messageId: string): void {
    this.noted.flagIds.add(messageId);
  }

  /**
   * Untagged lines (without CRLF) that bring the client to the database's state. The incremental
   * form reads only what the bus pointed at (a big mailbox costs nothing per arrival); the full
   * form compares every row.
   */
  refresh(allowExpunge: boolean, full = false): Promise<string[]> {
    // One at a time (IDLE's timer and a command may both ask): each reads from where the previous left the view.
    const run = this.refreshing.then(() => this.refreshNow(allowExpunge, full));
    this.refreshing = run.catch(() => {});
    return run;
  }

  private refreshing: Promise<unknown> = Promise.resolve();

  private async refreshNow(allowExpunge: boolean, full: boolean): Promise<string[]> {
    const out: string[] = [];
    const noted = this.noted;
    this.noted = { arrived: false, deletedUids: new Set(), flagIds: new Set() };
    let fresh: Row[];
    if (full) {
      const rows = await this.rows();
      const byUid = new Map(rows.map((r) => [r.uid, r]));
      for (const m of this.msgs) {
        const r = byUid.get(m.uid);
        if (!r) m.gone = true;
        else this.applyFlags(m, r, out);
      }
      fresh = rows.filter((r) => r.uid > this.maxUid);
    } else {
      for (const uid of noted.deletedUids) {
        const m = this.byUid(uid);
        if (m) m.msg.gone = true;
      }
      if (noted.flagIds.size) {
        for (const r of await this.ctx.storage.messages.flagsOf(this.inboxId, [...noted.flagIds])) {
          const m = this.byUid(r.uid);
          if (m && !m.msg.gone) this.applyFlags(m.msg, r, out);
        }
      }
      fresh = noted.arrived ? await this.rows(this.maxUid) : [];
    }
    if (allowExpunge) out.push(...this.dropGone());
    for (const r of fresh) this.append(r);
    if (fresh.length) out.push(`* ${this.msgs.length} EXISTS`);
    return out;
  }

  private applyFlags(m: Msg, r: Pick<Row, "read" | "flagged" | "deleted_flag">, out: string[]): void {
    const f = { seen: r.read === 1, flagged: r.flagged === 1, deleted: r.deleted_flag === 1 };
    if (f.seen === m.seen && f.flagged === m.flagged && f.deleted === m.deleted) return;
    Object.assign(m, f);
    out.push(`* ${this.seqOf(m)} FETCH (UID ${m.uid} FLAGS ${flagList(m)})`);
  }

  /** The message with this UID and its sequence number (binary search: UIDs ascend with sequence). */
  byUid(uid: number): { seq: number; msg: Msg } | null {
    let lo = 0;
    let hi = this.msgs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const u = this.msgs[mid]!.uid;
      if (u === uid) return { seq: mid + 1, msg: this.msgs[mid]! };
      if (u < uid) lo = mid + 1;
      else hi = mid - 1;
    }
    return null;
  }

  private seqOf(m: Msg): number {
    return this.byUid(m.uid)!.seq;
  }

  /** Removes announced-gone messages, highest sequence number first so each number stays valid. */
  dropGone(): string[] {
    const out: string[] = [];
    for (let i = this.msgs.length - 1; i >= 0; i--) if (this.msgs[i]!.gone) out.push(`* ${i + 1} EXPUNGE`);
    if (out.length) this.msgs = this.msgs.filter((m) => !m.gone);
    return out;
  }

  /** Messages a sequence set (or UID set) names, with their sequence numbers, in order. */
  select(set: SeqRange[], byUid: boolean): { seq: number; msg: Msg }[] {
    const out: { seq: number; msg: Msg }[] = [];
    const max = byUid ? (this.msgs.at(-1)?.uid ?? 0) : this.msgs.length;
    for (let i = 0; i < this.msgs.length; i++) {
      const m = this.msgs[i]!;
      if (inSet(set, byUid ? m.uid : i + 1, max)) out.push({ seq: i + 1, msg: m });
    }
    return out;
  }
}
