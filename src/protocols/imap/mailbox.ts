// The selected INBOX as this session sees it: messages in sequence order with their flags.
// The database is the truth; refresh() compares it with the view and produces the untagged
// EXISTS / EXPUNGE / FETCH FLAGS responses that bring the client up to date.
//
// The view is column-wise (issue 19): UID, size and flag bits in typed arrays, 9 bytes a message
// (a session on a million messages holds ~9 MB), read in pages from a covering index. Id, arrival
// time and blob key are fetched only for the messages a command touches (withDetails), and a small
// cache keeps the latest of them.
//
// SELECT reads no rows: EXISTS, UIDNEXT and UNSEEN come from the inbox's counters (one row, read
// in one statement, so they describe one instant S), and the arrays are filled in the background
// in small pages with a turn of the event loop between them. Where the engine offers a snapshot
// (storage mailboxSnapshot) the counts and every page are read in one read transaction: the view
// is exactly the mailbox at S, a filled prefix is final, and a command waits only for the part it
// names (readyFor, view-need.ts). Without one, every command that uses sequence numbers waits for
// the whole view, so until then the client knows only the count, and the load can make the view
// agree with it: the messages of S are those with a UID below S's UIDNEXT (a UID is taken in the
// transaction that inserts the message) that are still stored, plus those deleted since, which
// the bus reported. See load().
import type { AppContext } from "../../runtime/context";
import { FLAG_DELETED, FLAG_FLAGGED, FLAG_SEEN, type MailboxDetails, type MailboxPage, type MailboxSnapshot } from "../../storage/mail";
import type { ViewNeed } from "./view-need";
import { yieldToLoop } from "../../lib/batches";
import { inSet, type SeqRange } from "./parser/sequence";
import { flagList, type FlagBits } from "./wire";
import { uidSet } from "./condstore";

/** Deleted elsewhere but not yet announced (EXPUNGE is not allowed during FETCH/STORE/SEARCH). */
const FLAG_GONE = 8;
/**
 * Rows read per page: bounds the memory and the event-loop time of one read (20,000 index entries
 * from a cold cache held the loop ~0.5 s at a million messages, 5,000 still up to ~0.1 s).
 */
const PAGE = 2000;
/** Details kept after a command (the next FETCH usually names the same messages). */
const DETAILS_CACHE = 4096;

/** One message of the view, named by UID; flags read and write the view's arrays. */
export interface Msg extends FlagBits {
  readonly uid: number;
  readonly size: number;
  /** Available after Mailbox.withDetails. */
  readonly id: string;
  readonly receivedAt: string;
  readonly blobKey: string;
  gone: boolean;
}

class MsgRef implements Msg {
  constructor(
    private readonly mb: Mailbox,
    readonly uid: number,
  ) {}
  private bit(b: number): boolean {
    return (this.mb.flagsOf(this.uid) & b) !== 0;
  }
  get seen() {
    return this.bit(FLAG_SEEN);
  }
  set seen(v: boolean) {
    this.mb.setFlag(this.uid, FLAG_SEEN, v);
  }
  get flagged() {
    return this.bit(FLAG_FLAGGED);
  }
  set flagged(v: boolean) {
    this.mb.setFlag(this.uid, FLAG_FLAGGED, v);
  }
  get deleted() {
    return this.bit(FLAG_DELETED);
  }
  set deleted(v: boolean) {
    this.mb.setFlag(this.uid, FLAG_DELETED, v);
  }
  get recent() {
    return this.mb.isRecent(this.uid);
  }
  get gone() {
    return this.bit(FLAG_GONE);
  }
  set gone(v: boolean) {
    this.mb.setFlag(this.uid, FLAG_GONE, v);
  }
  get size() {
    return this.mb.sizeOf(this.uid);
  }
  private details(): MailboxDetails {
    const d = this.mb.detailsOf(this.uid);
    if (!d) throw new Error(`IMAP view: details of UID ${this.uid} were not loaded`);
    return d;
  }
  get id() {
    return this.details().id;
  }
  get receivedAt() {
    return this.details().received_at;
  }
  get blobKey() {
    return this.details().blob_key;
  }
}

const grow = <T extends Uint32Array | Uint8Array>(a: T, need: number, make: (n: number) => T): T => {
  if (need <= a.length) return a;
  const b = make(Math.max(need, a.length * 2, 64));
  b.set(a);
  return b;
};

