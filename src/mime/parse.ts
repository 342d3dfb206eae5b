// Raw RFC 5322 bytes to ParsedMessage. Never throws: whatever mailparser cannot read is
// reported in parseError and filled from our own header reader, so the message still shows.
import { createHash } from "node:crypto";
import { parseAddressHeader, simpleParser, type AddressObject, type EmailAddress, type ParsedMail } from "mailparser";
import { cutBase64Bodies, restoreBase64Bodies } from "./base64-bodies";
import { extractCodes } from "./codes";
import { htmlToText } from "./html-text";
import { headerEnd, headerValue, MAX_HEADER_BYTES, readHeaders } from "./headers";
import { extractLinks } from "./links";
import { normalizeContentType, servedContentType } from "./served-type";
import { parseSimple, type SimpleMail } from "./simple-parse";
import type { Address, ParsedAttachment, ParsedMessage } from "./types";

export { projectHeaders, PROJECTED_HEADERS } from "./headers";

export const PREVIEW_CHARS = 200;
/** A parse that takes longer than this is abandoned (the raw message is kept regardless). */
const PARSE_TIMEOUT_MS = 30_000;
/** Body text shown for a message mailparser could not read at all. */
const FALLBACK_BODY_BYTES = 1024 * 1024;

export interface ParseOptions {
  /** Total byte budget for the full header list (default 256 KiB). */
  maxHeaderBytes?: number;
}

const WHITESPACE = /\s/u;

/** Whitespace-collapsed text, at most 200 characters (code points). */
export function makePreview(text: string | null): string {
  if (!text) return "";
  // One pass that stops at 200 code points: bodies can be megabytes.
  let out = "";
  let count = 0;
  let space = false;
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    // ASCII answered without the regex (most of every body); \s/u decides the rest.
    if (c < 128 ? c === 32 || (c >= 9 && c <= 13) : WHITESPACE.test(ch)) {
      space = count > 0;
      continue;
    }
    if (space) {
      if (count + 1 >= PREVIEW_CHARS) break;
      out += " ";
      count++;
      space = false;
    }
    out += ch;
    if (++count >= PREVIEW_CHARS) break;
  }
  return out;
}

function flatten(list: EmailAddress[] | undefined, into: Address[] = []): Address[] {
  for (const a of list ?? []) {
    if (a.group) flatten(a.group, into);
    else if (a.address || a.name) into.push({ email: a.address ?? "", name: a.name ?? "" });
  }
  return into;
}

function addresses(value: AddressObject | AddressObject[] | undefined): Address[] {
  if (!value) return [];
  return (Array.isArray(value) ? value : [value]).flatMap((v) => flatten(v.value));
}

