// Reading received messages: the message resource in its three views (summary, full, agent),
// raw bytes, the sanitised HTML body, attachments (bytes and agent representation), deletion.
// Every lookup is scoped by project: another project's message is a 404, never a 403.
// The views' extra fields (what the contract leaves open) are documented in docs/messages.md.
import type { AppContext } from "../context";
import type { HeaderLine } from "../mime/types";
import { projectHeaders } from "../mime/parse";
import { sanitizeHtml } from "../mime/sanitize";
import { agentAttachment } from "../mime/attachment-agent";
import { notFound } from "../lib/errors";
import { randomToken } from "../lib/crypto";

export type MessageView = "summary" | "full" | "agent";
export type HeadersMode = "projected" | "full";

export interface MessageRow {
  id: string;
  inbox_id: string;
  project_id: string;
  uid: number;
  blob_key: string;
  size_bytes: number;
  logical_size_bytes: number;
  envelope_from: string | null;
  envelope_to: string;
  from_email: string;
  from_name: string;
  to_json: string;
  cc_json: string;
  subject: string;
  preview: string;
  text_body: string | null;
  html_body: string | null;
  codes: string;
  links: string;
  headers: string;
  headers_truncated: number;
  message_id_header: string | null;
  sent_at: string | null;
  attachment_count: number;
  parse_error: string | null;
  read: number;
  received_at: string;
  expires_at: string;
}

export interface AttachmentRow {
  id: string;
  message_id: string;
  position: number;
  filename: string;
  declared_content_type: string;
  served_content_type: string;
  disposition: string;
  content_id: string | null;
  size_bytes: number;
  sha256: string;
  blob_key: string;
}

/** Bound on the sender-written text an agent view carries (characters). */
export const AGENT_TEXT_MAX = 32_000;

export class MessageService {
  constructor(private readonly ctx: AppContext) {}

  /** Newest first; `rows.length` may be limit+1 (toPage trims). The caller has checked the inbox. */
  list(inboxId: string, cursor: string | undefined, limit: number): MessageRow[] {
    const q = cursor
      ? this.ctx.db.sqlite.query("SELECT * FROM messages WHERE inbox_id = ? AND id < ? ORDER BY id DESC LIMIT ?")
      : this.ctx.db.sqlite.query("SELECT * FROM messages WHERE inbox_id = ? ORDER BY id DESC LIMIT ?");
    return (cursor ? q.all(inboxId, cursor, limit + 1) : q.all(inboxId, limit + 1)) as MessageRow[];
  }

  inboxExists(projectId: string, inboxId: string): boolean {
    return this.ctx.db.sqlite.query("SELECT 1 FROM inboxes WHERE id = ? AND project_id = ?").get(inboxId, projectId) !== null;
  }

  /** A message of the project, or 404. */
  get(projectId: string, id: string): MessageRow {
    const row = this.ctx.db.sqlite.query("SELECT * FROM messages WHERE id = ? AND project_id = ?").get(id, projectId) as MessageRow | null;
    if (!row) throw notFound("message");
    return row;
  }

  /** The newest message of the inbox, or (with a baseline) the oldest one newer than it. */
  nextAfter(inboxId: string, after: string | null): MessageRow | null {
    const { sqlite } = this.ctx.db;
    return (
      after === null
        ? sqlite.query("SELECT * FROM messages WHERE inbox_id = ? ORDER BY id DESC LIMIT 1").get(inboxId)
        : sqlite.query("SELECT * FROM messages WHERE inbox_id = ? AND id > ? ORDER BY id ASC LIMIT 1").get(inboxId, after)
    ) as MessageRow | null;
  }

  attachmentsOf(messageIds: string[]): Map<string, AttachmentRow[]> {
    const out = new Map<string, AttachmentRow[]>();
    if (messageIds.length === 0) return out;
    const rows = this.ctx.db.sqlite
      .query(`SELECT * FROM attachments WHERE message_id IN (${messageIds.map(() => "?").join(",")}) ORDER BY message_id, position`)
      .all(...messageIds) as AttachmentRow[];
    for (const r of rows) {
      const list = out.get(r.message_id) ?? [];
      list.push(r);
      out.set(r.message_id, list);
    }
    return out;
  }

  /** Shapes rows for the wire; attachments are fetched once for the whole page. */
  viewMany(rows: MessageRow[], view: MessageView, headers: HeadersMode) {
    const atts = view === "summary" ? new Map<string, AttachmentRow[]>() : this.attachmentsOf(rows.map((r) => r.id));
    return rows.map((r) => this.view(r, view, headers, atts.get(r.id) ?? []));
  }

