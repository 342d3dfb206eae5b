// How much of a SELECT's view a command needs before it can run (issue 19). The view fills in the
// background from a snapshot (storage/sqlite/mailbox-snapshot.ts), so its filled prefix is final:
// a command that names only sequence numbers up to n needs the first n entries, one that names only
// UIDs up to u needs the prefix through UID u. Anything else (`*`, SEARCH, EXPUNGE, MOVE, NOOP, the
// CONDSTORE/QRESYNC modifiers that look at the whole mailbox) needs all of it.
import type { Command } from "./parser/tokens";
import { parseSequenceSet } from "./parser/sequence";

export type ViewNeed = { seq: number } | { uid: number };

/** Commands that only read or change the messages their set names (MOVE expunges: not here). */
const BY_SET = new Set(["FETCH", "UID FETCH", "STORE", "UID STORE", "COPY", "UID COPY"]);

/** What the command needs of the view; null: all of it. */
export function viewNeed(c: Command): ViewNeed | null {
  if (!BY_SET.has(c.name)) return null;
  // FETCH's CHANGEDSINCE/VANISHED and STORE's UNCHANGEDSINCE modifiers.
  if (c.name.endsWith("FETCH") && c.args.length !== 2) return null;
  if (c.name.endsWith("STORE") && c.args[1]?.t === "list") return null;
  const a = c.args[0];
  if (a?.t !== "atom") return null;
  let max = 0;
  try {
    for (const [x, y] of parseSequenceSet(a.v)) {
      if (x === 0 || y === 0) return null;
      max = Math.max(max, x, y);
    }
  } catch {
    // `$` or a malformed set: the command itself answers it, after the whole view as before.
    return null;
  }
  return c.uid ? { uid: max } : { seq: max };
}
