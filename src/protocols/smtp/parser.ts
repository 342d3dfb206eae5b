// SMTP and LMTP command lines (RFC 5321, 1652, 1870, 2033, 2920, 3030, 3207, 4954, 6152, 6531) to
// commands, and the DATA body decoder. Pure: lines and bytes in, commands and message bytes out;
// no state beyond the decoder's own, no I/O. The session decides what a command means now.

/** RFC 5321 §4.5.3.1.4 allows 512 octets per command line; we accept up to this before 500 5.5.2. */
export const MAX_COMMAND_LINE = 4096;

export type Verb =
  | "EHLO"
  | "HELO"
  | "LHLO"
  | "MAIL"
  | "RCPT"
  | "DATA"
  | "BDAT"
  | "RSET"
  | "NOOP"
  | "QUIT"
  | "VRFY"
  | "HELP"
  | "STARTTLS"
  | "AUTH";

export type Body = "7BIT" | "8BITMIME" | "BINARYMIME";

export type SmtpCommand =
  | { verb: "EHLO" | "HELO" | "LHLO"; domain: string }
  | { verb: "MAIL"; address: string; size: number | null; body: Body; smtputf8: boolean }
  | { verb: "RCPT"; address: string }
  | { verb: "DATA" | "RSET" | "QUIT" | "STARTTLS" }
  | { verb: "NOOP" | "HELP" | "VRFY"; arg: string }
  | { verb: "BDAT"; size: number; last: boolean }
  | { verb: "AUTH"; mechanism: string; initial: string | null };

/** A reply line without its CRLF, e.g. "501 5.5.4 Syntax: MAIL FROM:<address>". */
export type Reply = string;

export type ParseResult =
  | { ok: true; command: SmtpCommand }
  /** verb is null when the command is not one we know (500), else the reply is a syntax error for that verb. */
  | { ok: false; verb: Verb | null; reply: Reply };

const VERBS = new Set<string>([
  "EHLO",
  "HELO",
  "LHLO",
  "MAIL",
  "RCPT",
  "DATA",
  "BDAT",
  "RSET",
  "NOOP",
  "QUIT",
  "VRFY",
  "HELP",
  "STARTTLS",
  "AUTH",
]);
/** Known to RFC 5321 and its extensions but not offered here: 502 rather than 500. */
const NOT_IMPLEMENTED = new Set(["EXPN", "TURN", "ETRN", "ATRN", "SEND", "SOML", "SAML", "XCLIENT", "XFORWARD", "VERB"]);

// A domain or an address literal ([1.2.3.4], [IPv6:…]); lenient about what clients put there.
const HELO_DOMAIN = /^(?:\[[^\]\s]+\]|[^\s<>()[\]\\,;:@"]+)$/;

const fail = (verb: Verb | null, reply: Reply): ParseResult => ({ ok: false, verb, reply });

/**
 * Parses one command line (without its line end; a trailing CR is ignored). Arguments are taken
 * as UTF-8 (SMTPUTF8 addresses); the verb is case-insensitive.
 */
export function parseCommand(line: string): ParseResult {
  const text = line.endsWith("\r") ? line.slice(0, -1) : line;
  const sp = text.indexOf(" ");
  const word = (sp < 0 ? text : text.slice(0, sp)).toUpperCase();
  const rest = sp < 0 ? "" : text.slice(sp + 1).trim();
  if (!VERBS.has(word)) {
    if (NOT_IMPLEMENTED.has(word)) return fail(null, "502 5.5.1 Error: command not implemented");
    return fail(null, "500 5.5.2 Error: command not recognized");
  }
  const verb = word as Verb;
  // Control characters (NUL, a bare CR inside the line, ESC …) never belong in a command.
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(text)) return fail(verb, "501 5.5.2 Error: control characters in the command");
  switch (verb) {
    case "EHLO":
    case "HELO":
    case "LHLO": {
      const domain = rest.split(/\s+/)[0] ?? "";
      if (domain === "") return fail(verb, `501 5.5.4 Syntax: ${verb} hostname`);
      if (!HELO_DOMAIN.test(domain)) return fail(verb, "501 5.5.4 Error: bad hostname syntax");
      return { ok: true, command: { verb, domain } };
    }
    case "MAIL":
      return parseMail(rest);
    case "RCPT":
      return parseRcpt(rest);
    case "DATA":
    case "RSET":
    case "QUIT":
    case "STARTTLS":
      if (rest !== "") return fail(verb, `501 5.5.4 Syntax: ${verb} takes no arguments`);
      return { ok: true, command: { verb } };
    case "NOOP":
    case "HELP":
    case "VRFY":
      if (verb === "VRFY" && rest === "") return fail(verb, "501 5.5.4 Syntax: VRFY address");
      return { ok: true, command: { verb, arg: rest } };
    case "BDAT":
      return parseBdat(rest);
    case "AUTH": {
      const parts = rest.split(/\s+/).filter(Boolean);
      if (parts.length < 1 || parts.length > 2) return fail(verb, "501 5.5.4 Syntax: AUTH mechanism [initial-response]");
      return { ok: true, command: { verb, mechanism: parts[0]!.toUpperCase(), initial: parts[1] ?? null } };
    }
  }
}

