// A fast path beside mailparser for the commonest message: one text/plain or text/html body, no
// MIME structure. mailparser's stream machinery (mailsplit's line-by-line splitter, a Transform per
// decoding stage, a setImmediate per step) costs ~200 µs for a 10 KB message; reading the same
// fields straight from the bytes costs a fraction of that (docs/benchmarks.md). Every rule below
// mirrors what mailparser 3.14 / mailsplit 5.4 do for such a message, calling the same libmime and
// mailparser functions where they are exported; anything this file is not sure of answers null and
// the message goes through mailparser. test/mime/simple-parse.test.ts proves both paths agree.
import libmime from "libmime";
import { decode as decodeCharset } from "libmime/lib/charset";
import { parseAddressHeader, parseOtpToken, type AddressObject } from "mailparser";

/** The fields of mailparser's ParsedMail that parse.ts reads, as the fast path fills them. */
export interface SimpleMail {
  subject?: string;
  from?: AddressObject;
  to?: AddressObject | AddressObject[];
  cc?: AddressObject | AddressObject[];
  text?: string;
  html?: string;
  messageId?: string;
  date?: Date;
  attachments: [];
  otp?: { code: string; origin: string };
}

/** Header sections larger than this go through mailparser (its own limit is 1 MiB, an error). */
const MAX_SIMPLE_HEADER_BYTES = 64 * 1024;

/** The only Content-Type shape taken here: type/subtype and plain `name=token` or `name="quoted"`
 * parameters; no comments, RFC 2231, encoded words or escapes, where mailsplit's older libmime
 * and ours could read a value differently. */
const CONTENT_TYPE =
  /^([A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+)[ \t]*((?:;[ \t]*[A-Za-z0-9_.-]+=(?:"[^"\\\r\n]*"|[A-Za-z0-9!#$%&+.^_`|~-]+)[ \t]*)*);?[ \t]*$/;
const PARAM = /;[ \t]*([A-Za-z0-9_.-]+)=(?:"([^"]*)"|([^;\s"]+))/g;
/** Transfer encodings mailsplit decodes as they are (its default PassThrough). */
const IDENTITY_ENCODINGS = new Set(["", "7bit", "8bit", "binary"]);
/** Byte-order guessing in libmime's decode stream differs from a one-shot decode: mailparser's. */
const BYTE_ORDER_CHARSET = /^(?:utf-?(?:16|32)|ucs-?[24]|unicode)/i;

interface HeaderLine {
  key: string;
  line: string;
}

/** mailsplit's Headers._parseHeaders: unfolded logical lines with the key before the first colon. */
function headerLines(block: string): HeaderLine[] | null {
  const raw = block.replace(/[\r\n]+$/, "").split(/\r?\n/);
  const lines: HeaderLine[] = [];
  const keyOf = (line: string) => {
    const colon = line.indexOf(":");
    return colon < 0 ? "" : line.slice(0, colon).toLowerCase().trim();
  };
  for (let i = 0; i < raw.length; i++) {
    const line = raw[i] as string;
    const first = line.charAt(0);
    if (i > 0 && (first === " " || first === "\t")) {
      const entry = lines[lines.length - 1] as HeaderLine;
      entry.line += `\r\n${line}`;
      if (!entry.key) entry.key = keyOf(entry.line);
    } else {
      lines.push({ key: keyOf(line), line });
    }
  }
  // An mbox "From " or HTTP "POST " preamble is not a header for mailsplit: rare, left to it.
  const first = lines[0]?.line ?? "";
  if (/^From /i.test(first) || /^POST /i.test(first)) return null;
  return lines;
}

/** A header's value as mailparser's processHeaders reads it: unfolded, trimmed, 8-bit as UTF-8. */
function headerValueOf(line: string): string {
  const value = (libmime.decodeHeader(line).value || "").toString().trim();
  return Buffer.from(value, "binary").toString();
}

/** A header's value as mailsplit's Headers.getFirst reads it (for Content-Type and -Transfer-Encoding). */
function structuralValueOf(line: string): string {
  const utf8 = Buffer.from(line, "binary").toString("utf8");
  return (libmime.decodeHeader(utf8.includes("\uFFFD") ? line : utf8).value || "").toString().trim();
}

function decodeWords(value: string): string {
  try {
    return libmime.decodeWords(value);
  } catch {
    return value;
  }
}

/** mailparser's ensureMessageIDFormat. */
function messageIdFormat(value: string): string | undefined {
  if (!value.length) return undefined;
  return `${value.charAt(0) === "<" ? "" : "<"}${value}${value.charAt(value.length - 1) === ">" ? "" : ">"}`;
}

/** libbase64's Decoder for a body that arrives in one piece. Null for padding inside the data, where
 * mailsplit's chunking of long lines could split it differently from a one-shot decode. */
function decodeBase64(body: Buffer): Buffer | null {
  let b64 = body.toString("ascii");
  if (/[^a-zA-Z0-9+/=]/.test(b64)) b64 = b64.replace(/[^a-zA-Z0-9+/=]/g, "");
  const pad = b64.indexOf("=");
  if (pad >= 0 && /[a-zA-Z0-9+/]/.test(b64.slice(pad))) return null;
  return Buffer.from(b64, "base64");
}

