// IMAP flags beyond the three with their own columns (\Seen is REST's `read`, \Flagged, \Deleted):
// \Answered, \Draft and keywords ($Forwarded, $Junk, $label1…), kept as one space-separated
// string per message (messages.imap_flags, NULL for most) outside the per-session view, which
// stays 9 bytes a message. PERMANENTFLAGS says \* : clients may create keywords.
import type { Session } from "./session";

/** Flags with a column of their own (flags.ts writes them). */
export const COLUMN_FLAGS = new Set(["\\SEEN", "\\FLAGGED", "\\DELETED"]);
const SYSTEM_EXTRA: Record<string, string> = { "\\ANSWERED": "\\Answered", "\\DRAFT": "\\Draft" };
/** A keyword is an atom (RFC 3501 §9 flag-keyword); its length is bounded here. */
const KEYWORD = /^[^\\\s(){%*"\]\x00-\x1f\x7f]{1,100}$/;
/** Keywords one message may carry (a bound on the row, not a protocol limit). */
const MAX_EXTRA = 50;

/** A flag's stored spelling: \Answered/\Draft normalised, keywords as given; null for unknown system flags. */
export function extraSpelling(flag: string): string | null {
  const sys = SYSTEM_EXTRA[flag.toUpperCase()];
  if (sys) return sys;
  return KEYWORD.test(flag) ? flag : null;
}

/** Applies a STORE/APPEND operation to a stored extra-flags string; returns the new string ("" for none). */
export function applyExtra(current: string | undefined, op: "" | "+" | "-", flags: string[]): string {
  const have = new Map<string, string>();
  if (op !== "") for (const f of (current ?? "").split(" ")) if (f) have.set(f.toLowerCase(), f);
  for (const f of flags) {
    if (op === "-") have.delete(f.toLowerCase());
    else if (!have.has(f.toLowerCase()) && have.size < MAX_EXTRA) have.set(f.toLowerCase(), f);
  }
  return [...have.values()].join(" ");
}

export function extraFlagsOf(s: Session, uids: number[]): Promise<Map<number, string>> {
  return s.ctx.storage.imapFolders.extraFlags(s.inbox!.id, uids);
}
