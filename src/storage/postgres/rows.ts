// The engine-neutral row mappers (../row-records.ts), under the names the PostgreSQL repositories use.
export { inboxFromRow as inboxFromPgRow, num, type Row } from "../row-records";