/** `BDAT <size> [LAST]` (RFC 3030). A size that does not parse leaves the session unable to frame what follows. */
export function parseBdat(rest: string): ParseResult {
  const m = /^(\d{1,15})(?:\s+(LAST))?$/i.exec(rest);
  if (!m) return fail("BDAT", "501 5.5.4 Syntax: BDAT chunk-size [LAST]");
  return { ok: true, command: { verb: "BDAT", size: Number(m[1]), last: m[2] !== undefined } };
}

interface Path {
  address: string;
  params: Map<string, string | null>;
}

const QUOTED_LOCAL_PART = /^"((?:[^"\\]|\\.)*)"(@[^@]+)$/;
/** RFC 5322 atext, plus any non-ASCII character (RFC 6532). */
const DOT_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\u{10FFFF}-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\u{10FFFF}-]+)*$/u;

/**
 * `"box"@d` is `box@d` (RFC 5322 §3.4.1: the quoted form is the same local part), so it reaches the
 * same inbox, as Postfix rewrites it. A quoted local part that needs its quotes ("john doe") stays.
 */
function unquotedLocalPart(address: string): string {
  const m = address.startsWith('"') ? QUOTED_LOCAL_PART.exec(address) : null;
  if (!m) return address;
  const local = m[1]!.replace(/\\(.)/g, "$1");
  return DOT_ATOM.test(local) ? local + m[2] : address;
}

/**
 * `FROM:<path> params` / `TO:<path> params`. Lenient where clients commonly stray: a space after the
 * colon, a path without angle brackets. Quoted local parts may hold spaces and ">". A source route
 * (`<@a,@b:user@d>`, RFC 5321 §4.1.2) is dropped.
 */
