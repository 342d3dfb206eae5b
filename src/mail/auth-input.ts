// What of a message the receipt checks (auth-check.ts) have to read. mailauth reads the body only to
// hash it for a DKIM-Signature or an ARC-Message-Signature; SPF, DMARC and the ARC seals look at the
// envelope and the header. Yet it scans every body byte in JavaScript on the way (its line-ending
// pass): ~0.25 s per 24 MB message, and most mail a test sends is not signed. An unsigned message is
// therefore checked from its header alone, with the same findings.
import type { Readable } from "node:stream";

/** Past this, a header is not looked for any further: the whole message is checked, as before. */
export const HEADER_SCAN_LIMIT = 256 * 1024;

const SIGNATURE = /(?:^|\n)(?:dkim-signature|arc-[a-z-]+)[ \t]*:/i;

/** Where the header ends (after its blank line), or -1 when no blank line is in `bytes`. */
function headerEnd(bytes: Uint8Array): number {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b[0] === 0x0a) return 1;
  if (b[0] === 0x0d && b[1] === 0x0a) return 2;
  const lf = b.indexOf("\n\n");
  const crlf = b.indexOf("\n\r\n");
  if (lf < 0) return crlf < 0 ? -1 : crlf + 3;
  return crlf < 0 || lf < crlf ? lf + 2 : crlf + 3;
}

/**
 * The header of an unsigned message (through its blank line), which is all the checks need; null
 * when the message carries a DKIM or ARC header (its body is hashed) or no end of header is in
 * `head` (a prefix of the message, or all of it).
 */
export function headerOfUnsigned(head: Uint8Array): Uint8Array | null {
  const end = headerEnd(head);
  if (end < 0) return null;
  const text = Buffer.from(head.buffer, head.byteOffset, end).toString("latin1");
  // A copy: a view would take the whole message along when posted to the check thread.
  return SIGNATURE.test(text) ? null : new Uint8Array(head.subarray(0, end));
}

/**
 * Whether the message's header section runs past HEADER_SCAN_LIMIT (`head`: the message or a prefix of at
 * least that many bytes). Such a header is not checked: mailauth's reading of a header is quadratic in its
 * folded lines (40,000 took 6.5 s, the 5,000,000 of a fuzzed message would take days), and the checks of a
 * large message run on the event loop. Postfix refuses headers past 100 KB by default.
 */
export function headerTooLarge(head: Uint8Array): boolean {
  const end = headerEnd(head);
  return end < 0 ? head.byteLength >= HEADER_SCAN_LIMIT : end > HEADER_SCAN_LIMIT;
}

/** The first bytes of a stream, up to `limit` (or its end); the stream is destroyed after. */
export async function prefixOf(stream: Readable, limit: number): Promise<Uint8Array> {
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      parts.push(chunk as Buffer);
      size += (chunk as Buffer).byteLength;
      if (size >= limit || headerEnd(Buffer.concat(parts)) >= 0) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(parts);
}
