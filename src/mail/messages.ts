// Reading received messages: the message resource in its three views (summary, full, agent),
// raw bytes, the sanitised HTML body, attachments (bytes and agent representation), deletion.
// Every lookup is scoped by project: another project's message is a 404, never a 403.
// The views' extra fields (what the contract leaves open) are documented in docs/messages.md.
import type { Readable } from "node:stream";
import type { AppContext } from "../runtime/context";
import type { HeaderLine } from "../mime/types";
import { projectHeaders } from "../mime/parse";
import { sanitizeHtml } from "../mime/sanitize";
import { agentAttachment } from "../mime/attachment-agent";
import { htmlToText } from "../mime/html-text";
import { readLinks } from "../mime/links";
import { notFound, validation } from "../lib/errors";
import { type CompiledPattern, compilePattern, PatternError, patternText } from "../mime/pattern";
import { PatternRunner } from "./pattern-runner";
import { randomToken } from "../lib/crypto";
import type { BusEvent } from "../lib/bus";
import { type AttachmentRecord, type FlagChange, type MessageRecord, recipientsOf } from "../storage/mail";

export type MessageView = "summary" | "full" | "agent";
export type HeadersMode = "projected" | "full";

/** A stored message and attachment, as the views read them (the storage records). */
export type MessageRow = MessageRecord;
export type AttachmentRow = AttachmentRecord;
export type { FlagChange };

/** Bound on the sender-written text an agent view carries (characters). */
export const AGENT_TEXT_MAX = 32_000;

export class MessageService {
  private readonly patterns = new PatternRunner();

  constructor(private readonly ctx: AppContext) {}

  /** A caller's `pattern` checked (422 validation_error with the reason), or null when absent. */
  patternOf(pattern: string | undefined): CompiledPattern | null {
    if (pattern === undefined) return null;
    try {
      return compilePattern(pattern);
    } catch (e) {
      if (e instanceof PatternError)
        throw validation(`pattern is not a valid regular expression: ${e.reason}`, { field: "pattern", reason: e.reason });
      throw e;
    }
  }

  /** The pattern's matches over subject, text body and HTML-derived text (bounded; time-limited, else 422). */
  codesMatching(r: MessageRow, pattern: CompiledPattern): Promise<string[]> {
    return this.patterns.run(pattern, patternText(r.subject, r.text_body, r.html_body));
  }

  /** Whether the pattern matches this text (time-limited, else 422). */
  async patternMatches(pattern: CompiledPattern, text: string): Promise<boolean> {
    return (await this.patterns.run(pattern, text)).length > 0;
  }

  /** Newest first; `rows.length` may be limit+1 (toPage trims). The caller has checked the inbox. */
  list(inboxId: string, cursor: string | undefined, limit: number): Promise<MessageRow[]> {
    return this.ctx.storage.messages.listInInbox(inboxId, cursor || null, limit + 1);
  }

  async inboxExists(projectId: string, inboxId: string): Promise<boolean> {
    return (await this.ctx.storage.inboxes.inProject(projectId, inboxId)) !== null;
  }

  /** A message of the project, or 404. */
  async get(projectId: string, id: string): Promise<MessageRow> {
    const row = await this.ctx.storage.messages.inProject(projectId, id);
    if (!row) throw notFound("message");
    return row;
  }

  /** The newest message of the inbox, or (with a baseline) the oldest one newer than it. */
  nextAfter(inboxId: string, after: string | null): Promise<MessageRow | null> {
    return after === null ? this.ctx.storage.messages.newest(inboxId) : this.ctx.storage.messages.oldestAfter(inboxId, after);
  }

  async attachmentsOf(messageIds: string[]): Promise<Map<string, AttachmentRow[]>> {
    const out = new Map<string, AttachmentRow[]>();
    if (messageIds.length === 0) return out;
    for (const r of await this.ctx.storage.attachments.ofMessages(messageIds)) {
      const list = out.get(r.message_id) ?? [];
      list.push(r);
      out.set(r.message_id, list);
    }
    return out;
  }

  /** Shapes rows for the wire; attachments are fetched once for the whole page. */
  async viewMany(rows: MessageRow[], view: MessageView, headers: HeadersMode) {
    const atts = view === "summary" ? new Map<string, AttachmentRow[]>() : await this.attachmentsOf(rows.map((r) => r.id));
    const folders = view === "summary" ? new Map<string, string>() : await this.folderNames(rows);
    return rows.map((r) => this.viewWith(r, view, headers, atts.get(r.id) ?? [], folders));
  }

  /** Names of the IMAP mailboxes the rows are filed in (rows without one are in INBOX). */
  private async folderNames(rows: MessageRow[]): Promise<Map<string, string>> {
    const ids = [...new Set(rows.map((r) => r.mailbox_id).filter((v): v is string => !!v))];
    return ids.length ? this.ctx.storage.imapFolders.namesOf(ids) : new Map();
  }

  /**
   * One message in a view (attachments are read for the full and agent views). With a pattern,
   * `codes` holds the pattern's matches instead of the extracted codes.
   */
  async view(r: MessageRow, view: MessageView, headersMode: HeadersMode, pattern: CompiledPattern | null = null) {
    const codes = pattern ? await this.codesMatching(r, pattern) : null;
    const atts = view === "summary" ? [] : ((await this.attachmentsOf([r.id])).get(r.id) ?? []);
    const shaped = this.viewWith(r, view, headersMode, atts, view === "summary" ? new Map() : await this.folderNames([r]));
    if (codes) shaped.codes = codes;
    return shaped;
  }

