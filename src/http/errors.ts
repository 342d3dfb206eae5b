// The HTTP face of a DomainError: the status each kind answers with. Services raise kinds; only
// this table knows the numbers (the envelope itself is written in app.ts).
import type { DomainError, ErrorKind } from "../lib/errors";

const STATUS: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  not_allowed: 405,
  conflict: 409,
  gone: 410,
  precondition_failed: 412,
  too_large: 413,
  unsupported: 415,
  invalid: 422,
  precondition_required: 428,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
  storage_full: 507,
};

export const httpStatus = (e: DomainError): number => STATUS[e.kind];