export class Mailbox {
  private uids = new Uint32Array(0);
  private sizes = new Uint32Array(0);
  private flags = new Uint8Array(0);
  private n = 0;
  private goneCount = 0;
  /** Largest UID ever in the view: later arrivals are appended, never inserted. */
  private maxUid = 0;
  private details = new Map<number, MailboxDetails>();
  /** The highest UID of the mailbox at S (its UIDNEXT is above it). */
  highestUidAtOpen = 0;
  /** The counters at S (see the top): what SELECT announced. */
  private announced = { exists: 0, uidNext: 1, unseen: 0 };
  private loaded = false;
  private stopped = false;
  /**
   * \Recent in this session: UID ranges (after, upTo] handed to it by the mailbox's watermark
   * (storage imap-folders recentMark/claimRecent), usually one from SELECT plus one per arrival
   * noticed while selected. Under EXAMINE the range above the mark is shown but not claimed.
   */
  private recentRanges: Array<[number, number]> = [];
  /** The RECENT count SELECT/EXAMINE announces. */
  recentAtOpen = 0;
  /** QRESYNC is on for the session: expunges are announced as `* VANISHED uids` (RFC 7162 §3.2.10). */
  vanished = false;
  /** HIGHESTMODSEQ at S (CONDSTORE), read with the counts. */
  highestModseqAtOpen = 1;
  /** Settles when the arrays hold the whole view. */
  private filled: Promise<void> = Promise.resolve();
  /** Where the fill reads (null: the storage's repositories, with no snapshot). */
  private snapshot: MailboxSnapshot | null = null;
  /** The filled prefix will not change under the fill (read from a snapshot): commands may use it. */
  private prefixFinal = false;
  /** Commands waiting for a part of the view (readyFor). */
  private waiters: Array<{ need: ViewNeed; resolve: () => void }> = [];
  /** Resumes a fill held by INBOXD_IMAP_VIEW_FILL_HOLD. */
  private wakeFill: (() => void) | null = null;
  /** A command of the session runs on the view: the fill steps aside until it ends (commandRuns). */
  private running: Promise<void> | null = null;

  private constructor(
    private readonly ctx: AppContext,
    readonly inboxId: string,
    readonly readOnly: boolean,
    /** The mailbox viewed (storage/imap-folders.ts); null: INBOX. */
    readonly folderId: string | null = null,
  ) {}

  /**
   * The inbox's current messages as a fresh view. `watch` receives the view before it is read, so
   * that bus events arriving meanwhile are noted on it (the next refresh applies them).
   */
  static async open(
    ctx: AppContext,
    inboxId: string,
    readOnly: boolean,
    watch?: (mb: Mailbox) => void,
    folderId: string | null = null,
  ): Promise<Mailbox> {
    const mb = new Mailbox(ctx, inboxId, readOnly, folderId);
    watch?.(mb);
    // One statement: the mailbox's counts (INBOX: the inbox's counters less the mail filed in other
    // mailboxes) and its own UID counter (migration 0029), at one moment S; in a snapshot, the
    // pages are read at S too.
    const snap = ctx.storage.mailboxSnapshot ? await ctx.storage.mailboxSnapshot(inboxId, folderId) : null;
    try {
      return await mb.start(snap);
    } catch (e) {
      snap?.close();
      throw e;
    }
  }

  private async start(snap: MailboxSnapshot | null): Promise<Mailbox> {
    const { ctx, inboxId, readOnly, folderId } = this;
    this.snapshot = snap;
    this.prefixFinal = snap !== null;
    const c = snap ? snap.counts : await ctx.storage.imapFolders.counts(inboxId, folderId);
    this.announced = { exists: c.messages, uidNext: c.uidNext, unseen: c.unseen };
    this.highestUidAtOpen = c.maxUid ?? 0;
    // \Recent: everything of S above the watermark; SELECT takes it (no other session will see
    // those as recent), EXAMINE only looks (RFC 3501 §6.3.2).
    const upTo = c.uidNext - 1;
    if (readOnly) {
      const r = await ctx.storage.imapFolders.recentMark(inboxId, folderId);
      this.recentRanges.push([r.mark, upTo]);
      this.recentAtOpen = r.above;
    } else {
      const r = await ctx.storage.imapFolders.claimRecent(inboxId, folderId, upTo);
      if (r.count) this.recentRanges.push([r.from, upTo]);
      this.recentAtOpen = r.count;
    }
    this.highestModseqAtOpen = c.highestModseq;
    // Refreshes queue behind the load (refresh() runs one at a time), so the bus notes gathered
    // meanwhile are still there when it ends.
    this.filled = this.load();
    // Refreshes need the whole view: they queue behind the fill (and release it if held, refresh()).
    this.refreshing = this.filled.catch(() => {});
    return this;
  }

