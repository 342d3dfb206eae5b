import { monotonicFactory } from "ulid";

const next = monotonicFactory();

/** A new ULID; monotonic within a millisecond so ids sort in creation order. */
export function newId(): string {
  return next();
}

export const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export function isUlid(s: unknown): s is string {
  return typeof s === "string" && ULID_RE.test(s);
}
