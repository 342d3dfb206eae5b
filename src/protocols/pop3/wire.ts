// The bytes of a POP3 multi-line answer body (RFC 1939 §3): every line ends in CRLF, a line
// starting with "." gets one more ".", and ".\r\n" ends the answer. Pure functions.

const CR = 0x0d;
const LF = 0x0a;
const DOT = 0x2e;

/**
 * Encodes raw message bytes for RETR (maxBodyLines = null) or TOP (the header, the blank line
 * and at most maxBodyLines lines of the body). Bare LF and bare CR become CRLF, so a message
 * received with CRLF line ends (what SMTP delivers) goes out byte-identical once the
 * dot-stuffing is undone. The terminating ".\r\n" is included.
 */
export function encodeMultiline(raw: Uint8Array, maxBodyLines: number | null = null): Buffer {
  // Worst case every byte is a line end or a dot that needs stuffing: at most 2× plus terminator.
  const out = Buffer.allocUnsafe(raw.length * 2 + 5);
  let o = 0;
  let atLineStart = true;
  let inBody = false;
  let bodyLines = 0;
  let lineEmpty = true;
  const limitReached = () => inBody && maxBodyLines !== null && bodyLines >= maxBodyLines;
  let i = 0;
  while (i < raw.length) {
    if (limitReached()) break;
    const b = raw[i]!;
    if (b === CR || b === LF) {
      out[o++] = CR;
      out[o++] = LF;
      i += b === CR && raw[i + 1] === LF ? 2 : 1;
      if (inBody) bodyLines++;
      else if (lineEmpty) inBody = true; // the empty line separating header and body
      atLineStart = true;
      lineEmpty = true;
      continue;
    }
    if (atLineStart && b === DOT) out[o++] = DOT;
    out[o++] = b;
    atLineStart = false;
    lineEmpty = false;
    i++;
  }
  if (!atLineStart) {
    // The last line had no terminator; POP3 needs one before the final dot.
    out[o++] = CR;
    out[o++] = LF;
  }
  out[o++] = DOT;
  out[o++] = CR;
  out[o++] = LF;
  return out.subarray(0, o);
}

/** Size in octets of the message as POP3 transmits it (CRLF line ends, before dot-stuffing). */
export function transmittedSize(raw: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i]!;
    if (b === CR) {
      n += 2;
      if (raw[i + 1] === LF) i++;
    } else if (b === LF) n += 2;
    else n++;
  }
  if (raw.length > 0 && raw[raw.length - 1] !== LF && raw[raw.length - 1] !== CR) n += 2;
  return n;
}
