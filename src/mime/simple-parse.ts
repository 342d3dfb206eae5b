// A fast path beside mailparser for the commonest messages: one text/plain or text/html body, or a
// multipart/alternative of such bodies (what applications and ESPs send). mailparser's stream
// machinery (mailsplit's line-by-line splitter, a Transform per decoding stage, a setImmediate per
// step) costs ~200 µs for a 10 KB message; reading the same fields straight from the bytes costs a
// fraction of that (docs/benchmarks.md). Every rule below
// mirrors what mailparser 3.14 / mailsplit 5.4 do for such a message, calling the same libmime and
// mailparser functions where they are exported; anything this file is not sure of answers null and
// the message goes through mailparser. test/mime/simple-parse.test.ts proves both paths agree.
import libmime from "libmime";
import { decode as decodeCharset } from "libmime/lib/charset";
import { parseAddressHeader, parseOtpToken, type AddressObject } from "mailparser";
import { decodeWords } from "./headers";

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
  // mailsplit's .replace(/[\r\n]+$/, ""), without its quadratic retries over a long run of CRs.
  let end = block.length;
  while (end > 0 && (block.charCodeAt(end - 1) === 0x0d || block.charCodeAt(end - 1) === 0x0a)) end--;
  const raw = block.slice(0, end).split(/\r?\n/);
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

