// Import and compose (POST /v1/inboxes/{id}/messages; docs/import.md). Both end in
// IngestService.deliver, the one place mail is stored, so an imported or composed message is
// parsed, indexed, counted against the quotas and announced exactly like one received over SMTP.
//
// - import: the caller's bytes (message/rfc822) are stored as they are; /raw returns them unchanged.
// - compose: a message is built from JSON with nodemailer's MailComposer (real MIME: encoded
//   headers, multipart/alternative for text + html, base64 attachments), then stored the same way.
//
// The envelope of both: mail_from is the address of the From header (null without one), rcpt_to
// the inbox's address. The size limit is INBOXD_SMTP_MAX_BYTES, as for SMTP.
import MailComposer from "nodemailer/lib/mail-composer";
import addressparser from "nodemailer/lib/addressparser";
import type { AppContext } from "../runtime/context";
import { DomainError, validation } from "../lib/errors";
import type { ParsedMessage } from "../mime/types";
import type { InboxService } from "./inboxes";
import { InboxGone, type IngestService, QuotaExceeded } from "./ingest";

export interface ComposeAttachment {
  filename: string;
  content_type?: string;
  content_base64: string;
}

export interface ComposeInput {
  from?: unknown;
  to?: unknown;
  subject?: unknown;
  text?: unknown;
  html?: unknown;
  attachments?: unknown;
}

/** Most attachments one composed message may carry. */
export const MAX_COMPOSE_ATTACHMENTS = 50;
const MAX_SUBJECT = 998;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const CONTENT_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/;

export class ImportService {
  constructor(
    private readonly ctx: AppContext,
    private readonly inboxes: InboxService,
    private readonly ingest: IngestService,
  ) {}

  /** The size limit of an imported or composed message (bytes). */
  get maxBytes(): number {
    return this.ctx.config.smtpMaxBytes;
  }

  /**
   * Stores raw RFC 5322 bytes, exactly, as a message received by the inbox; returns the new message id. The
   * envelope is the From header's address and the inbox's address, unless one is given (a dump restored).
   */
  async importRaw(
    projectId: string,
    inboxId: string,
    raw: Uint8Array,
    envelope: { mailFrom: string | null; rcptTo: string[] } | null = null,
  ): Promise<string> {
    const inbox = await this.inboxes.get(projectId, inboxId);
    if (raw.byteLength === 0) throw validation("the message is empty: send RFC 5322 bytes with Content-Type: message/rfc822");
    this.checkSize(raw.byteLength);
    if (inbox.status !== "active" || (inbox.expiresAt !== null && inbox.expiresAt <= new Date().toISOString())) {
      throw new DomainError("conflict", "inbox_not_active", "the inbox is not active (expired or being removed)");
    }
    // The same in-flight budget as SMTP: 503 with Retry-After where SMTP says 452 4.3.1.
    if (!this.ingest.budget.tryReserve(raw.byteLength)) throw busy();
    try {
      const r = await this.ingest.deliver(raw, envelope ? envelope.mailFrom : fromHeader, [
        { inbox, addresses: envelope?.rcptTo.length ? envelope.rcptTo : [inbox.address] },
      ]);
      const id = r.messageIds[0];
      if (!id) throw new InboxGone(inbox.address);
      return id;
    } catch (e) {
      if (e instanceof QuotaExceeded) {
        const q = e.refusal;
        throw new DomainError(
          "invalid",
          "storage_quota_exceeded",
          `the ${q.kind} storage quota has no room for this message (${q.usedBytes} of ${q.quotaBytes} bytes used, message ${q.messageBytes} bytes)`,
          { quota: q.kind, used_bytes: q.usedBytes, quota_bytes: q.quotaBytes, message_bytes: q.messageBytes },
        );
      }
      if (e instanceof InboxGone) throw new DomainError("not_found", "not_found", "inbox not found");
      throw e;
    } finally {
      this.ingest.budget.release(raw.byteLength);
    }
  }

  /** Refuses an import whose declared size the in-flight budget cannot take now (before its body is read). */
  checkBudget(bytes: number): void {
    if (bytes > this.ingest.budget.remaining) throw busy();
  }

  /** Builds a MIME message from JSON, then stores it like an import. */
  async compose(projectId: string, inboxId: string, input: ComposeInput): Promise<string> {
    const inbox = await this.inboxes.get(projectId, inboxId);
    const raw = await buildMime(input, inbox.address, this.maxBytes);
    return this.importRaw(projectId, inboxId, raw);
  }

  checkSize(bytes: number): void {
    if (bytes > this.maxBytes) {
      throw new DomainError("too_large", "payload_too_large", `the message is larger than the limit of ${this.maxBytes} bytes`, {
        limit_bytes: this.maxBytes,
        size_bytes: bytes,
      });
    }
  }
}

/** Too much mail in flight (INBOXD_INFLIGHT_BYTES): a temporary refusal, like SMTP's 452 4.3.1. */
function busy(): DomainError {
  return new DomainError(
    "unavailable",
    "server_busy",
    "too much mail is being received right now; try again shortly",
    {},
    { "Retry-After": "5" },
  );
}

/** The envelope sender of an import: the From header's address, else null. */
function fromHeader(p: ParsedMessage): string | null {
  return p.from.email ? p.from.email : null;
}

type FieldErrors = { path: string; message: string }[];