  /** Settles when the arrays hold the whole view. */
  get ready(): Promise<void> {
    return this.readyFor(null);
  }

  /** Whether the whole view is filled. */
  get complete(): boolean {
    return this.loaded;
  }

  /** Settles when the view holds what `need` names (null: all of it); see view-need.ts. */
  readyFor(need: ViewNeed | null): Promise<void> {
    if (this.loaded || (need && this.covers(need))) return Promise.resolve();
    const wait = need && this.prefixFinal ? new Promise<void>((resolve) => this.waiters.push({ need, resolve })) : null;
    if (!wait) this.wholeWanted = true;
    this.wakeFill?.();
    return wait ? Promise.race([wait, this.filled]) : this.filled;
  }

  /**
   * The session runs a command on the view; call the result when it ends. Meanwhile the fill reads
   * no page: a command answered from the filled part would otherwise wait behind a page read at
   * each of its own awaits (a million-message fill is ~450 pages).
   */
  commandRuns(): () => void {
    let end!: () => void;
    const p = new Promise<void>((resolve) => (end = resolve));
    this.running = p;
    return () => {
      if (this.running === p) this.running = null;
      end();
    };
  }

  /** Something waits for the whole view: a held fill goes on to the end. */
  private wholeWanted = false;

  private covers(need: ViewNeed): boolean {
    if (!this.prefixFinal) return false;
    if ("seq" in need) return this.n >= Math.min(need.seq, this.announced.exists);
    return this.n > 0 && this.uids[this.n - 1]! >= need.uid;
  }

  private wakeWaiters(): void {
    if (!this.waiters.length) return;
    const still: typeof this.waiters = [];
    for (const w of this.waiters) this.covers(w.need) ? w.resolve() : still.push(w);
    this.waiters = still;
  }

  /** INBOXD_IMAP_VIEW_FILL_HOLD (tests): past the mark, fill only while a command waits for more. */
  private async holdFill(): Promise<void> {
    const hold = this.ctx.config.imapViewFillHold;
    while (hold && this.n >= hold && !this.wholeWanted && !this.waiters.length && !this.stopped) {
      await new Promise<void>((resolve) => (this.wakeFill = resolve));
      this.wakeFill = null;
    }
  }

  /** Fills the arrays with the messages of S (see the top), yielding between pages. */
  private async load(): Promise<void> {
    try {
      await this.fill();
    } finally {
      this.snapshot?.close();
      this.snapshot = null;
      // Whoever still waits is released by `filled` itself (readyFor races it).
      this.waiters = [];
    }
  }

  private async fill(): Promise<void> {
    const last = this.announced.uidNext - 1;
    for await (const p of this.pages(0, last, this.snapshot)) {
      // Deselected or disconnected meanwhile: nobody will use the rest.
      if (this.stopped) return;
      this.appendPage(p);
      this.wakeWaiters();
      await yieldToLoop();
      while (this.running) await this.running;
      await this.holdFill();
      if (this.stopped) return;
    }
    this.maxUid = Math.max(this.maxUid, last);
    // Deleted since S but stored at S: reported by the bus, absent from the pages. A deletion
    // committed before S can be reported after it (removal publishes after its transaction), so
    // the count at S decides how many of them were part of S; which ones is free, as the client
    // has seen no sequence number yet.
    const missing = [...this.noted.deletedUids].filter((u) => u <= last && this.indexOf(u) < 0).sort((a, b) => a - b);
    const wanted = this.announced.exists - this.n;
    if (wanted > 0) this.insertGone(missing.slice(0, wanted), wanted);
    this.loaded = true;
  }

