// The MIME tree of raw message bytes as byte offsets (RFC 2045/2046): what BODYSTRUCTURE,
// ENVELOPE and BODY[section] are built from. Never throws: malformed input yields a best-effort
// tree (missing boundaries make the rest one part). Header text is kept as a byte string (latin1:
// one char per byte) so that 8-bit headers go back out unchanged; see wire.ts. Where the output
// is a matter of taste (line counts, default charset, RFC 2231 continuations) it follows Dovecot.

export interface HeaderField {
  /** Lower-cased name. */
  name: string;
  /** Unfolded value, leading whitespace trimmed. */
  value: string;
}

export interface ContentValue {
  value: string;
  /** Parameters in order, names lower-cased, values unquoted (RFC 2231 forms kept as sent). */
  params: [string, string][];
}

export interface MimeNode {
  headerStart: number;
  /** Where the body starts (the blank line belongs to the header). */
  bodyStart: number;
  bodyEnd: number;
  /** Lines of the body (for BODYSTRUCTURE of text and message parts). */
  lines: number;
  headers: HeaderField[];
  type: string;
  subtype: string;
  params: [string, string][];
  children: MimeNode[];
  /** The encapsulated message of a message/rfc822 part. */
  message: MimeNode | null;
  /** Of a multipart: where its close-delimiter line ends, if it has one. */
  closeEnd?: number;
}

const MAX_DEPTH = 24;
const MAX_PARTS = 2000;

export function parseMime(raw: Uint8Array): MimeNode {
  const buf = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const budget = { parts: 0 };
  return parseEntity(buf, 0, buf.length, 0, false, budget);
}

function parseEntity(buf: Buffer, start: number, end: number, depth: number, digest: boolean, budget: { parts: number }): MimeNode {
  budget.parts++;
  const bodyStart = headerEnd(buf, start, end);
  const headers = parseHeaders(buf.toString("latin1", start, bodyStart));
  const ctHeader = headerValue(headers, "content-type");
  const ct = ctHeader ? parseContentValue(ctHeader) : null;
  let [type, subtype] = (ct?.value ?? "").toLowerCase().split("/", 2) as [string, string | undefined];
  let params = ct?.params ?? [];
  if (!type || !subtype || !/^[!-~]+$/.test(type + subtype)) {
    [type, subtype] = digest ? ["message", "rfc822"] : ["text", "plain"];
  }
  if (type === "text" && !params.some(([k]) => k === "charset")) params = [...params, ["charset", "us-ascii"]];
  const node: MimeNode = {
    headerStart: start,
    bodyStart,
    bodyEnd: end,
    lines: countLines(buf, bodyStart, end),
    headers,
    type,
    subtype: subtype!,
    params,
    children: [],
    message: null,
  };
  if (depth >= MAX_DEPTH || budget.parts > MAX_PARTS) return node;
  if (type === "multipart") {
    const boundary = params.find(([k]) => k === "boundary")?.[1];
    if (boundary) {
      const split = splitMultipart(buf, bodyStart, end, boundary);
      node.closeEnd = split.closeEnd;
      node.children = split.parts.map(([s, e, untrimmed]) => {
        const child = parseEntity(buf, s, e, depth + 1, subtype === "digest", budget);
        // A nested multipart's close-delimiter line keeps its line break even when that break
        // also starts the outer delimiter: Dovecot counts it so, and clients compare part sizes.
        const closeEnd = child.closeEnd ?? -1;
        if (closeEnd > child.bodyEnd && closeEnd <= untrimmed) {
          child.bodyEnd = closeEnd;
          child.lines = countLines(buf, child.bodyStart, closeEnd);
        }
        return child;
      });
    }
  } else if (type === "message" && (subtype === "rfc822" || subtype === "global")) {
    node.message = parseEntity(buf, bodyStart, end, depth + 1, false, budget);
  }
  return node;
}

/** Offset just after the blank line ending the header (or end if there is none). */
function headerEnd(buf: Buffer, start: number, end: number): number {
  if (buf[start] === 0x0a) return start + 1;
  if (buf[start] === 0x0d && buf[start + 1] === 0x0a) return start + 2;
  let i = start;
  while (i < end) {
    const nl = buf.indexOf(0x0a, i);
    if (nl < 0 || nl >= end) return end;
    if (buf[nl + 1] === 0x0a && nl + 1 < end) return nl + 2;
    if (buf[nl + 1] === 0x0d && buf[nl + 2] === 0x0a && nl + 2 < end) return nl + 3;
    i = nl + 1;
  }
  return end;
}

