// Sequence sets (RFC 3501 §9 sequence-set): "1:4,7,9:*". "*" is the largest number in use,
// known only against a mailbox, so ranges are resolved later with resolve().
import { ParseError } from "./tokens";

/** 0 stands for "*". */
export type SeqRange = [number, number];

const NUM = /^(?:\*|[1-9]\d{0,9})$/;

export function parseSequenceSet(text: string): SeqRange[] {
  if (!text || text.length > 64 * 1024) throw new ParseError("Invalid sequence set");
  const out: SeqRange[] = [];
  for (const part of text.split(",")) {
    const [a, b, extra] = part.split(":");
    if (extra !== undefined || !a || !NUM.test(a) || (b !== undefined && !NUM.test(b))) {
      throw new ParseError(`Invalid sequence set "${text.slice(0, 40)}"`);
    }
    const x = a === "*" ? 0 : Number(a);
    const y = b === undefined ? x : b === "*" ? 0 : Number(b);
    if (x > 0xffffffff || y > 0xffffffff) throw new ParseError("Sequence number out of range");
    out.push([x, y]);
  }
  return out;
}

/** True if n is in the set, where "*" means max (an empty mailbox has max 0 and matches nothing). */
export function inSet(set: SeqRange[], n: number, max: number): boolean {
  for (const [a0, b0] of set) {
    const a = a0 === 0 ? max : a0;
    const b = b0 === 0 ? max : b0;
    if (n >= Math.min(a, b) && n <= Math.max(a, b)) return true;
  }
  return false;
}

export function isSequenceSet(text: string): boolean {
  return /^[\d*:,]+$/.test(text);
}