export function parsePath(rest: string, keyword: "FROM" | "TO"): Path | string {
  if (rest.slice(0, keyword.length + 1).toUpperCase() !== `${keyword}:`) return "missing keyword";
  let s = rest.slice(keyword.length + 1).trimStart();
  let address: string;
  if (s.startsWith("<")) {
    let i = 1;
    let quoted = false;
    for (; i < s.length; i++) {
      const c = s[i];
      if (c === "\\" && quoted) i++;
      else if (c === '"') quoted = !quoted;
      else if (c === ">" && !quoted) break;
    }
    if (i >= s.length) return "unterminated path";
    address = s.slice(1, i);
    s = s.slice(i + 1);
    if (s !== "" && !s.startsWith(" ")) return "junk after the path";
  } else {
    const sp = s.indexOf(" ");
    address = sp < 0 ? s : s.slice(0, sp);
    s = sp < 0 ? "" : s.slice(sp);
    if (address === "" || /[<>]/.test(address)) return "bad path";
  }
  const route = /^@[^:]*:/.exec(address);
  if (route) address = address.slice(route[0].length);
  address = unquotedLocalPart(address);
  if (/\s/.test(address.replace(/"(?:[^"\\]|\\.)*"/g, ""))) return "spaces in the address";
  if (address !== "" && !/^.+@[^@]+$/.test(address) && !/^postmaster$/i.test(address)) return "not an address";
  const params = new Map<string, string | null>();
  for (const p of s.trim().split(/\s+/)) {
    if (p === "") continue;
    const eq = p.indexOf("=");
    const key = (eq < 0 ? p : p.slice(0, eq)).toUpperCase();
    if (!/^[A-Z0-9][A-Z0-9-]*$/.test(key)) return "bad parameter";
    params.set(key, eq < 0 ? null : p.slice(eq + 1));
  }
  return { address, params };
}

function parseMail(rest: string): ParseResult {
  const path = parsePath(rest, "FROM");
  if (typeof path === "string") return fail("MAIL", `501 5.5.4 Syntax: MAIL FROM:<address> (${path})`);
  let size: number | null = null;
  let body: Body = "7BIT";
  let smtputf8 = false;
  for (const [key, value] of path.params) {
    switch (key) {
      case "SIZE":
        if (value === null || !/^\d{1,15}$/.test(value)) return fail("MAIL", "501 5.5.4 Syntax: SIZE=<octets>");
        size = Number(value);
        break;
      case "BODY": {
        const v = value?.toUpperCase();
        if (v !== "7BIT" && v !== "8BITMIME" && v !== "BINARYMIME")
          return fail("MAIL", "501 5.5.4 BODY must be 7BIT, 8BITMIME or BINARYMIME");
        body = v;
        break;
      }
      case "SMTPUTF8":
        if (value !== null) return fail("MAIL", "501 5.5.4 SMTPUTF8 takes no value");
        smtputf8 = true;
        break;
      case "AUTH": // RFC 4954 §5: the submitter's identity; recorded nowhere, accepted as given.
      case "RET": // DSN parameters (RFC 3461) that clients send unasked: accepted and ignored.
      case "ENVID":
        break;
      default:
        return fail("MAIL", `555 5.5.4 Unsupported parameter ${key.slice(0, 40)}`);
    }
  }
  return { ok: true, command: { verb: "MAIL", address: path.address, size, body, smtputf8 } };
}

function parseRcpt(rest: string): ParseResult {
  const path = parsePath(rest, "TO");
  if (typeof path === "string") return fail("RCPT", `501 5.5.4 Syntax: RCPT TO:<address> (${path})`);
  if (path.address === "") return fail("RCPT", "501 5.1.3 Error: empty recipient address");
  for (const key of path.params.keys()) {
    if (key !== "NOTIFY" && key !== "ORCPT") return fail("RCPT", `555 5.5.4 Unsupported parameter ${key.slice(0, 40)}`);
  }
  return { ok: true, command: { verb: "RCPT", address: path.address } };
}

/**
 * A SASL PLAIN response (RFC 4616): base64 of authzid NUL authcid NUL password; null when not
 * well-formed.
 */
export function decodeSaslPlain(b64: string): { authzid: string; user: string; password: string } | null {
  const text = decodeBase64(b64);
  if (text === null) return null;
  const parts = text.split("\0");
  if (parts.length !== 3) return null;
  const [authzid, user, password] = parts as [string, string, string];
  if (user.length === 0) return null;
  return { authzid, user, password };
}

/** Strict base64 to UTF-8; null when it is not base64. "=" is the empty string (RFC 4954 §4). */
export function decodeBase64(b64: string): string | null {
  const s = b64.trim();
  if (s === "=") return "";
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(s) || s.length % 4 !== 0) return null;
  return Buffer.from(s, "base64").toString("utf8");
}