  private viewWith(r: MessageRow, view: MessageView, headersMode: HeadersMode, attachments: AttachmentRow[], folders: Map<string, string>) {
    // [{url, text}]; rows stored before links carried their anchor text read with text "".
    const links = readLinks(r.links);
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
    // The IMAP mailbox (docs/imap.md, "Mailboxes"): SMTP and imports land in INBOX. Not in the summary
    // view, which stays the contract's fields; the list routes filter by it (folder=).
    const folder = r.mailbox_id ? (folders.get(r.mailbox_id) ?? "INBOX") : "INBOX";
    const atts = attachments.map((a) => this.attachmentMeta(a));
    if (view === "full") {
      return {
        ...base,
        folder,
        to: JSON.parse(r.to_json),
        cc: JSON.parse(r.cc_json),
        text: r.text_body,
        links,
        attachments: atts,
        message_id: r.message_id_header,
        sent_at: r.sent_at,
        // The SMTP envelope (API.md): how the message reached this inbox, e.g. a +tag or an address only the catch-all took.
        envelope: { mail_from: r.envelope_from, rcpt_to: recipientsOf(r.envelope_to) },
        parse_error: r.parse_error,
      };
    }
    // agent: whatever the sender wrote sits inside the untrusted envelope, marked with a nonce
    // an attacker cannot predict, so "ignore previous instructions" in a body is data, not a prompt.
    const text = r.text_body ?? (r.html_body ? htmlToText(r.html_body).trim() : "");
    return {
      ...base,
      folder,
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
    const m = await this.get(projectId, id);
    const bytes = await this.ctx.storage.blobs.get(m.blob_key);
    if (!bytes) throw notFound("raw message");
    return bytes;
  }

  /**
   * The raw bytes as a stream of the blob store's reads (sent chunked: Bun drops a Content-Length
   * on a body that is not all there yet): a download of a 24 MB
   * message holds one read (1 MiB on PostgreSQL, a file read on SQLite) in memory, not the message.
   */
  async rawStream(projectId: string, id: string): Promise<{ stream: Readable }> {
    const m = await this.get(projectId, id);
    const stream = await this.ctx.storage.blobs.stream(m.blob_key);
    if (!stream) throw notFound("raw message");
    return { stream };
  }

  async html(projectId: string, id: string, remote: "strip" | "allow") {
    const m = await this.get(projectId, id);
    return sanitizeHtml(m.html_body ?? "", { remote });
  }

  async attachment(projectId: string, messageId: string, attachmentId: string): Promise<AttachmentRow> {
    await this.get(projectId, messageId);
    const a = await this.ctx.storage.attachments.byId(messageId, attachmentId);
    if (!a) throw notFound("attachment");
    return a;
  }

  async attachmentBytes(a: AttachmentRow): Promise<Uint8Array> {
    const bytes = await this.ctx.storage.blobs.get(a.blob_key);
    if (!bytes) throw notFound("attachment content");
    return bytes;
  }

  /** An attachment's bytes as the blob store reads them (a large one is never whole in memory). */
  async attachmentStream(a: AttachmentRow): Promise<Readable> {
    const stream = await this.ctx.storage.blobs.stream(a.blob_key);
    if (!stream) throw notFound("attachment content");
    return stream;
  }

  async attachmentAgent(projectId: string, messageId: string, attachmentId: string) {
    const a = await this.attachment(projectId, messageId, attachmentId);
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

  // -- Flags: the one place they change, whichever channel asks --------------------------------
  // REST (PATCH read, mark-read up to an id), IMAP (\Seen, \Flagged, \Deleted by STORE or an
  // implicit \Seen on FETCH) and POP3 (retrieved messages at QUIT) all write through setFlags, and
  // every message whose flags changed is announced on the bus (IDLE sessions, the web UI).

  /**
   * Writes flag changes to messages of one inbox (absent flags keep their value) and publishes
   * message.flags for each message that actually changed. `publish` lets an IMAP session announce
   * its own changes without hearing them back. Returns the ids that changed.
   */
  async setFlags(
    projectId: string,
    inboxId: string,
    changes: FlagChange[],
    publish: (events: BusEvent[]) => void = (events) => events.forEach((e) => this.ctx.bus.publish(e)),
  ): Promise<string[]> {
    if (changes.length === 0) return [];
    const changed = await this.ctx.storage.transaction((tx) => tx.messages.setFlags(inboxId, changes));
    if (changed.length) publish(changed.map((messageId) => ({ type: "message.flags", projectId, inboxId, messageId })));
    return changed;
  }

  /** Sets one message's read flag (REST PATCH, POP3 retrieval); 404 when it is not the project's. */
  async setRead(projectId: string, id: string, read: boolean): Promise<MessageRow> {
    const row = await this.get(projectId, id);
    if (Boolean(row.read) === read) return row;
    await this.setFlags(projectId, row.inbox_id, [{ id, read }]);
    return this.get(projectId, id);
  }

  /** Marks every message of the inbox up to and including lastId read; returns the ids changed. */
  async markReadUpTo(projectId: string, inboxId: string, lastId: string): Promise<string[]> {
    const ids = await this.ctx.storage.messages.unreadIdsUpTo(inboxId, lastId);
    return this.setFlags(
      projectId,
      inboxId,
      ids.map((id) => ({ id, read: true })),
    );
  }
}
