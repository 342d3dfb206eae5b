// Records the storage tests insert directly through the repositories (no service above them).
import type { InboxRecord } from "../../src/storage/mail";

/** The instant the storage tests' records are made at. */
export const T0 = "2026-01-01T00:00:00.000Z";

/** A fresh, empty, active inbox `<id>@example.test` of the project; `patch` overrides any field. */
export const inboxRecord = (id: string, projectId: string, patch: Partial<InboxRecord> = {}): InboxRecord => ({
  id,
  projectId,
  address: `${id}@example.test`,
  localPart: id,
  domain: "example.test",
  domainId: null,
  name: null,
  type: "disposable",
  status: "active",
  passwordEnc: "sealed",
  uidValidity: 1_767_225_600,
  uidNext: 1,
  expiresAt: null,
  expiringAlertedAt: null,
  createdBySession: null,
  messageCount: 0,
  unreadCount: 0,
  usedBytes: 0,
  createdAt: T0,
  ...patch,
});
