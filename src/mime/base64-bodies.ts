// Large base64 bodies decoded natively instead of by mailparser's streams.
//
// mailparser decodes a base64 attachment line by line: mailsplit cuts the body into a Buffer per line and
// libbase64's Transform decodes each. For a 24 MB attachment that is ~130 MB of short-lived buffers and
// ~0.6-0.8 s, most of it page faults (docs/decisions.md, "Large mail"), where one native decode of the
// same bytes takes ~50 ms. So before mailparser sees a large message, each long run of base64 lines that
// starts a body is replaced by one line: the base64 of a random marker. mailparser parses that small
// skeleton (every structural and header rule stays its own), and each marker found at the very start of
// an attachment's content is swapped for the run's native decode.
//
// Why the swap gives exactly mailparser's bytes: a run holds only base64 data characters (no padding, no
// other character), a multiple of four of them, and begins right after an empty line; the marker is the
// same kind of line. libbase64 decodes in quartets and carries a partial quartet across chunks, so when
// the marker's bytes come out intact at offset 0 of an attachment, the decoder was at a quartet boundary
// with nothing decoded before it, and it leaves the marker (and would have left the run) at a quartet
// boundary: what follows decodes the same either way. A marker found anywhere else (a text part, another
// offset, mangled by a transfer or charset decoding, missing) means the guess about the structure was
// wrong, and the whole message goes through mailparser as it is. test/mime/base64-bodies.test.ts
// compares both ways over the shapes where that could differ.
import { randomBytes } from "node:crypto";

/** A message smaller than this is parsed as it is: the skeleton only pays for itself on large bodies. */
export const CUT_MESSAGES_FROM = 256 * 1024;
/** A run shorter than this (in bytes, line endings included) is left in place. */
const MIN_RUN_BYTES = 64 * 1024;
const MARKER_BYTES = 24;

/** 1 for base64 data characters (A-Z a-z 0-9 + /), 0 for everything else, padding included. */
const DATA = new Uint8Array(256);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") DATA[c.charCodeAt(0)] = 1;

interface Run {
  /** First byte of the run's first line. */
  start: number;
  /** Just past the line ending of the run's last line. */
  end: number;
  /** Its base64 characters (a multiple of four). */
  chars: number;
  /** The marker whose base64 replaces the run. */
  marker: Buffer;
}

export interface Skeleton {
  /** The message with each run replaced by its marker's line. */
  bytes: Uint8Array;
  raw: Uint8Array;
  runs: Run[];
}

/** The attachment fields the swap needs (mailparser's ParsedMail attachments). */
export interface AttachmentContent {
  content: Buffer;
}

/** Whether [from, to) holds base64 data characters only, at least one. */
function dataLine(b: Uint8Array, from: number, to: number): boolean {
  if (to <= from) return false;
  for (let i = from; i < to; i++) if (DATA[b[i]!] === 0) return false;
  return true;
}

/** The runs of `raw`'s body (from `bodyStart`) worth cutting, in order. */
function findRuns(raw: Uint8Array, bodyStart: number): Array<Omit<Run, "marker">> {
  const runs: Array<Omit<Run, "marker">> = [];
  // The body itself follows the header's empty line: a single-part message's body can be a run.
  let afterEmpty = true;
  let start = -1;
  // The run so far up to its last line end where the character count was a multiple of four.
  let chars = 0;
  let alignedEnd = -1;
  let alignedChars = 0;
  const close = () => {
    if (start >= 0 && alignedEnd - start >= MIN_RUN_BYTES) runs.push({ start, end: alignedEnd, chars: alignedChars });
    start = -1;
  };
  let ls = bodyStart;
  while (ls < raw.length) {
    const lf = raw.indexOf(0x0a, ls);
    // A last line without a line ending is never part of a run.
    if (lf < 0) break;
    const le = lf > ls && raw[lf - 1] === 0x0d ? lf - 1 : lf;
    if (dataLine(raw, ls, le)) {
      if (start < 0 && afterEmpty) {
        start = ls;
        chars = 0;
        alignedEnd = -1;
      }
      if (start >= 0) {
        chars += le - ls;
        if (chars % 4 === 0) {
          alignedEnd = lf + 1;
          alignedChars = chars;
        }
      }
      afterEmpty = false;
    } else {
      close();
      afterEmpty = le === ls;
    }
    ls = lf + 1;
  }
  close();
  return runs;
}

/** The skeleton of a large message with long base64 bodies, or null when there is nothing to cut. */
export function cutBase64Bodies(raw: Uint8Array, bodyStart: number): Skeleton | null {
  if (raw.length < CUT_MESSAGES_FROM) return null;
  const found = findRuns(raw, bodyStart);
  if (found.length === 0) return null;
  const pieces: Uint8Array[] = [];
  const runs: Run[] = [];
  let at = 0;
  for (const { start, end, chars } of found) {
    // 0xFF cannot survive a charset decoding, so a marker that went through one is never found.
    const marker = randomBytes(MARKER_BYTES);
    marker[0] = 0xff;
    const crlf = raw[end - 2] === 0x0d;
    pieces.push(raw.subarray(at, start), Buffer.from(`${marker.toString("base64")}${crlf ? "\r\n" : "\n"}`, "latin1"));
    runs.push({ start, end, chars, marker });
    at = end;
  }
  pieces.push(raw.subarray(at));
  return { bytes: new Uint8Array(Buffer.concat(pieces)), raw, runs };
}

/**
 * Puts each run's decoded bytes where its marker is, in place in `attachments`. False when any marker is
 * not found exactly once at the start of an attachment: the caller then parses the whole message.
 */
export function restoreBase64Bodies(attachments: AttachmentContent[] | undefined, skeleton: Skeleton): boolean {
  const owners: AttachmentContent[] = [];
  for (const run of skeleton.runs) {
    const holders = (attachments ?? []).filter(
      (a) => a.content.length >= MARKER_BYTES && a.content.subarray(0, MARKER_BYTES).equals(run.marker),
    );
    if (holders.length !== 1 || owners.includes(holders[0]!)) return false;
    owners.push(holders[0]!);
  }
  const raw = Buffer.from(skeleton.raw.buffer, skeleton.raw.byteOffset, skeleton.raw.byteLength);
  for (const [i, run] of skeleton.runs.entries()) {
    const owner = owners[i]!;
    const rest = owner.content.subarray(MARKER_BYTES);
    const size = (run.chars / 4) * 3;
    const content = Buffer.allocUnsafe(size + rest.length);
    // Line endings are skipped by the decoder; the run holds nothing else that is not data.
    if (content.write(raw.toString("latin1", run.start, run.end), 0, size, "base64") !== size) return false;
    rest.copy(content, size);
    owner.content = content;
  }
  return true;
}
