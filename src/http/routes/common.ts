export { PageQuery } from "../pagination";
export { IdParams, SessionHeader, Ts, NullableTs, Ulid, ULID_PATTERN } from "../schemas";