  /**
   * Merges gone entries with these UIDs into the arrays (one pass); `count` beyond them are
   * placeholders with UID 0 in front (expunged at the next refresh; only reached if a deletion
   * was never reported).
   */
  private insertGone(sortedUids: number[], count: number): void {
    const m = this.n + count;
    const uids = new Uint32Array(m);
    const sizes = new Uint32Array(m);
    const flags = new Uint8Array(m);
    let w = 0;
    for (; w < count - sortedUids.length; w++) flags[w] = FLAG_GONE;
    let r = 0;
    for (const u of sortedUids) {
      for (; r < this.n && this.uids[r]! < u; r++, w++) {
        uids[w] = this.uids[r]!;
        sizes[w] = this.sizes[r]!;
        flags[w] = this.flags[r]!;
      }
      uids[w] = u;
      flags[w++] = FLAG_GONE;
    }
    uids.set(this.uids.subarray(r, this.n), w);
    sizes.set(this.sizes.subarray(r, this.n), w);
    flags.set(this.flags.subarray(r, this.n), w);
    this.uids = uids;
    this.sizes = sizes;
    this.flags = flags;
    this.n = m;
    this.goneCount += count;
  }

  /** The session no longer uses this view: its background fill ends at the next page. */
  stop(): void {
    this.stopped = true;
    this.wakeFill?.();
  }

  /** Every message with a UID above afterUid (and at most upTo), page by page, from the snapshot if given. */
  private async *pages(
    afterUid: number,
    upTo = Number.POSITIVE_INFINITY,
    from: MailboxSnapshot | null = null,
  ): AsyncGenerator<MailboxPage> {
    for (let after = afterUid; ; ) {
      // A held fill (tests) stops exactly at its mark.
      const hold = from ? this.ctx.config.imapViewFillHold : 0;
      const limit = hold > this.n ? Math.min(PAGE, hold - this.n) : PAGE;
      const page = from
        ? await from.page(after, limit)
        : await this.ctx.storage.messages.mailboxPage(this.inboxId, after, limit, this.folderId);
      let k = page.uids.length;
      while (k > 0 && page.uids[k - 1]! > upTo) k--;
      if (k) yield k === page.uids.length ? page : head(page, k);
      if (page.uids.length < limit || k < page.uids.length) return;
      after = page.uids[page.uids.length - 1]!;
    }
  }

  private appendPage(p: MailboxPage): void {
    const need = this.n + p.uids.length;
    this.uids = grow(this.uids, need, (k) => new Uint32Array(k));
    this.sizes = grow(this.sizes, need, (k) => new Uint32Array(k));
    this.flags = grow(this.flags, need, (k) => new Uint8Array(k));
    this.uids.set(p.uids, this.n);
    this.sizes.set(p.sizes, this.n);
    this.flags.set(p.flags, this.n);
    this.n = need;
    this.maxUid = Math.max(this.maxUid, p.uids[p.uids.length - 1]!);
  }

  get exists(): number {
    return this.loaded ? this.n : this.announced.exists;
  }

  /** Whether some message is gone but not yet announced. */
  get hasGone(): boolean {
    return this.goneCount > 0;
  }

  /** UIDNEXT as SELECT announces it. */
  get uidNext(): number {
    return this.announced.uidNext;
  }

  /**
   * Sequence number of the first message without \Seen as SELECT announces it, or 0 for none or
   * not known from the counters: 1 when all are unseen (a test inbox, usually), else 0 and the
   * client asks SEARCH UNSEEN (RFC 9051 dropped UNSEEN from SELECT; RFC 3501 lets it be missing).
   */
  get firstUnseen(): number {
    const { exists, unseen } = this.announced;
    return exists > 0 && unseen === exists ? 1 : 0;
  }

  isRecent(uid: number): boolean {
    for (const [after, upTo] of this.recentRanges) if (uid > after && uid <= upTo) return true;
    return false;
  }

  /** Messages of the view that are \Recent in this session (a binary search per range). */
  recentCount(): number {
    let n = 0;
    for (const [after, upTo] of this.recentRanges) n += this.firstAbove(upTo) - this.firstAbove(after);
    return n;
  }

  /** Index of the first message with a UID above `uid`. */
  private firstAbove(uid: number): number {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.uids[mid]! <= uid) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  // -- The arrays behind Msg ------------------------------------------------------------------

