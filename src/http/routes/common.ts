export { PageQuery } from "../pagination";
export { IdParams, Ts, NullableTs, Ulid, ULID_PATTERN } from "../schemas";
