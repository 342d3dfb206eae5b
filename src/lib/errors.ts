// Errors a service raises, in words every channel can say: a kind (what went wrong, in general),
// the contract's code, a message and details. Services never know HTTP statuses or IMAP replies;
// src/http/errors.ts maps kinds to statuses and the mail protocols map them to their own replies.

export type ErrorKind =
  | "bad_request" // the request itself is malformed (400)
  | "unauthenticated" // no valid credential (401)
  | "forbidden" // the credential may not do this (403)
  | "not_found" // absent, or not visible to the caller (404)
  | "conflict" // the resource is not in a state that allows this (409)
  | "gone" // existed, but is over (410)
  | "precondition_failed" // If-Match did not match (412)
  | "precondition_required" // If-Match is required (428)
  | "not_allowed" // the operation does not exist on this resource (405)
  | "too_large" // the request body is over a size limit (413)
  | "unsupported" // a content type we do not take (415)
  | "invalid" // well-formed but breaks a rule (422)
  | "rate_limited" // too many requests (429)
  | "unavailable" // a dependency is down (503)
  | "storage_full" // the disk (or the database's size cap) is full: nothing was stored (507)
  | "internal"; // our fault (500)

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    /** Protocol-neutral hints a channel may pass on (HTTP sends them as headers, e.g. Retry-After). */
    readonly hints: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Characters of a refused value an error repeats at most: a 1 MB value is not sent back whole. */
const ECHO_MAX = 100;

const cut = (s: string) => (s.length > ECHO_MAX ? `${s.slice(0, ECHO_MAX)}…` : s);

/** A refused value as an error message quotes it (JSON), cut at ECHO_MAX characters. */
export function quoted(value: unknown): string {
  return cut(JSON.stringify(value) ?? String(value));
}

/** Refused values as an error's details list them: the first ten, long strings cut at ECHO_MAX. */
export function echoed(values: readonly unknown[]): unknown[] {
  return values.slice(0, 10).map((v) => (typeof v === "string" ? cut(v) : v));
}

export const notFound = (what = "resource") => new DomainError("not_found", "not_found", `${what} not found`);
export const validation = (message: string, details: Record<string, unknown> = {}) =>
  new DomainError("invalid", "validation_error", message, details);
export const forbidden = (code: string, message: string, details: Record<string, unknown> = {}) =>
  new DomainError("forbidden", code, message, details);
export const conflict = (code: string, message: string, details: Record<string, unknown> = {}) =>
  new DomainError("conflict", code, message, details);
export const invalid = (code: string, message: string, details: Record<string, unknown> = {}) =>
  new DomainError("invalid", code, message, details);

/**
 * The disk or the database is full: SQLite's SQLITE_FULL (ENOSPC under it, or the database's
 * max_page_count), PostgreSQL's disk_full (SQLSTATE 53100, Bun's PostgresError carries it in
 * `errno`), or ENOSPC/EDQUOT from a file write (the blob store, the spool). Looks through `cause`.
 */
export function isStorageFull(e: unknown): boolean {
  for (let x: any = e, depth = 0; x && depth < 5; x = x.cause, depth++) {
    if (x instanceof DomainError) return x.kind === "storage_full";
    const code = typeof x.code === "string" ? x.code : "";
    if (code === "ENOSPC" || code === "EDQUOT" || code.startsWith("SQLITE_FULL")) return true;
    if (code === "ERR_POSTGRES_SERVER_ERROR" && x.errno === "53100") return true;
  }
  return false;
}

/**
 * The engine chose this transaction as the victim of a lock cycle or a serialization conflict and
 * rolled it back whole: PostgreSQL's deadlock_detected (40P01) or serialization_failure (40001).
 * Running it again from the start is the remedy (the storage does, storage/postgres/connection.ts);
 * code that catches errors inside a transaction must let these through, or the retry never comes.
 */
export function isTransientConflict(e: unknown): boolean {
  for (let x: any = e, depth = 0; x && depth < 5; x = x.cause, depth++) {
    if (x.code === "ERR_POSTGRES_SERVER_ERROR" && (x.errno === "40P01" || x.errno === "40001")) return true;
  }
  return false;
}

/** What every channel says when isStorageFull: the HTTP face is 507, SMTP 452 4.3.1. */
export const storageFull = () =>
  new DomainError(
    "storage_full",
    "insufficient_storage",
    "the server's storage is full; nothing was stored. Free disk space (or raise the operator's limit) and retry",
  );
