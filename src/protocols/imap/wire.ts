// How values are written on the wire: quoted strings, literals, NIL, dates, flags.
// Response text is a byte string: one char per byte (latin1), as header values are read from the
// raw message, so 8-bit header bytes go out exactly as they came in. The session encodes it so.

/** A quoted string when it can be one (short printable ASCII), otherwise a literal. */
export function str(v: string): string {
  if (v.length < 1024 && /^[\x20-\x7e]*$/.test(v)) return `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  return `{${v.length}}\r\n${v}`;
}

export function nstr(v: string | null | undefined): string {
  return v === null || v === undefined ? "NIL" : str(v);
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** INTERNALDATE form: "17-Jul-1996 02:44:25 +0000". */
export function internalDate(iso: string): string {
  const d = new Date(iso);
  const t = Number.isNaN(d.getTime()) ? new Date(0) : d;
  const p = (n: number) => String(n).padStart(2, "0");
  return `"${p(t.getUTCDate())}-${MONTHS[t.getUTCMonth()]}-${t.getUTCFullYear()} ${p(t.getUTCHours())}:${p(t.getUTCMinutes())}:${p(t.getUTCSeconds())} +0000"`;
}

export interface FlagBits {
  seen: boolean;
  flagged: boolean;
  deleted: boolean;
  /** \Recent in this session (mailbox.ts); absent: not recent. */
  recent?: boolean;
}

/** `extra`: \\Answered, \\Draft and keywords, space-separated (extra-flags.ts). */
export function flagList(f: FlagBits, extra?: string): string {
  const out: string[] = [];
  if (f.recent) out.push("\\Recent");
  if (f.seen) out.push("\\Seen");
  if (f.flagged) out.push("\\Flagged");
  if (f.deleted) out.push("\\Deleted");
  if (extra) out.push(extra);
  return `(${out.join(" ")})`;
}
