import { encodeTime, monotonicFactory } from "ulid";

const next = monotonicFactory();

/** A new ULID; monotonic within a millisecond so ids sort in creation order. */
export function newId(): string {
  return next();
}

export const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export function isUlid(s: unknown): s is string {
  return typeof s === "string" && ULID_RE.test(s);
}

/** The smallest ULID of a millisecond: every id made at or after `ms` sorts at or above it. */
export function ulidFloor(ms: number): string {
  return `${encodeTime(Math.max(0, Math.min(ms, 281474976710655)), 10)}0000000000000000`;
}
