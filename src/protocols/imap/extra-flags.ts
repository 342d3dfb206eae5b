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
  return s.ctx.storage.imapFolders.extraFlags(s.inbox!.id, s.mailbox!.folderId, uids);
}

const SYSTEM_FLAGS = ["\\Answered", "\\Flagged", "\\Deleted", "\\Seen", "\\Draft"];
/** Keywords the client of each selected view has been told of (FLAGS): a new one is announced before its first use. */
const announced = new WeakMap<object, Set<string>>();

/** SELECT's FLAGS and PERMANENTFLAGS lines; remembers the keywords as announced for this view. */
export function flagsLines(view: object, keywords: string[], readOnly: boolean): string[] {
  announced.set(view, new Set(keywords.map((k) => k.toLowerCase())));
  const all = [...SYSTEM_FLAGS, ...keywords].join(" ");
  return [`* FLAGS (${all})`, readOnly ? "* OK [PERMANENTFLAGS ()] Read-only" : `* OK [PERMANENTFLAGS (${all} \\*)] Flags permitted`];
}

/**
 * Before a FETCH FLAGS that carries a keyword the client was not told of (created by STORE or
 * by another session), a fresh FLAGS list (RFC 3501 §7.2.6: clients check keywords against it).
 */
export async function announceKeywords(s: Session, extra: string | undefined): Promise<void> {
  const view = s.mailbox;
  if (!extra || !view) return;
  const known = announced.get(view) ?? new Set<string>();
  const fresh = extra.split(" ").filter((f) => f && !f.startsWith("\\") && !known.has(f.toLowerCase()));
  if (fresh.length === 0) return;
  const all = await s.ctx.storage.imapFolders.keywords(s.inbox!.id);
  for (const f of fresh) if (!all.some((k) => k.toLowerCase() === f.toLowerCase())) all.push(f);
  await s.write(`${flagsLines(view, all, view.readOnly).join("\r\n")}\r\n`);
}

const UNSOLICITED_FLAGS = /^(\* \d+ FETCH \(UID (\d+) FLAGS \()(.*)(\)\))$/;

/**
 * The view's untagged FETCH FLAGS lines (a change from another channel) name the three column
 * flags only; a client replaces its flags with what it is told, so the extra ones are added here.
 */
export async function withExtraFlags(s: Session, lines: string[]): Promise<string[]> {
  const uids: number[] = [];
  for (const l of lines) {
    const m = UNSOLICITED_FLAGS.exec(l);
    if (m) uids.push(Number(m[2]));
  }
  if (uids.length === 0) return lines;
  const extras = await extraFlagsOf(s, uids);
  if (extras.size === 0) return lines;
  const out: string[] = [];
  for (const l of lines) {
    const m = UNSOLICITED_FLAGS.exec(l);
    const extra = m ? extras.get(Number(m[2])) : undefined;
    if (!m || !extra) {
      out.push(l);
      continue;
    }
    await announceKeywords(s, extra);
    out.push(`${m[1]}${m[3] ? `${m[3]} ` : ""}${extra}${m[4]}`);
  }
  return out;
}
