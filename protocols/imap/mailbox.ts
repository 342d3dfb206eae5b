// The selected INBOX as this session sees it: messages in sequence order with their flags.
// The database is the truth; refresh() compares it with the view and produces the untagged
// EXISTS / EXPUNGE / FETCH FLAGS responses that bring the client up to date.
import type { AppContext } from "../../src/context";
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

interface Row {
  id: string;
  uid: number;
  read: number;
  flagged: number;
  deleted_flag: number;
  size_bytes: number;
  received_at: string;
  blob_key: string;
}

export class Mailbox {
  msgs: Msg[] = [];
  /** Largest UID ever in the view: later arrivals are appended, never inserted. */
  private maxUid = 0;

  constructor(
    private readonly ctx: AppContext,
    readonly inboxId: string,
    readonly readOnly: boolean,
  ) {
    for (const r of this.rows()) this.append(r);
  }

  private rows(): Row[] {
    return this.ctx.db.sqlite
      .query(
        "SELECT id, uid, read, flagged, deleted_flag, size_bytes, received_at, blob_key FROM messages WHERE inbox_id = ? ORDER BY uid",
      )
      .all(this.inboxId) as Row[];
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

  get uidNext(): number {
    const r = this.ctx.db.sqlite.query("SELECT uid_next FROM inboxes WHERE id = ?").get(this.inboxId) as { uid_next: number } | null;
    return Math.max(r?.uid_next ?? 1, this.maxUid + 1);
  }

  /** Untagged lines (without CRLF) that bring the client to the database's state. */
  refresh(allowExpunge: boolean): string[] {
    const out: string[] = [];
    const rows = this.rows();
    const byUid = new Map(rows.map((r) => [r.uid, r]));
    for (let i = 0; i < this.msgs.length; i++) {
      const m = this.msgs[i]!;
      const r = byUid.get(m.uid);
      if (!r) {
        m.gone = true;
        continue;
      }
      const f = { seen: r.read === 1, flagged: r.flagged === 1, deleted: r.deleted_flag === 1 };
      if (f.seen !== m.seen || f.flagged !== m.flagged || f.deleted !== m.deleted) {
        Object.assign(m, f);
        out.push(`* ${i + 1} FETCH (UID ${m.uid} FLAGS ${flagList(m)})`);
      }
    }
    if (allowExpunge) out.push(...this.dropGone());
    const before = this.msgs.length;
    for (const r of rows) if (r.uid > this.maxUid) this.append(r);
    if (this.msgs.length !== before) out.push(`* ${this.msgs.length} EXISTS`);
    return out;
  }

  /** Removes announced-gone messages, highest sequence number first so each number stays valid. */
  dropGone(): string[] {
    const out: string[] = [];
    for (let i = this.msgs.length - 1; i >= 0; i--) {
      if (this.msgs[i]!.gone) {
        out.push(`* ${i + 1} EXPUNGE`);
        this.msgs.splice(i, 1);
      }
    }
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