/** libqp's decode, the same bytes out (its Decoder collects the whole body first). */
function decodeQuotedPrintable(body: Buffer): Buffer {
  const str = body
    .toString("binary")
    // libqp's /[\t ]+$/gm, made linear: it retried from every blank of a long run not at a line
    // end (200 KB of spaces: a minute). A run is now only tried from the character before it.
    .replace(/(^|[^\t ])[\t ]+$/gm, "$1")
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

interface ContentType {
  type: string;
  charset: string;
  boundary: string;
}

/**
 * A Content-Type value the fast path takes: text/plain or text/html with charset/format/delsp, or
 * multipart/alternative with a boundary (and charset); null for anything else. An empty or absent
 * one is text/plain, as mailsplit reads it.
 */
function readContentType(value: string | null): ContentType | null {
  const out: ContentType = { type: "text/plain", charset: "", boundary: "" };
  if (!value) return out;
  const m = CONTENT_TYPE.exec(value);
  if (!m) return null;
  out.type = (m[1] as string).toLowerCase();
  const multipart = out.type === "multipart/alternative";
  if (!multipart && out.type !== "text/plain" && out.type !== "text/html") return null;
  const seen = new Set<string>();
  for (const p of (m[2] as string).matchAll(PARAM)) {
    const name = (p[1] as string).toLowerCase();
    const v = p[2] ?? p[3] ?? "";
    if (seen.has(name)) return null;
    seen.add(name);
    if (name === "charset") out.charset = v;
    // A boundary on a text part still splits it for mailsplit: left to it.
    else if (name === "boundary" && multipart) out.boundary = v;
    // format=flowed is decoded by mailsplit's own libmime copy, whose rules differ from ours.
    else if (name === "format" && !multipart && v.toLowerCase().trim() !== "flowed") continue;
    else if (name === "delsp" && !multipart) continue;
    else return null;
  }
  if (multipart && !out.boundary) return null;
  if (out.charset && BYTE_ORDER_CHARSET.test(out.charset.trim())) return null;
  return out;
}

/** A text body as mailparser delivers it: transfer-decoded, charset-decoded, LF line endings; null: not sure. */
function decodeBody(raw: Buffer, cte: string, charset: string): string | null {
  let body = raw;
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
  return content.replace(/\r?\n/g, "\n");
}

/** One part of a multipart/alternative: its type and decoded text; null when it is not a plain text part. */
function readPart(head: Buffer, body: Buffer): { type: string; content: string } | null {
  const lines = headerLines(head.toString("binary"));
  if (!lines) return null;
  let contentType: string | null = null;
  let encoding: string | null = null;
  for (const { key, line } of lines) {
    if (key === "content-type") contentType ??= structuralValueOf(line);
    else if (key === "content-transfer-encoding") encoding ??= structuralValueOf(line);
    else if (key === "content-disposition") return null;
  }
  const ct = readContentType(contentType);
  if (!ct || ct.type === "multipart/alternative") return null;
  const content = decodeBody(body, (encoding ?? "").toLowerCase().trim(), ct.charset);
  return content === null ? null : { type: ct.type, content };
}

const MAX_PARTS = 16;

/**
 * mailsplit's MessageSplitter.checkBoundary for one line: 1 / 2 a delimiter / close delimiter of
 * the boundary, 0 not one. A line may start with a line ending; after the boundary only "--"
 * and a line ending may follow (no transport padding), or the end of input.
 */
function boundaryLine(b: Buffer, ls: number, le: number, boundary: Buffer): 0 | 1 | 2 {
  const len = le - ls;
  let sp = 0;
  if (len >= 1 && (b[ls] === 0x0d || b[ls] === 0x0a)) {
    sp++;
    if (len >= 2 && b[ls] === 0x0d && b[ls + 1] === 0x0a) sp++;
  }
  if (len < 4 || b[ls + sp] !== 0x2d || b[ls + sp + 1] !== 0x2d) return 0;
  if (len < boundary.length + 3 + sp || len > boundary.length + 6 + sp) return 0;
  for (let i = 0; i < boundary.length; i++) if (b[ls + sp + 2 + i] !== boundary[i]) return 0;
  let pos = 0;
  for (let i = boundary.length + 2 + sp; i < len; i++) {
    const c = b[ls + i];
    if (pos === 0 && (c === 0x0d || c === 0x0a)) return 1;
    if ((pos === 0 || pos === 1) && c !== 0x2d) return 0;
    if (pos === 2 && c !== 0x0d && c !== 0x0a) return 0;
    if (pos === 3 && c !== 0x0a) return 0;
    pos++;
  }
  return 2;
}

/**
 * The parts of a multipart/alternative body as mailsplit cuts them: preamble and epilogue
 * dropped, a part's header up to its first empty line, its body up to the next delimiter line
 * less the line ending before it. Null for shapes not worth mirroring (a part with no end to its
 * header, a last line that starts with a CR, no parts, too many).
 */
function splitAlternative(b: Buffer, boundary: Buffer): Array<{ head: Buffer; body: Buffer }> | null {
  const parts: Array<{ head: Buffer; body: Buffer }> = [];
  const PRE = 0;
  const HEAD = 1;
  const BODY = 2;
  let state = PRE;
  let headStart = 0;
  let head: Buffer = b.subarray(0, 0);
  let bodyStart = 0;
  const close = (end: number, sibling: boolean) => {
    let e = end;
    if (e > bodyStart && b[e - 1] === 0x0a) {
      e--;
      if (e > bodyStart && b[e - 1] === 0x0d) e--;
    }
    // mailsplit quirk: before a sibling delimiter, a body that is one bare line ending and
    // trims to nothing keeps its line ending (the group is pushed with its first line's value).
    if (e === bodyStart && sibling) e = end;
    parts.push({ head, body: b.subarray(bodyStart, e) });
  };
  let ls = 0;
  while (ls < b.length) {
    const lf = b.indexOf(0x0a, ls);
    const le = lf < 0 ? b.length : lf + 1;
    // mailsplit checks an unterminated last line with the trimmed line ending in front of it.
    if (lf < 0 && state === BODY && (b[ls] === 0x0d || b[ls] === 0x0a)) return null;
    const delimiter = boundaryLine(b, ls, le, boundary);
    if (state === PRE) {
      if (delimiter === 1) {
        state = HEAD;
        headStart = le;
      }
    } else if (state === HEAD) {
      if (delimiter) return null;
      if (le - ls === 1 || (le - ls === 2 && b[ls] === 0x0d && b[ls + 1] === 0x0a)) {
        head = b.subarray(headStart, ls);
        state = BODY;
        bodyStart = le;
      } else if (le - headStart > MAX_SIMPLE_HEADER_BYTES || lf < 0) {
        return null;
      }
    } else {
      if (delimiter) {
        close(ls, delimiter === 1);
        if (parts.length > MAX_PARTS) return null;
        if (delimiter === 2) return parts;
        state = HEAD;
        headStart = le;
      }
    }
    ls = le;
  }
  if (state === HEAD) return null;
  if (state === BODY) parts.push({ head, body: b.subarray(bodyStart) });
  return parts.length ? parts : null;
}

/**
 * The message as mailparser would read it, when it is a single text/plain or text/html part, or a
 * multipart/alternative of them, with identity, quoted-printable or base64 transfer encodings; null
 * for anything else (other multiparts, attachments, format=flowed, unusual headers), which parse.ts
 * hands to mailparser.
 */
export function parseSimple(raw: Uint8Array): SimpleMail | null {
  const split = splitHead(raw);
  if (!split) return null;
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const lines = headerLines(bytes.toString("binary", 0, split.headEnd));
  if (!lines) return null;
  // The type decides before any header is decoded: mail declined here costs only the split.
  const typeLine = lines.find((l) => l.key === "content-type");
  const root = readContentType(typeLine ? structuralValueOf(typeLine.line) : null);
  if (!root) return null;

  let encoding: string | null = null;
  const otpValues: string[] = [];
  const mail: SimpleMail = { attachments: [] };
  const to: AddressObject[] = [];
  const cc: AddressObject[] = [];
  let date: string | null = null;
  for (const { key, line } of lines) {
    if (/^otp-token:/i.test(line)) otpValues.push(line.slice(line.indexOf(":") + 1));
    switch (key) {
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

  const cte = (encoding ?? "").toLowerCase().trim();
  if (date !== null) {
    const parsed = new Date(date);
    // An unreadable Date gives no sentAt on either path (parse.ts): mailparser's "now" is dropped.
    if (!Number.isNaN(parsed.getTime())) mail.date = parsed;
  }
  if (to.length) mail.to = to.length === 1 ? to[0] : to;
  if (cc.length) mail.cc = cc.length === 1 ? cc[0] : cc;
  if (otpValues.length) {
    const otp = parseOtpToken(otpValues);
    if (otp) mail.otp = otp;
  }

  const body = bytes.subarray(split.bodyStart);
  if (root.type === "multipart/alternative") {
    // mailsplit splits on the boundary whatever the container's transfer encoding says; not sure.
    if (!IDENTITY_ENCODINGS.has(cte)) return null;
    const parts = splitAlternative(body, Buffer.from(root.boundary));
    if (!parts) return null;
    const texts: string[] = [];
    const htmls: string[] = [];
    for (const part of parts) {
      const read = readPart(part.head, part.body);
      if (!read) return null;
      // mailparser's getTextContent in an alternative: each non-empty part to its list.
      if (read.content) (read.type === "text/plain" ? texts : htmls).push(read.content);
    }
    if (texts.length) mail.text = texts.join("\n");
    if (htmls.length) mail.html = htmls.join("<br/>\n");
    return mail;
  }
  if (root.boundary) return null;
  const content = decodeBody(body, cte, root.charset);
  if (content === null) return null;
  if (content) {
    if (root.type === "text/plain") mail.text = content;
    else {
      // mailparser's text for an HTML-only message is "" with skipHtmlToText.
      mail.text = "";
      mail.html = content;
    }
  }
  return mail;
}
