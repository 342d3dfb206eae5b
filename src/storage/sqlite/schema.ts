// Drizzle table definitions used for queries. The DDL lives in storage/migrations (versioned SQL);
// these must mirror it column for column.
import { sqliteTable, text, integer, primaryKey } from "drizzle-orm/sqlite-core";

export const teams = sqliteTable("teams", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  plan: text("plan").notNull(),
  usedBytes: integer("used_bytes").notNull().default(0),
  createdAt: text("created_at").notNull(),
});

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  teamId: text("team_id").notNull(),
  email: text("email").notNull(),
  name: text("name").notNull(),
  passwordHash: text("password_hash").notNull(),
  role: text("role").$type<"owner" | "admin" | "member">().notNull(),
  createdAt: text("created_at").notNull(),
});

export const projects = sqliteTable("projects", {
  id: text("id").primaryKey(),
  teamId: text("team_id").notNull(),
  slug: text("slug").notNull(),
  name: text("name").notNull(),
  environment: text("environment").notNull(),
  settings: text("settings", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  createdAt: text("created_at").notNull(),
});

export const deviceSessions = sqliteTable("device_sessions", {
  id: text("id").primaryKey(),
  userId: text("user_id").notNull(),
  name: text("name").notNull(),
  tokenHash: text("token_hash").notNull(),
  createdAt: text("created_at").notNull(),
  lastSeenAt: text("last_seen_at"),
});

export const apiKeys = sqliteTable("api_keys", {
  id: text("id").primaryKey(),
  projectId: text("project_id").notNull(),
  name: text("name").notNull(),
  environment: text("environment").notNull(),
  secretHash: text("secret_hash").notNull(),
  lastFour: text("last_four").notNull(),
  scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
  lastUsedAt: text("last_used_at"),
  expiresAt: text("expires_at"),
  revokedAt: text("revoked_at"),
  createdAt: text("created_at").notNull(),
});

export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    principalId: text("principal_id").notNull(),
    route: text("route").notNull(),
    key: text("key").notNull(),
    bodyHash: text("body_hash").notNull(),
    status: integer("status").notNull(),
    body: text("body").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.principalId, t.route, t.key] })],
);

export const inboxes = sqliteTable("inboxes", {
  id: text("id").primaryKey(),
  projectId: text("project_id").notNull(),
  address: text("address").notNull(),
  localPart: text("local_part").notNull(),
  domain: text("domain").notNull(),
  domainId: text("domain_id"),
  name: text("name"),
  type: text("type").$type<"disposable" | "persistent">().notNull(),
  status: text("status").notNull(),
  passwordEnc: text("password_enc").notNull(),
  uidValidity: integer("uid_validity").notNull(),
  uidNext: integer("uid_next").notNull(),
  expiresAt: text("expires_at"),
  expiringAlertedAt: text("expiring_alerted_at"),
  createdBySession: text("created_by_session"),
  messageCount: integer("message_count").notNull(),
  unreadCount: integer("unread_count").notNull(),
  usedBytes: integer("used_bytes").notNull(),
  createdAt: text("created_at").notNull(),
});

export const messages = sqliteTable("messages", {
  id: text("id").primaryKey(),
  inboxId: text("inbox_id").notNull(),
  projectId: text("project_id").notNull(),
  uid: integer("uid").notNull(),
  blobKey: text("blob_key").notNull(),
  sizeBytes: integer("size_bytes").notNull(),
  logicalSizeBytes: integer("logical_size_bytes").notNull(),
  envelopeFrom: text("envelope_from"),
  envelopeTo: text("envelope_to").notNull(),
  fromEmail: text("from_email").notNull(),
  fromName: text("from_name").notNull(),
  toJson: text("to_json", { mode: "json" }).$type<{ email: string; name: string }[]>().notNull(),
  ccJson: text("cc_json", { mode: "json" }).$type<{ email: string; name: string }[]>().notNull(),
  subject: text("subject").notNull(),
  preview: text("preview").notNull(),
  textBody: text("text_body"),
  htmlBody: text("html_body"),
  codes: text("codes", { mode: "json" }).$type<string[]>().notNull(),
  links: text("links", { mode: "json" }).$type<string[]>().notNull(),
  headers: text("headers", { mode: "json" }).$type<{ name: string; value: string }[]>().notNull(),
  headersTruncated: integer("headers_truncated", { mode: "boolean" }).notNull(),
  messageIdHeader: text("message_id_header"),
  sentAt: text("sent_at"),
  attachmentCount: integer("attachment_count").notNull(),
  parseError: text("parse_error"),
  read: integer("read", { mode: "boolean" }).notNull(),
  flagged: integer("flagged", { mode: "boolean" }).notNull(),
  deletedFlag: integer("deleted_flag", { mode: "boolean" }).notNull(),
  receivedAt: text("received_at").notNull(),
  expiresAt: text("expires_at").notNull(),
});

export const attachments = sqliteTable("attachments", {
  id: text("id").primaryKey(),
  messageId: text("message_id").notNull(),
  position: integer("position").notNull(),
  filename: text("filename").notNull(),
  declaredContentType: text("declared_content_type").notNull(),
  servedContentType: text("served_content_type").notNull(),
  disposition: text("disposition").notNull(),
  contentId: text("content_id"),
  sizeBytes: integer("size_bytes").notNull(),
  sha256: text("sha256").notNull(),
  blobKey: text("blob_key").notNull(),
});

export const inboxWatches = sqliteTable(
  "inbox_watches",
  {
    inboxId: text("inbox_id").notNull(),
    deviceSessionId: text("device_session_id").notNull(),
    userId: text("user_id").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.inboxId, t.deviceSessionId] })],
);
