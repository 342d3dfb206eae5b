// The contract's error envelope: {code, message, details, request_id}. Services throw ApiError;
// the HTTP layer adds request_id and serialises.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const notFound = (what = "resource") => new ApiError(404, "not_found", `${what} not found`);
export const validation = (message: string, details: Record<string, unknown> = {}) =>
  new ApiError(422, "validation_error", message, details);
export const forbidden = (code: string, message: string, details: Record<string, unknown> = {}) =>
  new ApiError(403, code, message, details);
export const conflict = (code: string, message: string, details: Record<string, unknown> = {}) =>
  new ApiError(409, code, message, details);