/** libqp's decode, verbatim in behaviour (its Decoder collects the whole body first). */
function decodeQuotedPrintable(body: Buffer): Buffer {
  const str = body
    .toString("binary")
    .replace(/[\t ]+$/gm, "")
    .replace(/=(?:\r?\n|$)/g, "");
  const out = Buffer.alloc(str.length);
  let n = 0;
  for (let i = 0; i < str.length; i++) {
    const c = str.charCodeAt(i);
    if (c === 0x3d && i + 2 < str.length && isHex(str.charCodeAt(i + 1)) && isHex(str.charCodeAt(i + 2))) {
      out[n++] = Number.parseInt(str.slice(i + 1, i + 3), 16);
      i += 2;
      continue;
    }
    out[n++] = c;
  }
  return out.subarray(0, n);
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** Where the header section ends (mailsplit: the first line that is exactly LF or CRLF). */
function splitHead(raw: Uint8Array): { headEnd: number; bodyStart: number } | null {
  let start = 0;
  const limit = Math.min(raw.length, MAX_SIMPLE_HEADER_BYTES);
  while (start < limit) {
    const lf = raw.indexOf(0x0a, start);
    if (lf < 0 || lf >= MAX_SIMPLE_HEADER_BYTES) break;
    if (lf === start || (lf === start + 1 && raw[start] === 0x0d)) return { headEnd: start, bodyStart: lf + 1 };
    start = lf + 1;
  }
  // No blank line: mailsplit reads everything as header and the body is empty.
  return raw.length <= MAX_SIMPLE_HEADER_BYTES ? { headEnd: raw.length, bodyStart: raw.length } : null;
}

/**
 * The message as mailparser would read it, when it is a single text/plain or text/html part with
 * an identity, quoted-printable or base64 transfer encoding; null for anything else (multipart,
 * attachments, format=flowed, unusual headers), which parse.ts hands to mailparser.
 */
export function parseSimple(raw: Uint8Array): SimpleMail | null {
  const split = splitHead(raw);
  if (!split) return null;
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const lines = headerLines(bytes.toString("binary", 0, split.headEnd));
  if (!lines) return null;

  let contentType: string | null = null;
  let encoding: string | null = null;
  const otpValues: string[] = [];
  const mail: SimpleMail = { attachments: [] };
  const to: AddressObject[] = [];
  const cc: AddressObject[] = [];
  let date: string | null = null;
  for (const { key, line } of lines) {
    if (/^otp-token:/i.test(line)) otpValues.push(line.slice(line.indexOf(":") + 1));
    switch (key) {
      case "content-type":
        contentType ??= structuralValueOf(line);
        break;
      case "content-transfer-encoding":
        encoding ??= structuralValueOf(line);
        break;
      case "content-disposition":
        // An attachment, or a type guessed from its filename: mailparser's business.
        return null;
      case "subject":
        mail.subject ||= decodeWords(headerValueOf(line)) || undefined;
        break;
      case "message-id":
        mail.messageId ||= messageIdFormat(decodeWords(headerValueOf(line)));
        break;
      case "date":
        date ??= headerValueOf(line);
        break;
      case "from":
        mail.from ??= parseAddressHeader(headerValueOf(line));
        break;
      case "to":
        to.push(parseAddressHeader(headerValueOf(line)));
        break;
      case "cc":
        cc.push(parseAddressHeader(headerValueOf(line)));
        break;
    }
  }

  let type = "text/plain";
  let charset = "";
  if (contentType) {
    const m = CONTENT_TYPE.exec(contentType);
    if (!m) return null;
    type = (m[1] as string).toLowerCase();
    const seen = new Set<string>();
    for (const p of (m[2] as string).matchAll(PARAM)) {
      const name = (p[1] as string).toLowerCase();
      const value = p[2] ?? p[3] ?? "";
      if (seen.has(name)) return null;
      seen.add(name);
      if (name === "charset") charset = value;
      // format=flowed is decoded by mailsplit's own libmime copy, whose rules differ from ours.
      else if (name === "format" && value.toLowerCase().trim() === "flowed") return null;
      // A boundary on a text part still splits it for mailsplit; other parameters: not sure.
      else if (name !== "format" && name !== "delsp") return null;
    }
  }
  if (type !== "text/plain" && type !== "text/html") return null;
  if (charset && BYTE_ORDER_CHARSET.test(charset.trim())) return null;

  if (date !== null) {
    const parsed = new Date(date);
    // mailparser substitutes the parse time for an unreadable Date: left to it.
    if (Number.isNaN(parsed.getTime())) return null;
    mail.date = parsed;
  }
  if (to.length) mail.to = to.length === 1 ? to[0] : to;
  if (cc.length) mail.cc = cc.length === 1 ? cc[0] : cc;
  if (otpValues.length) {
    const otp = parseOtpToken(otpValues);
    if (otp) mail.otp = otp;
  }

  const cte = (encoding ?? "").toLowerCase().trim();
  let body: Buffer = bytes.subarray(split.bodyStart);
  if (cte === "base64") {
    const decoded = decodeBase64(body);
    if (!decoded) return null;
    body = decoded;
  } else if (cte === "quoted-printable") {
    body = decodeQuotedPrintable(body);
  } else if (!IDENTITY_ENCODINGS.has(cte)) {
    return null;
  }

  let content: string;
  if (["ascii", "usascii", "utf8"].includes((charset || "utf-8").toLowerCase().replace(/[^a-z0-9]+/g, ""))) {
    content = body.toString();
  } else {
    // libmime's decode stream yields decode() of the whole body as UTF-8 bytes; the round trip
    // turns lone surrogates into U+FFFD exactly as that stream does.
    content = Buffer.from(decodeCharset(body, charset), "utf-8").toString();
  }
  content = content.replace(/\r?\n/g, "\n");
  if (content) {
    if (type === "text/plain") mail.text = content;
    else {
      // mailparser's text for an HTML-only message is "" with skipHtmlToText.
      mail.text = "";
      mail.html = content;
    }
  }
  return mail;
}