  /** Index of the UID in the view (binary search: UIDs ascend with sequence), or -1. */
  indexOf(uid: number): number {
    let lo = 0;
    let hi = this.n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const u = this.uids[mid]!;
      if (u === uid) return mid;
      if (u < uid) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  flagsOf(uid: number): number {
    const i = this.indexOf(uid);
    return i < 0 ? FLAG_GONE : this.flags[i]!;
  }

  setFlag(uid: number, bit: number, on: boolean): void {
    const i = this.indexOf(uid);
    if (i < 0) return;
    const was = (this.flags[i]! & bit) !== 0;
    if (was === on) return;
    this.flags[i] = on ? this.flags[i]! | bit : this.flags[i]! & ~bit;
    if (bit === FLAG_GONE) this.goneCount += on ? 1 : -1;
  }

  sizeOf(uid: number): number {
    const i = this.indexOf(uid);
    return i < 0 ? 0 : this.sizes[i]!;
  }

  detailsOf(uid: number): MailboxDetails | undefined {
    return this.details.get(uid);
  }

  /** Loads id, arrival time and blob key of the messages (those already gone from storage stay without). */
  async withDetails(msgs: Msg[]): Promise<void> {
    const missing = msgs.filter((m) => !this.details.has(m.uid)).map((m) => m.uid);
    if (missing.length === 0) return;
    if (this.details.size + missing.length > DETAILS_CACHE) this.details.clear();
    for (let i = 0; i < missing.length; i += 500) {
      for (const d of await this.ctx.storage.messages.mailboxDetails(this.inboxId, this.folderId, missing.slice(i, i + 500)))
        this.details.set(d.uid, d);
    }
    // Rows deleted meanwhile have no details: they are gone (the bus will say so too).
    for (const m of msgs) if (!this.details.has(m.uid)) m.gone = true;
  }

  /** The UID at a 0-based index (no Msg made: scans over every message use it). */
  uidAt(i: number): number {
    return this.uids[i]!;
  }

  /** The message at a 0-based index. */
  at(i: number): Msg {
    return new MsgRef(this, this.uids[i]!);
  }

  /** The message with this UID and its sequence number. */
  byUid(uid: number): { seq: number; msg: Msg } | null {
    const i = this.indexOf(uid);
    return i < 0 ? null : { seq: i + 1, msg: this.at(i) };
  }

  // -- Bus notes and refresh -----------------------------------------------------------------

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
    if (!this.loaded) void this.readyFor(null).catch(() => {});
    const run = this.refreshing.then(() => this.refreshNow(allowExpunge, full));
    this.refreshing = run.catch(() => {});
    return run;
  }

  private refreshing: Promise<unknown> = Promise.resolve();

  private async refreshNow(allowExpunge: boolean, full: boolean): Promise<string[]> {
    const out: string[] = [];
    const noted = this.noted;
    this.noted = { arrived: false, deletedUids: new Set(), flagIds: new Set() };
    const before = this.n;
    const fresh: MailboxPage[] = [];
    if (full) {
      // Merge walk of the view against the stored rows (both in UID order), page by page.
      let i = 0;
      const known = this.maxUid;
      for await (const p of this.pages(0)) {
        if (p.uids[0]! > known) {
          fresh.push(p);
          continue;
        }
        for (let k = 0; k < p.uids.length; k++) {
          const uid = p.uids[k]!;
          if (uid > known) {
            fresh.push(slice(p, k));
            break;
          }
          while (i < before && this.uids[i]! < uid) this.markGoneAt(i++);
          if (i < before && this.uids[i] === uid) this.applyFlags(i++, p.flags[k]!, out);
        }
      }
      while (i < before) this.markGoneAt(i++);
    } else {
      for (const uid of noted.deletedUids) this.setFlag(uid, FLAG_GONE, true);
      if (noted.flagIds.size) {
        for (const r of await this.ctx.storage.messages.flagsOf(this.inboxId, this.folderId, [...noted.flagIds])) {
          const i = this.indexOf(r.uid);
          if (i >= 0 && !(this.flags[i]! & FLAG_GONE)) {
            // Announced even when the three column flags are the same: \Answered, \Draft or a
            // keyword may be what changed (the line gets them in extra-flags.ts).
            this.applyFlags(i, (r.read ? FLAG_SEEN : 0) | (r.flagged ? FLAG_FLAGGED : 0) | (r.deleted_flag ? FLAG_DELETED : 0), out, true);
          }
        }
      }
      if (noted.arrived) for await (const p of this.pages(this.maxUid)) fresh.push(p);
    }
    if (allowExpunge) out.push(...this.dropGone());
    let added = 0;
    for (const p of fresh) {
      // A full refresh's first page may overlap what an incremental one appended meanwhile.
      const k = p.uids.findIndex((u) => u > this.maxUid);
      if (k < 0) continue;
      const q = slice(p, k);
      this.appendPage(q);
      added += q.uids.length;
    }
    if (added) {
      // Arrivals while selected are recent here unless another session selected the mailbox
      // since and took them first.
      if (!this.readOnly) {
        const r = await this.ctx.storage.imapFolders.claimRecent(this.inboxId, this.folderId, this.maxUid);
        if (r.count) this.recentRanges.push([r.from, this.maxUid]);
      }
      out.push(`* ${this.n} EXISTS`, `* ${this.recentCount()} RECENT`);
    }
    return out;
  }

