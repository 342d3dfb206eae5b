// The engine-neutral row mappers (../row-records.ts), under the names the PostgreSQL repositories use.
export { inboxFromRow as inboxFromPgRow, num, type Row } from "../row-records";

/**
 * A team's stored bytes, the sum of its inboxes' counters (migration 0033: no per-team row that
 * every delivery of the team would update and hold locked until COMMIT). `teamId` is an SQL
 * expression: a parameter (`$1`) or a column (`t.id`).
 */
export const teamUsedBytesSql = (teamId: string): string =>
  `(SELECT COALESCE(SUM(i.used_bytes), 0) FROM inboxes i JOIN projects p ON p.id = i.project_id WHERE p.team_id = ${teamId})`;