function addressesFromHeader(value: string | null): Address[] {
  if (!value) return [];
  try {
    return flatten(parseAddressHeader(value, { flatten: true }).value);
  } catch {
    return [];
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`parse timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** What the rest of the parse reads: mailparser's result, or the fast path's same fields. */
type MailFields = ParsedMail | SimpleMail;

/** A single text part read directly; null for anything else, and never a throw. */
function fastParse(raw: Uint8Array): SimpleMail | null {
  try {
    return parseSimple(raw);
  } catch {
    return null;
  }
}

function attachmentsOf(mail: MailFields): ParsedAttachment[] {
  return (mail.attachments ?? []).map((att, position) => {
    const header = att.headers?.get("content-type") as { value?: string } | string | undefined;
    const declaredRaw = typeof header === "string" ? header : header?.value;
    // Without a Content-Type header MIME says text/plain; mailparser's guess is the fallback.
    const declared = normalizeContentType(declaredRaw) || normalizeContentType(att.contentType) || "application/octet-stream";
    const content = new Uint8Array(att.content.buffer, att.content.byteOffset, att.content.byteLength);
    return {
      position,
      filename: att.filename ?? "",
      declaredContentType: declared,
      servedContentType: servedContentType(declared),
      disposition: att.contentDisposition === "inline" ? "inline" : "attachment",
      contentId: att.cid ?? null,
      content,
      size: content.byteLength,
      sha256: sha256(content),
    } satisfies ParsedAttachment;
  });
}

function mailparse(raw: Uint8Array): Promise<ParsedMail> {
  return withTimeout(
    simpleParser(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), {
      // We derive text from HTML ourselves (preview, codes) and never want generated HTML:
      // has_text/has_html must mean the sender sent that part.
      skipHtmlToText: true,
      skipTextToHtml: true,
      skipImageLinks: true,
      keepCidLinks: true,
    }),
    PARSE_TIMEOUT_MS,
  );
}

/** mailparse with long base64 bodies decoded natively when that gives the same result (mime/base64-bodies.ts). */
async function mailparseCut(raw: Uint8Array, how: MailparserRun): Promise<ParsedMail> {
  const skeleton = cutBase64Bodies(raw, headerEnd(raw).bodyStart);
  if (skeleton) {
    const mail = await mailparse(skeleton.bytes).catch(() => null);
    if (mail && restoreBase64Bodies(mail.attachments, skeleton)) {
      how.cut = skeleton.runs.length;
      return mail;
    }
  }
  return mailparse(raw);
}

/** Whether a Date header reads as a date the way mailparser reads it (`new Date(value)`). */
function readableDate(value: string): boolean {
  return !Number.isNaN(new Date(value.trim()).getTime());
}

export async function parseMessage(raw: Uint8Array, opts?: ParseOptions): Promise<ParsedMessage> {
  return parseIfSimple(raw, opts) ?? parse(raw, opts);
}

/**
 * parseMessage without the fast path: every message through mailparser. For the parse pool once
 * parseIfSimple has declined a message, and for the tests that prove both paths give the same
 * ParsedMessage (test/mime/simple-parse.test.ts) and benches.
 */
export function parseMessageWithMailparser(raw: Uint8Array, opts?: ParseOptions, how: MailparserRun = {}): Promise<ParsedMessage> {
  return parse(raw, opts, how);
}

/** How parse() ran mailparser, for the tests that compare the ways (test/mime/base64-bodies.test.ts). */
export interface MailparserRun {
  /** false: every base64 body through mailparser's decoder too (mime/base64-bodies.ts). */
  cutBase64?: boolean;
  /** Set by the parse: how many base64 bodies were decoded natively (0: mailparser read the whole message). */
  cut?: number;
}

/**
 * The fast path alone (mime/simple-parse.ts): the parsed message, or null when the message needs
 * mailparser. Synchronous and linear in the message's size.
 */
export function parseIfSimple(raw: Uint8Array, opts?: ParseOptions): ParsedMessage | null {
  const mail = fastParse(raw);
  if (!mail) return null;
  const { headers, truncated } = readHeaders(raw, opts?.maxHeaderBytes ?? MAX_HEADER_BYTES);
  return finish(raw, headers, truncated, mail, null);
}

/** Consecutive blanks or carriage returns from which mailparser's time grows with their square. */
const STALL_RUN = 2048;

/**
 * Whether mailparser may take seconds over these bytes, so that mail/parse-pool.ts parses them in a
 * worker even when small. Its known super-linear corners are runs of blanks and CRs: libqp's
 * /[\t ]+$/gm retries from every blank of a run inside a quoted-printable line (20,000 blanks:
 * 0.5 s, 60,000: 5 s) and mailsplit's /[\r\n]+$/ from every CR of a run in a header (60 KB: 3-4 s).
 * A run of 2,048 costs a few ms. ~12 µs per 10 KB, asked only of mail the fast path declined.
 */
export function mailparserMayStall(raw: Uint8Array): boolean {
  let run = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === 0x20 || c === 0x09 || c === 0x0d) {
      if (++run >= STALL_RUN) return true;
    } else run = 0;
  }
  return false;
}

/** Through mailparser (what the fast path declines, or everything: parseMessageWithMailparser). */
async function parse(raw: Uint8Array, opts: ParseOptions | undefined, how: MailparserRun = {}): Promise<ParsedMessage> {
  const { headers, truncated } = readHeaders(raw, opts?.maxHeaderBytes ?? MAX_HEADER_BYTES);
  let mail: MailFields | null = null;
  let parseError: string | null = null;
  how.cut = 0;
  try {
    mail = how.cutBase64 === false ? await mailparse(raw) : await mailparseCut(raw, how);
  } catch (err) {
    parseError = (err instanceof Error ? err.message : String(err)).slice(0, 500) || "unparseable message";
  }
  if (!mail && truncated && headers.length > 0) {
    // Oversized headers make mailparser give up on the whole message; our bounded copy of
    // them in front of the untouched body usually parses.
    const { bodyStart } = headerEnd(raw);
    const head = headers.map((h) => `${h.name}: ${h.value.replace(/[\r\n]/g, " ")}`).join("\r\n") + "\r\n\r\n";
    try {
      mail = await mailparse(new Uint8Array(Buffer.concat([Buffer.from(head, "utf8"), raw.subarray(bodyStart)])));
      parseError = null;
    } catch {
      // keep the first error
    }
  }
  return finish(raw, headers, truncated, mail, parseError);
}

/** The ParsedMessage from the fields read (null: none could be; our header reader fills in). */
function finish(
  raw: Uint8Array,
  headers: ReturnType<typeof readHeaders>["headers"],
  truncated: boolean,
  mail: MailFields | null,
  parseError: string | null,
): ParsedMessage {
  let subject: string;
  let from: Address;
  let to: Address[];
  let cc: Address[];
  let text: string | null;
  let html: string | null;
  let attachments: ParsedAttachment[] = [];
  let messageId: string | null;
  let sentAt: string | null = null;
  let otp: string | null = null;

  if (mail) {
    subject = mail.subject ?? headerValue(headers, "subject") ?? "";
    from = addresses(mail.from)[0] ?? addressesFromHeader(headerValue(headers, "from"))[0] ?? { email: "", name: "" };
    to = addresses(mail.to);
    cc = addresses(mail.cc);
    // An empty part counts as absent (mailparser also reports "" when there is no text part).
    text = typeof mail.text === "string" && mail.text !== "" ? mail.text : null;
    html = typeof mail.html === "string" && mail.html !== "" ? mail.html : null;
    messageId = mail.messageId ?? null;
    // mailparser dates an unreadable Date header "now" (the parse time): that is no sending time.
    const dateHeader = headerValue(headers, "date");
    if (mail.date instanceof Date && !Number.isNaN(mail.date.getTime()) && dateHeader !== null && readableDate(dateHeader)) {
      sentAt = mail.date.toISOString();
    }
    try {
      attachments = attachmentsOf(mail);
    } catch (err) {
      parseError = `attachments: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500);
    }
    otp = (mail as { otp?: { code?: string } }).otp?.code ?? null;
  } else {
    // Best effort from our own header reader; the body is shown as it was received.
    subject = headerValue(headers, "subject") ?? "";
    from = addressesFromHeader(headerValue(headers, "from"))[0] ?? { email: "", name: "" };
    to = addressesFromHeader(headerValue(headers, "to"));
    cc = addressesFromHeader(headerValue(headers, "cc"));
    const { bodyStart } = headerEnd(raw);
    const body = raw.subarray(bodyStart, bodyStart + FALLBACK_BODY_BYTES);
    text = body.length ? new TextDecoder("utf-8").decode(body) : null;
    html = null;
    messageId = headerValue(headers, "message-id")?.trim() || null;
    const date = new Date(headerValue(headers, "date") ?? "");
    if (!Number.isNaN(date.getTime())) sentAt = date.toISOString();
  }

  // The HTML's text only when there is no text part: converting it costs ~80 µs per template.
  const plain = text ?? (html ? htmlToText(html) : null);
  const codes = extractCodes(subject, text, html);
  if (otp && /^[\p{L}\p{N}-]{1,64}$/u.test(otp)) codes.splice(0, codes.length, otp, ...codes.filter((c) => c !== otp));

  const logicalSizeBytes =
    (text ? Buffer.byteLength(text) : 0) + (html ? Buffer.byteLength(html) : 0) + attachments.reduce((n, a) => n + a.content.byteLength, 0);

  return {
    from,
    to,
    cc,
    subject,
    preview: makePreview(plain),
    text,
    html,
    headers,
    headersTruncated: truncated,
    messageId,
    sentAt,
    links: extractLinks(text, html),
    codes,
    attachments,
    logicalSizeBytes,
    parseError,
  };
}