  private markGoneAt(i: number): void {
    if (!(this.flags[i]! & FLAG_GONE)) {
      this.flags[i] = this.flags[i]! | FLAG_GONE;
      this.goneCount++;
    }
  }

  private applyFlags(i: number, stored: number, out: string[], always = false): void {
    const f = this.flags[i]!;
    if ((f & 7) === stored && !always) return;
    this.flags[i] = (f & FLAG_GONE) | stored;
    out.push(`* ${i + 1} FETCH (UID ${this.uids[i]} FLAGS ${flagList(this.at(i))})`);
  }

  /** Removes announced-gone messages, highest sequence number first so each number stays valid. */
  dropGone(): string[] {
    if (this.goneCount === 0) return [];
    const out: string[] = [];
    if (this.vanished) {
      const uids: number[] = [];
      for (let i = 0; i < this.n; i++) if (this.flags[i]! & FLAG_GONE && this.uids[i]) uids.push(this.uids[i]!);
      if (uids.length) out.push(`* VANISHED ${uidSet(uids)}`);
    } else for (let i = this.n - 1; i >= 0; i--) if (this.flags[i]! & FLAG_GONE) out.push(`* ${i + 1} EXPUNGE`);
    let w = 0;
    for (let r = 0; r < this.n; r++) {
      if (this.flags[r]! & FLAG_GONE) {
        this.details.delete(this.uids[r]!);
        continue;
      }
      this.uids[w] = this.uids[r]!;
      this.sizes[w] = this.sizes[r]!;
      this.flags[w] = this.flags[r]!;
      w++;
    }
    this.n = w;
    this.goneCount = 0;
    return out;
  }

  /** Entries of the view (gone ones included). */
  get size(): number {
    return this.n;
  }

  /** The 0-based index of the first UID at or above `uid` (size when none). */
  firstIndexAtOrAbove(uid: number): number {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.uids[mid]! < uid) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** 0-based indexes of the messages a sequence set (or UID set) names, in order. */
  indexes(set: SeqRange[], byUid: boolean): number[] {
    const out: number[] = [];
    const max = byUid ? (this.n ? this.uids[this.n - 1]! : 0) : this.n;
    for (let i = 0; i < this.n; i++) if (inSet(set, byUid ? this.uids[i]! : i + 1, max)) out.push(i);
    return out;
  }

  /** Messages marked \Deleted and not gone (of a UID set, or all), without a Msg for every other one. */
  deleted(uids: SeqRange[] | null): Msg[] {
    const out: Msg[] = [];
    const max = this.n ? this.uids[this.n - 1]! : 0;
    for (let i = 0; i < this.n; i++) {
      if ((this.flags[i]! & (FLAG_DELETED | FLAG_GONE)) !== FLAG_DELETED) continue;
      if (!uids || inSet(uids, this.uids[i]!, max)) out.push(this.at(i));
    }
    return out;
  }

  /** Messages a sequence set (or UID set) names, with their sequence numbers, in order. */
  select(set: SeqRange[], byUid: boolean): { seq: number; msg: Msg }[] {
    return this.indexes(set, byUid).map((i) => ({ seq: i + 1, msg: this.at(i) }));
  }
}

const head = (p: MailboxPage, to: number): MailboxPage => ({
  uids: p.uids.subarray(0, to),
  sizes: p.sizes.subarray(0, to),
  flags: p.flags.subarray(0, to),
});

const slice = (p: MailboxPage, from: number): MailboxPage =>
  from === 0 ? p : { uids: p.uids.subarray(from), sizes: p.sizes.subarray(from), flags: p.flags.subarray(from) };
