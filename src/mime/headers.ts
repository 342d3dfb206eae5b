// The header section of a raw message, read independently of mailparser so that a message
// whose MIME structure is broken still shows every header it carried. Bounded, see docs/parsing.md.
import libmime from "libmime";
import type { HeaderLine } from "./types";

export const MAX_HEADERS = 500;
export const MAX_HEADER_BYTES = 256 * 1024;
export const MAX_HEADER_VALUE_CHARS = 16 * 1024;
/** Past this many raw bytes we stop looking for the end of the header section. */
const MAX_HEADER_SCAN = 4 * 1024 * 1024;

/** Headers returned for headers=projected: the ones a test usually asserts on. */
export const PROJECTED_HEADERS = [
  "from",
  "sender",
  "to",
  "cc",
  "reply-to",
  "subject",
  "date",
  "message-id",
  "in-reply-to",
  "references",
  "mime-version",
  "content-type",
  "list-id",
  "list-unsubscribe",
  "list-unsubscribe-post",
  "return-path",
  "delivered-to",
  "x-mailer",
  "user-agent",
  "auto-submitted",
  "precedence",
  "x-priority",
  "importance",
  "authentication-results",
  "dkim-signature",
];
const PROJECTED = new Set(PROJECTED_HEADERS);
const MAX_PROJECTED_VALUE_CHARS = 4 * 1024;
const MAX_PROJECTED = 64;

const utf8 = new TextDecoder("utf-8", { fatal: true });
const latin = new TextDecoder("windows-1252");

/** Raw 8-bit header bytes: UTF-8 when valid (SMTPUTF8), else Windows-1252 (legacy senders). */
function decodeBytes(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return latin.decode(bytes);
  }
}

/** Byte offset where the body starts (after the first empty line), or raw.length when there is none. */
export function headerEnd(raw: Uint8Array): { end: number; bodyStart: number } {
  const limit = Math.min(raw.length, MAX_HEADER_SCAN);
  // An empty message or one starting with a blank line has no headers.
  if (raw[0] === 0x0a) return { end: 0, bodyStart: 1 };
  if (raw[0] === 0x0d && raw[1] === 0x0a) return { end: 0, bodyStart: 2 };
  for (let i = 0; i < limit - 1; i++) {
    if (raw[i] !== 0x0a) continue;
    if (raw[i + 1] === 0x0a) return { end: i + 1, bodyStart: i + 2 };
    if (raw[i + 1] === 0x0d && raw[i + 2] === 0x0a) return { end: i + 1, bodyStart: i + 3 };
  }
  return { end: limit, bodyStart: limit };
}

/** libmime's decodeWords, or the value as it is when its encoded words are malformed. */
export function decodeWords(value: string): string {
  try {
    return libmime.decodeWords(value);
  } catch {
    return value;
  }
}

/** Every header in order, unfolded, encoded-words decoded, bounded (count, total bytes, value length). */
export function readHeaders(raw: Uint8Array, maxBytes = MAX_HEADER_BYTES): { headers: HeaderLine[]; truncated: boolean } {
  const { end } = headerEnd(raw);
  const section = decodeBytes(raw.subarray(0, end));
  const headers: HeaderLine[] = [];
  let truncated = end >= MAX_HEADER_SCAN;
  let total = 0;
  let current: string | null = null;
  const flush = (): boolean => {
    if (current === null) return true;
    const colon = current.indexOf(":");
    const line = current;
    current = null;
    if (colon <= 0) return true; // not a header line (e.g. an mbox "From " line): skipped
    const name = line.slice(0, colon).trim();
    if (!name || /[\s\u0000-\u001f]/.test(name)) return true;
    let value = decodeWords(
      line
        .slice(colon + 1)
        .replace(/\r?\n/g, "")
        .replace(/^[ \t]+/, "")
        .replace(/[ \t]+$/, ""),
    );
    if (value.length > MAX_HEADER_VALUE_CHARS) {
      value = value.slice(0, MAX_HEADER_VALUE_CHARS);
      truncated = true;
    }
    const size = Buffer.byteLength(name) + Buffer.byteLength(value) + 2;
    if (headers.length >= MAX_HEADERS || total + size > maxBytes) {
      truncated = true;
      return false;
    }
    total += size;
    headers.push({ name, value });
    return true;
  };
  let pos = 0;
  while (pos < section.length) {
    let nl = section.indexOf("\n", pos);
    if (nl === -1) nl = section.length;
    const line = section.slice(pos, nl).replace(/\r$/, "");
    pos = nl + 1;
    if (/^[ \t]/.test(line) && current !== null) {
      // Folded continuation; a single header is capped so a giant fold cannot grow unbounded.
      if (current.length < MAX_HEADER_VALUE_CHARS * 4) current += "\n" + line;
      else truncated = true;
      continue;
    }
    if (!flush()) return { headers, truncated: true };
    current = line;
  }
  if (!flush()) truncated = true;
  return { headers, truncated };
}

/** Value of the first header with that name (case-insensitive), or null. */
export function headerValue(headers: HeaderLine[], name: string): string | null {
  const n = name.toLowerCase();
  return headers.find((h) => h.name.toLowerCase() === n)?.value ?? null;
}

/**
 * The bounded subset returned for headers=projected: the PROJECTED_HEADERS names in received
 * order, at most 64 lines, each value at most 4 KiB characters.
 */
export function projectHeaders(headers: HeaderLine[]): HeaderLine[] {
  const out: HeaderLine[] = [];
  for (const h of headers) {
    if (!PROJECTED.has(h.name.toLowerCase())) continue;
    out.push({ name: h.name, value: h.value.length > MAX_PROJECTED_VALUE_CHARS ? h.value.slice(0, MAX_PROJECTED_VALUE_CHARS) : h.value });
    if (out.length >= MAX_PROJECTED) break;
  }
  return out;
}
