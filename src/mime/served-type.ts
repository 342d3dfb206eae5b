// Which Content-Type an attachment is served with, and a Content-Disposition that cannot be
// used to smuggle headers or paths. The attachment route must also send
// `X-Content-Type-Options: nosniff` so a browser never upgrades octet-stream to something active.

/**
 * Served as declared. An allow-list (not a block-list) because any type a browser can render
 * actively (HTML, SVG, XML with XSLT, JavaScript, PDF-with-JS viewers aside) would run
 * sender-written code on our origin. Everything else becomes application/octet-stream.
 */
const SAFE_TYPES = new Set([
  "text/plain",
  "text/csv",
  "text/calendar",
  "application/json",
  "application/pdf",
  "application/zip",
  "application/gzip",
  "application/x-gzip",
  "application/x-tar",
  "application/x-7z-compressed",
  "application/msword",
  "application/vnd.ms-excel",
  "application/vnd.ms-powerpoint",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  "application/vnd.oasis.opendocument.text",
  "application/vnd.oasis.opendocument.spreadsheet",
  "application/pkcs7-signature",
  "application/pgp-signature",
  "application/pgp-encrypted",
  "application/octet-stream",
  "message/rfc822",
  "message/delivery-status",
  "text/rfc822-headers",
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/bmp",
  "image/tiff",
  "image/avif",
  "image/heic",
  "audio/mpeg",
  "audio/ogg",
  "audio/wav",
  "audio/mp4",
  "video/mp4",
  "video/webm",
  "video/ogg",
  "video/quicktime",
]);

export const OCTET_STREAM = "application/octet-stream";

/** Lowercased media type without parameters; "" when the value is not a type/subtype. */
export function normalizeContentType(value: string | null | undefined): string {
  if (!value) return "";
  const base = value.split(";")[0]!.trim().toLowerCase();
  return /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(base) ? base : "";
}

/** The type an attachment is served with: the declared one when it is on the allow-list, else octet-stream. */
export function servedContentType(declared: string | null | undefined): string {
  const t = normalizeContentType(declared);
  return SAFE_TYPES.has(t) ? t : OCTET_STREAM;
}

/** Characters that must never reach a filename: quotes, backslash, path separators, controls. */
function cleanFilename(filename: string | null | undefined): string {
  let name = (filename ?? "").normalize("NFC");
  // Keep only the last path component: "..\\..\\evil.exe" and "/etc/passwd" become plain names.
  name = name.split(/[/\\]/).pop() ?? "";
  name = name
    .replace(/[\u0000-\u001f\u007f-\u009f"'`;]/g, "")
    .replace(/\s+/g, " ")
    .trim();
  name = name.replace(/^\.+/, "");
  // Bound the header length; keep the extension when cutting.
  const chars = Array.from(name);
  if (chars.length > 200) {
    const dot = name.lastIndexOf(".");
    const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : "";
    name = chars.slice(0, 200 - ext.length).join("") + ext;
  }
  return name || "attachment";
}

/** RFC 5987 attr-char percent-encoding (encodeURIComponent leaves ' ( ) * ! which attr-char forbids). */
function encodeRfc5987(value: string): string {
  return encodeURIComponent(value).replace(/['()*!]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
}

/**
 * `attachment; filename="ascii-fallback"; filename*=UTF-8''percent-encoded`.
 * Always `attachment` (never inline): the bytes are sender-written.
 */
export function contentDisposition(filename: string | null | undefined): string {
  const name = cleanFilename(filename);
  const ascii = name.replace(/[^\x20-\x7e]/g, "_").replace(/[\\"%]/g, "_") || "attachment";
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeRfc5987(name)}`;
}
