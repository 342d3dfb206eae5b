// The agent representation of an attachment: metadata plus, for the four text types the
// contract names, the decoded text inside an "untrusted" envelope. Raw bytes never leave here.
import { randomBytes } from "node:crypto";
import { normalizeContentType } from "./served-type";

export const DEFAULT_AGENT_MAX_CHARS = 64 * 1024;

/** The only types whose text an agent may read (CONTRACT: Attachment, agent representation). */
export const AGENT_TEXT_TYPES = new Set(["text/plain", "text/csv", "text/calendar", "application/json"]);

/**
 * Used only when the sender declared no useful type (empty, application/octet-stream or a
 * generic binary type): the extension then decides which of the four types it is.
 */
const EXTENSION_TYPES: Record<string, string> = {
  txt: "text/plain",
  text: "text/plain",
  log: "text/plain",
  csv: "text/csv",
  ics: "text/calendar",
  ifb: "text/calendar",
  json: "application/json",
};
const GENERIC_TYPES = new Set(["", "application/octet-stream", "application/unknown", "binary/octet-stream"]);

export interface AgentAttachmentInput {
  id: string;
  messageId: string;
  filename: string;
  declaredContentType: string;
  servedContentType: string;
  sizeBytes: number;
  sha256: string;
}

export interface AgentAttachment {
  id: string;
  message_id: string;
  size_bytes: number;
  sha256: string;
  declared_content_type: string;
  served_content_type: string;
  text_available: boolean;
  truncated: boolean;
  withheld_reason: string;
  untrusted: { provenance: "third-party-email"; nonce: string; filename: string; text: string };
}

/** Which agent text type the attachment is, or null when its text is withheld. */
export function agentTextType(declared: string, filename: string): string | null {
  const t = normalizeContentType(declared);
  if (AGENT_TEXT_TYPES.has(t)) return t;
  // Common aliases senders use for the same four formats.
  if (t === "text/json" || t === "application/x-json" || t.endsWith("+json")) return "application/json";
  if (t === "application/csv" || t === "text/comma-separated-values" || (t === "application/vnd.ms-excel" && /\.csv$/i.test(filename)))
    return "text/csv";
  if (t === "application/ics" || t === "text/x-vcalendar") return "text/calendar";
  if (GENERIC_TYPES.has(t)) {
    const ext = /\.([a-z0-9]{1,8})$/i.exec(filename.trim())?.[1]?.toLowerCase();
    if (ext && EXTENSION_TYPES[ext]) return EXTENSION_TYPES[ext]!;
  }
  return null;
}

/**
 * UTF-8 (with or without BOM), UTF-16 by BOM, else Windows-1252 for legacy 8-bit exports.
 * null when the bytes are binary (NUL bytes outside UTF-16) and so not text at all.
 */
export function decodeText(bytes: Uint8Array): string | null {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

/** At most maxChars characters (code points), never splitting a surrogate pair. */
function bound(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  let end = maxChars;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return { text: text.slice(0, end), truncated: true };
}

export function agentAttachment(att: AgentAttachmentInput, bytes: Uint8Array, opts?: { maxChars?: number }): AgentAttachment {
  const maxChars = Math.max(0, opts?.maxChars ?? DEFAULT_AGENT_MAX_CHARS);
  let text = "";
  let truncated = false;
  let withheld = "";
  if (agentTextType(att.declaredContentType, att.filename) === null) {
    withheld = "binary_type";
  } else {
    const decoded = decodeText(bytes);
    if (decoded === null) withheld = "not_text_decodable";
    else ({ text, truncated } = bound(decoded, maxChars));
  }
  return {
    id: att.id,
    message_id: att.messageId,
    size_bytes: att.sizeBytes,
    sha256: att.sha256,
    declared_content_type: att.declaredContentType,
    served_content_type: att.servedContentType,
    text_available: withheld === "",
    truncated,
    withheld_reason: withheld,
    untrusted: {
      provenance: "third-party-email",
      // Fresh per answer, so sender-written text cannot predict and forge the envelope's end.
      nonce: randomBytes(16).toString("hex"),
      filename: att.filename,
      text,
    },
  };
}
