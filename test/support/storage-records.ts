// Records the storage tests insert directly through the repositories (no service above them).
import type { WebhookRecord } from "../../src/storage/events";
import type { InboxRecord, NewMessage } from "../../src/storage/mail";

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

/**
 * A stored message's row for `messages.insert`: a small plain-text mail from sender@example.test to the inbox's
 * address, expiring in 2027; `m` gives its identity and overrides any other field.
 */
export const messageRecord = (m: Pick<NewMessage, "id" | "inbox_id" | "project_id" | "uid"> & Partial<NewMessage>): NewMessage => ({
  blob_key: "k",
  size_bytes: 100,
  logical_size_bytes: 100,
  envelope_from: null,
  envelope_to: `${m.inbox_id}@example.test`,
  from_email: "sender@example.test",
  from_name: "",
  to_json: "[]",
  cc_json: "[]",
  subject: `message ${m.uid}`,
  preview: "",
  text_body: "body",
  html_body: null,
  codes: "[]",
  links: "[]",
  headers: "[]",
  headers_truncated: 0,
  message_id_header: null,
  sent_at: null,
  attachment_count: 0,
  parse_error: null,
  received_at: T0,
  expires_at: "2027-01-01T00:00:00.000Z",
  ...m,
});

/** An enabled, healthy webhook of the project for message.received on every inbox, never delivered to. */
export const webhookRecord = (id: string, projectId: string): WebhookRecord => ({
  id,
  project_id: projectId,
  url: `https://hooks.example.test/${id}`,
  description: null,
  event_types: '["message.received"]',
  inbox_id: null,
  enabled: 1,
  secret_enc: "sealed",
  previous_secret_enc: null,
  previous_expires_at: null,
  created_at: T0,
  updated_at: T0,
  delivery_seq: 0,
  paused: 0,
  consecutive_failures: 0,
  circuit_open_until: 0,
  last_success_at: null,
  last_failure_at: null,
});