export function parseHeaders(text: string): HeaderField[] {
  const out: HeaderField[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line === "") continue;
    if ((line[0] === " " || line[0] === "\t") && out.length) {
      out[out.length - 1]!.value += " " + line.trim();
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    out.push({ name: line.slice(0, colon).trim().toLowerCase(), value: line.slice(colon + 1).trim() });
  }
  return out;
}

export function headerValue(headers: HeaderField[], name: string): string | null {
  const h = headers.find((x) => x.name === name);
  return h ? h.value : null;
}

/**
 * [start, end, end before trimming the delimiter's CRLF] of each part between "--boundary"
 * lines, and where the close-delimiter line ends (after its line break; -1 if there is none).
 */
function splitMultipart(
  buf: Buffer,
  start: number,
  end: number,
  boundary: string,
): { parts: [number, number, number][]; closeEnd: number } {
  const delim = Buffer.from(`--${boundary}`, "latin1");
  const parts: [number, number, number][] = [];
  let partStart = -1;
  let i = start;
  while (i < end) {
    const at = buf.indexOf(delim, i);
    if (at < 0 || at + delim.length > end) break;
    if (at !== start && buf[at - 1] !== 0x0a) {
      i = at + 1;
      continue;
    }
    const after = at + delim.length;
    const closing = buf[after] === 0x2d && buf[after + 1] === 0x2d;
    if (partStart >= 0) {
      // The CRLF before the delimiter belongs to the delimiter, not to the part.
      let pEnd = at;
      if (pEnd > partStart && buf[pEnd - 1] === 0x0a) pEnd--;
      if (pEnd > partStart && buf[pEnd - 1] === 0x0d) pEnd--;
      parts.push([partStart, Math.max(partStart, pEnd), at]);
    }
    const nl = buf.indexOf(0x0a, after);
    // May lie past `end` when the line break was trimmed off as the outer delimiter's; the parent decides.
    if (closing) return { parts, closeEnd: nl < 0 ? end : nl + 1 };
    partStart = nl < 0 || nl >= end ? end : nl + 1;
    i = partStart;
    if (parts.length >= MAX_PARTS) return { parts, closeEnd: -1 };
  }
  // No closing delimiter: the last part runs to the end.
  if (partStart >= 0 && partStart <= end) parts.push([partStart, end, end]);
  return { parts, closeEnd: -1 };
}

/** `text/plain; charset="utf-8"; name=a.txt` → value and parameters. */
export function parseContentValue(text: string): ContentValue {
  const parts: string[] = [];
  let cur = "";
  let quoted = false;
  let comment = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === "\\" && i + 1 < text.length) cur += text[++i];
      else if (c === '"') quoted = false;
      else cur += c;
      continue;
    }
    if (comment) {
      if (c === "(") comment++;
      else if (c === ")") comment--;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === "(") comment = 1;
    else if (c === ";") {
      parts.push(cur);
      cur = "";
    } else cur += c;
  }
  parts.push(cur);
  const value = (parts.shift() ?? "").trim();
  const params: [string, string][] = [];
  for (const p of parts) {
    const eq = p.indexOf("=");
    if (eq <= 0) continue;
    const k = p.slice(0, eq).trim().toLowerCase();
    if (k && !params.some(([x]) => x === k)) params.push([k, p.slice(eq + 1).trim()]);
  }
  return { value, params: joinContinuations(params) };
}

/**
 * RFC 2231 continuations (name*0*=…; name*1=…) joined into one parameter, `name*` when the value
 * is extended (charset'lang'%XX…), `name` otherwise; the value itself is not decoded.
 */
function joinContinuations(params: [string, string][]): [string, string][] {
  const parts = new Map<string, { n: number; v: string; ext: boolean }[]>();
  const out: [string, string][] = [];
  for (const [k, v] of params) {
    const m = /^(.+?)\*(\d+)(\*?)$/.exec(k);
    if (!m) {
      out.push([k, v]);
      continue;
    }
    const list = parts.get(m[1]!) ?? [];
    if (list.length === 0) {
      parts.set(m[1]!, list);
      out.push([m[1]!, ""]); // keeps the parameter's position
    }
    list.push({ n: Number(m[2]), v, ext: m[3] === "*" });
  }
  return out.map(([k, v]) => {
    const list = parts.get(k);
    if (!list || v !== "") return [k, v];
    list.sort((a, b) => a.n - b.n);
    const ext = list[0]!.n === 0 && list[0]!.ext;
    return [ext ? `${k}*` : k, list.map((x) => x.v).join("")];
  });
}

/** Lines of the body, as BODYSTRUCTURE counts them: line feeds (an unterminated last line does not count). */
export function countLines(buf: Uint8Array, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) if (buf[i] === 0x0a) n++;
  return n;
}
