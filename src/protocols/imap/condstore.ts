// CONDSTORE and QRESYNC (RFC 7162): what a session shows of modification sequences. Storage keeps
// a modseq per message and a HIGHESTMODSEQ counter per mailbox (migration 0028); this module turns
// them into MODSEQ data items, the changed-since lists and VANISHED answers.
//
// Expunged UIDs are not remembered (no tombstones): VANISHED (EARLIER) names every UID of the
// range the client asked about that the mailbox does not hold, as RFC 7162 §3.2.5.1 and §3.2.6
// allow ("the server MAY include UIDs ... that were not expunged since"; clients ignore UIDs they
// do not know). It is sent only when the mailbox changed since the client's modseq at all, since
// every expunge moves HIGHESTMODSEQ.
import type { Session } from "./session";
import type { Mailbox } from "./mailbox";
import { ParseError, type Token } from "./parser/tokens";
import type { SeqRange } from "./parser/sequence";

/** A mod-sequence value off the wire (RFC 7162: mod-sequence-valzer, 63 bits; JS keeps 2^53 exactly). */
export function parseModseq(t: Token | undefined, zeroOk = true): number {
  const v = t?.t === "atom" ? t.v : "";
  if (!/^\d{1,16}$/.test(v)) throw new ParseError("Invalid mod-sequence value");
  const n = Number(v);
  if (!Number.isSafeInteger(n) || (!zeroOk && n === 0)) throw new ParseError("Invalid mod-sequence value");
  return n;
}

/** Ascending UIDs as a compact set ("1:3,7,9:10"). */
export function uidSet(sorted: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}:${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(",");
}

/**
 * Turns CONDSTORE on for the session from a command that uses modseqs (FETCH MODSEQ, CHANGEDSINCE,
 * UNCHANGEDSINCE, SEARCH MODSEQ): the first such command in a selected mailbox tells the client
 * the mailbox's HIGHESTMODSEQ (RFC 7162 §3.1).
 */
export async function enableCondstore(s: Session): Promise<void> {
  if (s.condstore) return;
  s.condstore = true;
  const mb = s.mailbox;
  if (!mb) return;
  await s.write(`* OK [HIGHESTMODSEQ ${await s.ctx.storage.imapFolders.highestModseq(mb.inboxId, mb.folderId)}] Highest\r\n`);
}

const UNSOLICITED = /^(\* \d+ FETCH \(UID (\d+) FLAGS \(.*\))\)$/;

/**
 * Once CONDSTORE is on, unsolicited FETCH responses carry MODSEQ (RFC 7162 §3.1.4): one read of
 * the named messages' modseqs for the batch.
 */
export async function withModseq(s: Session, lines: string[]): Promise<string[]> {
  if (!s.condstore) return lines;
  const uids: number[] = [];
  for (const l of lines) {
    const m = UNSOLICITED.exec(l);
    if (m) uids.push(Number(m[2]));
  }
  if (uids.length === 0) return lines;
  const mods = await s.ctx.storage.imapFolders.modseqs(s.inbox!.id, s.mailbox!.folderId, uids);
  return lines.map((l) => {
    const m = UNSOLICITED.exec(l);
    const mod = m ? mods.get(Number(m[2])) : undefined;
    return m && mod !== undefined ? `${m[1]} MODSEQ (${mod}))` : l;
  });
}

/**
 * The UIDs of `set` (null: 1:*) up to `highest` that the view does not hold, as a UID set (""
 * for none): what VANISHED (EARLIER) reports (see the top). Works on ranges, so `1:4000000000`
 * costs a walk over the view, not four billion steps.
 */
export function missingUids(mb: Mailbox, set: SeqRange[] | null, highest: number): string {
  const want: Array<[number, number]> = (set ?? [[1, 0]]).map(([a0, b0]) => {
    const a = Math.min(a0 === 0 ? highest : a0, highest);
    const b = Math.min(b0 === 0 ? highest : b0, highest);
    return [Math.min(a, b), Math.max(a, b)];
  });
  want.sort((x, y) => x[0] - y[0]);
  const parts: string[] = [];
  const add = (a: number, b: number) => {
    if (a < 1 || b < a) return;
    parts.push(a === b ? `${a}` : `${a}:${b}`);
  };
  let floor = 1;
  for (const [a0, b] of want) {
    const a = Math.max(a0, floor);
    if (a > b) continue;
    let next = a;
    for (let i = mb.firstIndexAtOrAbove(a); i < mb.size && mb.uidAt(i) <= b; i++) {
      add(next, mb.uidAt(i) - 1);
      next = mb.uidAt(i) + 1;
    }
    add(next, b);
    floor = b + 1;
  }
  return parts.join(",");
}
