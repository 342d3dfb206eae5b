// Rows as records, for every engine: both return snake_case rows from `SELECT *`, so the mapping
// is one. PostgreSQL returns int8 (BIGINT, COUNT, SUM) as a string to keep every digit; the figures
// kept (bytes, epoch milliseconds, UIDs) stay far below 2^53, so num() makes them numbers (a
// number from SQLite passes through).
import type { InboxRecord } from "./mail";
import type { ApiKeyRecord, DeviceSessionRecord, ProjectRecord, TeamRecord, UserRecord } from "./tenancy";

export type Row = Record<string, any>;

/** A BIGINT/NUMERIC column or aggregate as a number (null stays null). */
export const num = (v: unknown): number => (v === null || v === undefined ? v : Number(v)) as number;

/** An inboxes row (SELECT *) as the record; also for other capabilities' queries that return inboxes. */
export function inboxFromRow(r: Row): InboxRecord {
  return {
    id: r.id,
    projectId: r.project_id,
    address: r.address,
    localPart: r.local_part,
    domain: r.domain,
    domainId: r.domain_id,
    name: r.name,
    type: r.catch_all === 1 ? "catch_all" : r.type,
    status: r.status,
    passwordEnc: r.password_enc,
    uidValidity: num(r.uid_validity),
    uidNext: num(r.uid_next),
    expiresAt: r.expires_at,
    expiringAlertedAt: r.expiring_alerted_at,
    createdBySession: r.created_by_session,
    messageCount: r.message_count,
    unreadCount: r.unread_count,
    usedBytes: num(r.used_bytes),
    createdAt: r.created_at,
  };
}

export const teamFromRow = (r: Row): TeamRecord => ({
  id: r.id,
  name: r.name,
  plan: r.plan,
  usedBytes: num(r.used_bytes),
  createdAt: r.created_at,
});

export const userFromRow = (r: Row): UserRecord => ({
  id: r.id,
  teamId: r.team_id,
  email: r.email,
  name: r.name,
  passwordHash: r.password_hash,
  role: r.role,
  createdAt: r.created_at,
});

export const projectFromRow = (r: Row): ProjectRecord => ({
  id: r.id,
  teamId: r.team_id,
  slug: r.slug,
  name: r.name,
  environment: r.environment,
  settings: JSON.parse(r.settings),
  createdAt: r.created_at,
});

export const deviceFromRow = (r: Row): DeviceSessionRecord => ({
  id: r.id,
  userId: r.user_id,
  name: r.name,
  tokenHash: r.token_hash,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
});

export const apiKeyFromRow = (r: Row): ApiKeyRecord => ({
  id: r.id,
  projectId: r.project_id,
  name: r.name,
  environment: r.environment,
  secretHash: r.secret_hash,
  lastFour: r.last_four,
  scopes: JSON.parse(r.scopes),
  lastUsedAt: r.last_used_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
  createdAt: r.created_at,
});