const CR = 0x0d;
const LF = 0x0a;
const DOT = 0x2e;
const CRLF_DOT = Buffer.from("\r\n.");

/**
 * The DATA body (RFC 5321 §4.5.2): undoes dot-stuffing and finds the end, `CRLF . CRLF`, and
 * nothing else. A bare LF or a bare CR is message content like any other byte and is stored as
 * sent; a dot on a line of its own ends the data only when both its line ends are CRLF. So
 * `\n.\n`, `\r.\r`, `\r\n.\n` and `\n.\r\n` never end the data (SMTP smuggling, CVE-2023-51766
 * and kin; docs/smtp.md). Only a dot that follows a CRLF starts a new line for dot-stuffing.
 *
 * push() returns how many bytes it consumed: a tail that may still turn into the end (a CR, a
 * CRLF, a CRLF-dot, …) is left for the caller to hand back together with the next bytes.
 */
export class DataDecoder {
  private parts: Uint8Array[] = [];
  /** Decoded bytes so far (counted on after the limit is passed). */
  size = 0;
  /** The message went over maxBytes: the bytes are dropped, the end is still looked for. */
  overflow = false;
  /** The next byte begins a line. */
  private lineStart = true;

  /**
   * With a sink, decoded content is handed on as it is found (views into the pushed bytes, valid
   * for the call) instead of being kept here; message() is then empty.
   */
  constructor(
    private readonly maxBytes: number,
    private readonly sink: ((content: Uint8Array) => void) | null = null,
  ) {}

  push(b: Uint8Array): { consumed: number; done: boolean } {
    const len = b.length;
    let from = 0;
    let p = 0;
    for (;;) {
      if (this.lineStart) {
        if (p >= len) {
          this.keep(b, from, p);
          return { consumed: p, done: false };
        }
        if (b[p] === DOT) {
          // Wait for the two bytes that decide between the end and a stuffed dot.
          if (p + 1 >= len || (b[p + 1] === CR && p + 2 >= len)) {
            this.keep(b, from, p);
            return { consumed: p, done: false };
          }
          if (b[p + 1] === CR && b[p + 2] === LF) {
            this.keep(b, from, p);
            return { consumed: p + 3, done: true };
          }
          // A stuffed dot: drop it, the line goes on.
          this.keep(b, from, p);
          from = p + 1;
        }
        this.lineStart = false;
      }
      const at = indexOf(b, CRLF_DOT, p);
      if (at >= 0) {
        p = at + 2;
        this.lineStart = true;
        continue;
      }
      // No CRLF-dot ahead: everything up to a trailing CR or CRLF is plain content.
      if (len >= 2 && b[len - 2] === CR && b[len - 1] === LF) {
        this.keep(b, from, len);
        this.lineStart = true;
        return { consumed: len, done: false };
      }
      const end = len > 0 && b[len - 1] === CR ? len - 1 : len;
      this.keep(b, from, Math.max(from, end));
      return { consumed: Math.max(from, end), done: false };
    }
  }

  /** The message as sent (without the terminating dot line); empty after an overflow. */
  message(): Buffer {
    const out = this.parts.length === 1 ? Buffer.from(this.parts[0]!) : Buffer.concat(this.parts, this.size);
    this.parts = [];
    return out;
  }

  private keep(b: Uint8Array, from: number, to: number): void {
    if (to <= from) return;
    this.size += to - from;
    if (this.overflow) return;
    if (this.size > this.maxBytes) {
      this.overflow = true;
      this.parts = [];
      return;
    }
    if (this.sink) this.sink(b.subarray(from, to));
    else this.parts.push(b.subarray(from, to));
  }
}

function indexOf(b: Uint8Array, needle: Buffer, from: number): number {
  return Buffer.isBuffer(b) ? b.indexOf(needle, from) : Buffer.from(b.buffer, b.byteOffset, b.byteLength).indexOf(needle, from);
}
