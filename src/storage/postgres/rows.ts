// Row mappers shared by the PostgreSQL repositories. Bun returns int8 (BIGINT, COUNT, SUM) as a
// string to keep every digit; the figures we keep (bytes, epoch milliseconds, UIDs) stay far below
// 2^53, so they become numbers here, one place.
import type { InboxRecord } from "../mail";

export type Row = Record<string, any>;

/** A BIGINT/NUMERIC column or aggregate as a number (null stays null). */
export const num = (v: unknown): number => (v === null || v === undefined ? v : Number(v)) as number;

export function inboxFromPgRow(r: Row): InboxRecord {
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