function oneLine(v: unknown, path: string, errors: FieldErrors, opts: { required: boolean; max: number }): string | undefined {
  if (v === undefined || v === null) {
    if (opts.required) errors.push({ path, message: "is required" });
    return undefined;
  }
  if (typeof v !== "string") {
    errors.push({ path, message: "must be a string" });
    return undefined;
  }
  if (/[\r\n\0]/.test(v)) errors.push({ path, message: "must be one line (no CR, LF or NUL)" });
  if (v.length > opts.max) errors.push({ path, message: `must be at most ${opts.max} characters` });
  if (opts.required && v.trim() === "") errors.push({ path, message: "must not be empty" });
  return v;
}

/** Mailboxes of an address list; an entry without an address is an error. */
function addresses(v: string, path: string, errors: FieldErrors): string[] {
  const list = addressparser(v, { flatten: true }) as { name: string; address: string }[];
  const bad = list.length === 0 || list.some((a) => !/^[^@\s]+@[^@\s]+$/.test(a.address));
  if (bad) errors.push({ path, message: "must be an email address, optionally with a name: Name <user@example.com>" });
  return list.map((a) => a.address);
}

/** Validates the compose body (422 validation_error listing every problem) and builds the MIME bytes. */
export async function buildMime(input: ComposeInput, inboxAddress: string, maxBytes: number): Promise<Uint8Array> {
  const errors: FieldErrors = [];
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw validation("the body must be a JSON object {from, to?, subject, text?, html?, attachments?}");
  }
  for (const k of Object.keys(input)) {
    if (!["from", "to", "subject", "text", "html", "attachments"].includes(k)) errors.push({ path: `/${k}`, message: "unknown field" });
  }
  const from = oneLine(input.from, "/from", errors, { required: true, max: 998 });
  if (from !== undefined && from.trim() !== "") addresses(from, "/from", errors);
  let to: string | string[] = inboxAddress;
  if (input.to !== undefined) {
    const list = typeof input.to === "string" ? [input.to] : Array.isArray(input.to) ? input.to : null;
    if (!list || list.length === 0 || list.length > 50)
      errors.push({ path: "/to", message: "must be an address or a list of 1..50 addresses" });
    else {
      list.forEach((a, i) => {
        const s = oneLine(a, `/to/${i}`, errors, { required: true, max: 998 });
        if (s !== undefined && s.trim() !== "") addresses(s, `/to/${i}`, errors);
      });
      to = list as string[];
    }
  }
  const subject = oneLine(input.subject, "/subject", errors, { required: false, max: MAX_SUBJECT });
  if (input.subject === undefined || input.subject === null) errors.push({ path: "/subject", message: "is required (may be empty)" });
  for (const k of ["text", "html"] as const) {
    if (input[k] !== undefined && input[k] !== null && typeof input[k] !== "string")
      errors.push({ path: `/${k}`, message: "must be a string" });
  }
  const text = typeof input.text === "string" ? input.text : undefined;
  const html = typeof input.html === "string" ? input.html : undefined;
  if (text === undefined && html === undefined) errors.push({ path: "/text", message: "give text, html or both" });
  const attachments: { filename: string; contentType: string; content: Buffer }[] = [];
  if (input.attachments !== undefined) {
    if (!Array.isArray(input.attachments)) errors.push({ path: "/attachments", message: "must be an array" });
    else if (input.attachments.length > MAX_COMPOSE_ATTACHMENTS) {
      errors.push({ path: "/attachments", message: `at most ${MAX_COMPOSE_ATTACHMENTS} attachments` });
    } else {
      input.attachments.forEach((a: unknown, i) => {
        const p = `/attachments/${i}`;
        if (a === null || typeof a !== "object" || Array.isArray(a)) return void errors.push({ path: p, message: "must be an object" });
        const att = a as Record<string, unknown>;
        for (const k of Object.keys(att)) {
          if (!["filename", "content_type", "content_base64"].includes(k)) errors.push({ path: `${p}/${k}`, message: "unknown field" });
        }
        const filename = oneLine(att.filename, `${p}/filename`, errors, { required: true, max: 255 });
        const ct = att.content_type === undefined ? "application/octet-stream" : att.content_type;
        if (typeof ct !== "string" || !CONTENT_TYPE.test(ct)) {
          errors.push({ path: `${p}/content_type`, message: "must be a media type such as application/pdf" });
        }
        const b64 = att.content_base64;
        if (typeof b64 !== "string") return void errors.push({ path: `${p}/content_base64`, message: "is required (base64)" });
        const compact = b64.replace(/\s+/g, "");
        if (!BASE64.test(compact)) return void errors.push({ path: `${p}/content_base64`, message: "is not valid base64" });
        if (filename !== undefined && typeof ct === "string") {
          attachments.push({ filename, contentType: ct.toLowerCase(), content: Buffer.from(compact, "base64") });
        }
      });
    }
  }
  if (errors.length) {
    throw validation(`invalid body: ${errors[0]!.path} ${errors[0]!.message}`, { in: "body", errors: errors.slice(0, 20) });
  }
  // Only content we were handed: no file or URL access, whatever the input says.
  const composer = new MailComposer({
    from,
    to,
    subject: subject ?? "",
    text,
    html,
    attachments: attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
    disableFileAccess: true,
    disableUrlAccess: true,
    newline: "\r\n",
  } as any);
  const built: Buffer = await composer.compile().build();
  if (built.byteLength > maxBytes) {
    throw new DomainError("too_large", "payload_too_large", `the composed message is larger than the limit of ${maxBytes} bytes`, {
      limit_bytes: maxBytes,
      size_bytes: built.byteLength,
    });
  }
  return new Uint8Array(built.buffer, built.byteOffset, built.byteLength);
}
