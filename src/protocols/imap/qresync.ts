// QRESYNC (RFC 7162 §3.2): SELECT/EXAMINE's parameters and the quick resynchronisation they ask
// for, and the VANISHED part of UID FETCH (CHANGEDSINCE n VANISHED). Modseqs: condstore.ts.
import type { Session } from "./session";
import type { Mailbox } from "./mailbox";
import { ParseError, type Token } from "./parser/tokens";
import { parseSequenceSet, type SeqRange } from "./parser/sequence";
import { flagList } from "./wire";
import { missingUids, parseModseq, withModseq } from "./condstore";
import { withExtraFlags } from "./extra-flags";

export interface Resync {
  uidValidity: number;
  modseq: number;
  knownUids: SeqRange[] | null;
}

/** `(CONDSTORE)` and/or `(QRESYNC (uidvalidity modseq [known-uids [(seqs uids)]]))`. */
export function parseSelectParams(s: Session, t: Token | undefined): { condstore: boolean; qresync: Resync | null } {
  const out = { condstore: false, qresync: null as Resync | null };
  if (!t) return out;
  if (t.t !== "list") throw new ParseError("SELECT parameters must be a list");
  for (let i = 0; i < t.v.length; i++) {
    const p = t.v[i]!;
    const name = p.t === "atom" ? p.v.toUpperCase() : "";
    if (name === "CONDSTORE") out.condstore = true;
    else if (name === "QRESYNC") {
      if (!s.qresync) throw new ParseError("QRESYNC must be enabled first (ENABLE QRESYNC)");
      const q = t.v[++i];
      if (q?.t !== "list" || q.v.length < 2 || q.v.length > 4)
        throw new ParseError("QRESYNC takes (uidvalidity modseq [known-uids [seq-match]])");
      const uv = q.v[0]!.t === "atom" ? q.v[0]!.v : "";
      if (!/^[1-9]\d{0,9}$/.test(uv)) throw new ParseError("Invalid UIDVALIDITY");
      const modseq = parseModseq(q.v[1], false);
      let knownUids: SeqRange[] | null = null;
      if (q.v[2]) {
        if (q.v[2].t !== "atom") throw new ParseError("Invalid known UIDs");
        knownUids = parseSequenceSet(q.v[2].v);
      }
      // The sequence-match data helps servers that keep no expunged UIDs choose fewer to report;
      // this one reports by known UIDs only, so it is checked for syntax and not used.
      if (q.v[3] && (q.v[3].t !== "list" || q.v[3].v.length !== 2)) throw new ParseError("Invalid sequence match data");
      out.qresync = { uidValidity: Number(uv), modseq, knownUids };
      out.condstore = true;
    } else throw new ParseError(`Unknown SELECT parameter ${name.slice(0, 20)}`);
  }
  return out;
}

/**
 * After SELECT's usual responses: what vanished and what changed since the client's modseq.
 * Nothing when the mailbox's HIGHESTMODSEQ is still the client's (every change and expunge moves it).
 */
export async function resync(s: Session, mb: Mailbox, r: Resync, uidNext: number): Promise<void> {
  await mb.ready;
  if (r.modseq >= mb.highestModseqAtOpen) return;
  // Up to the mailbox's own UIDNEXT (not the inbox's counter): no UID above it was ever here.
  const gone = missingUids(mb, r.knownUids, uidNext - 1);
  if (gone) await s.write(`* VANISHED (EARLIER) ${gone}\r\n`);
  await writeChanged(s, mb, r.modseq, r.knownUids, true);
}

/** FETCH (UID FLAGS MODSEQ) of the messages (of a UID set) changed after `modseq`. */
async function writeChanged(s: Session, mb: Mailbox, modseq: number, uids: SeqRange[] | null, byUid: boolean): Promise<void> {
  const changed = await s.ctx.storage.imapFolders.changedSince(mb.inboxId, mb.folderId, modseq);
  const set = uids ?? [[1, 0] as SeqRange];
  const lines: string[] = [];
  for (const i of mb.indexes(set, byUid)) {
    const msg = mb.at(i);
    if (!msg.gone && changed.has(msg.uid)) lines.push(`* ${i + 1} FETCH (UID ${msg.uid} FLAGS ${flagList(msg)})`);
  }
  for (const l of await withModseq(s, await withExtraFlags(s, lines))) await s.write(`${l}\r\n`);
}

/** UID FETCH set … (CHANGEDSINCE n VANISHED): the set's UIDs the mailbox no longer holds, before the FETCHes. */
export async function writeVanishedEarlier(s: Session, set: SeqRange[], modseq: number): Promise<void> {
  const mb = s.mailbox!;
  if (modseq >= (await currentHighest(s, mb))) return;
  const gone = missingUids(mb, set, mb.size ? mb.uidAt(mb.size - 1) : 0);
  if (gone) await s.write(`* VANISHED (EARLIER) ${gone}\r\n`);
}

export async function currentHighest(s: Session, mb: Mailbox): Promise<number> {
  return s.ctx.storage.imapFolders.highestModseq(mb.inboxId, mb.folderId);
}