  view(r: MessageRow, view: MessageView, headersMode: HeadersMode, attachments?: AttachmentRow[]) {
    const links = JSON.parse(r.links) as string[];
    const headerLines = JSON.parse(r.headers) as HeaderLine[];
    const base = {
      id: r.id,
      inbox_id: r.inbox_id,
      from: { email: r.from_email, name: r.from_name },
      subject: r.subject,
      preview: r.preview,
      codes: JSON.parse(r.codes) as string[],
      links_count: links.length,
      attachment_count: r.attachment_count,
      has_text: r.text_body !== null && r.text_body !== "",
      has_html: r.html_body !== null && r.html_body !== "",
      // A row is committed only after its raw blob is fsynced, so the raw is always there.
      raw_available: true,
      size_bytes: r.size_bytes,
      logical_size_bytes: r.logical_size_bytes,
      received_at: r.received_at,
      expires_at: r.expires_at,
      read: r.read === 1,
      headers: headersMode === "full" ? headerLines : projectHeaders(headerLines),
      headers_truncated: headersMode === "full" ? r.headers_truncated === 1 : false,
    };
    if (view === "summary") return base;
    const atts = (attachments ?? this.attachmentsOf([r.id]).get(r.id) ?? []).map((a) => this.attachmentMeta(a));
    if (view === "full") {
      return {
        ...base,
        to: JSON.parse(r.to_json),
        cc: JSON.parse(r.cc_json),
        text: r.text_body,
        links,
        attachments: atts,
        message_id: r.message_id_header,
        sent_at: r.sent_at,
        envelope: { from: r.envelope_from, to: r.envelope_to },
        parse_error: r.parse_error,
      };
    }
    // agent: whatever the sender wrote sits inside the untrusted envelope, marked with a nonce
    // an attacker cannot predict, so "ignore previous instructions" in a body is data, not a prompt.
    const text = r.text_body ?? (r.html_body ? htmlToText(r.html_body) : "");
    return {
      ...base,
      attachments: atts.map(({ filename: _f, ...meta }) => meta),
      untrusted: {
        provenance: "third-party-email",
        nonce: randomToken(12),
        from: { email: r.from_email, name: r.from_name },
        subject: r.subject,
        text: text.slice(0, AGENT_TEXT_MAX),
        truncated: text.length > AGENT_TEXT_MAX,
        links,
        attachment_filenames: atts.map((a) => a.filename),
      },
    };
  }

  private attachmentMeta(a: AttachmentRow) {
    return {
      id: a.id,
      filename: a.filename,
      declared_content_type: a.declared_content_type,
      served_content_type: a.served_content_type,
      disposition: a.disposition,
      content_id: a.content_id,
      size_bytes: a.size_bytes,
      sha256: a.sha256,
    };
  }

  async raw(projectId: string, id: string): Promise<Uint8Array> {
    const m = this.get(projectId, id);
    const bytes = await this.ctx.blobs.get(m.blob_key);
    if (!bytes) throw notFound("raw message");
    return bytes;
  }

  html(projectId: string, id: string, remote: "strip" | "allow") {
    const m = this.get(projectId, id);
    return sanitizeHtml(m.html_body ?? "", { remote });
  }

  attachment(projectId: string, messageId: string, attachmentId: string): AttachmentRow {
    this.get(projectId, messageId);
    const a = this.ctx.db.sqlite
      .query("SELECT * FROM attachments WHERE id = ? AND message_id = ?")
      .get(attachmentId, messageId) as AttachmentRow | null;
    if (!a) throw notFound("attachment");
    return a;
  }

  async attachmentBytes(a: AttachmentRow): Promise<Uint8Array> {
    const bytes = await this.ctx.blobs.get(a.blob_key);
    if (!bytes) throw notFound("attachment content");
    return bytes;
  }

  async attachmentAgent(projectId: string, messageId: string, attachmentId: string) {
    const a = this.attachment(projectId, messageId, attachmentId);
    const input = {
      id: a.id,
      messageId: a.message_id,
      filename: a.filename,
      declaredContentType: a.declared_content_type,
      servedContentType: a.served_content_type,
      sizeBytes: a.size_bytes,
      sha256: a.sha256,
    };
    return agentAttachment(input, await this.attachmentBytes(a));
  }

  /** Sets one message's read flag (the web UI's mark read/unread; IMAP \Seen is the same fact). */
  setRead(projectId: string, id: string, read: boolean): MessageRow {
    const row = this.get(projectId, id);
    if (Boolean(row.read) !== read) {
      this.ctx.db.sqlite.query("UPDATE messages SET read = ? WHERE id = ?").run(read ? 1 : 0, id);
      this.ctx.bus.publish({ type: "message.flags", projectId, inboxId: row.inbox_id, messageId: id });
    }
    return this.get(projectId, id);
  }

  /** Marks every message of the inbox up to and including lastId read; returns the ids changed. */
  markRead(inboxId: string, lastId: string): string[] {
    return (
      this.ctx.db.sqlite.query("UPDATE messages SET read = 1 WHERE inbox_id = ? AND id <= ? AND read = 0 RETURNING id").all(inboxId, lastId) as {
        id: string;
      }[]
    ).map((r) => r.id);
  }
}

/** Readable text from an HTML-only message, for the agent view (not a renderer). */
function htmlToText(html: string): string {
  return html
    .replace(/<(script|style|head)[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<br\s*\/?>|<\/(p|div|tr|li|h[1-6])>/gi, "\n")
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/[ \t]+/g, " ")
    .replace(/\n\s*\n+/g, "\n\n")
    .trim();
}
