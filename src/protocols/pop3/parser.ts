// POP3 command lines (RFC 1939, RFC 2449, RFC 5034) to commands. Pure: one line in, one
// command or one syntax error out; no state, no I/O. The session decides what a command
// means in its current state.

export type Pop3Command =
  | { name: "USER"; user: string }
  | { name: "PASS"; password: string }
  | { name: "AUTH"; mechanism: string | null; initial: string | null }
  | { name: "CAPA" | "STAT" | "RSET" | "NOOP" | "QUIT" | "STLS" }
  | { name: "LIST" | "UIDL"; msg: number | null }
  | { name: "RETR"; msg: number }
  | { name: "DELE"; msg: number }
  | { name: "TOP"; msg: number; lines: number };

export type ParseResult = { ok: true; command: Pop3Command } | { ok: false; error: string };

/** RFC 2449 allows 255 octets per command; SASL responses may be longer, so the framing limit is wider. */
export const MAX_LINE_BYTES = 8192;

const NO_ARGS = new Set(["CAPA", "STAT", "RSET", "NOOP", "QUIT", "STLS"]);
// A message number is a positive decimal; anything beyond this cannot name a message and
// would only lose precision.
const MAX_NUMBER_DIGITS = 9;

function fail(error: string): ParseResult {
  return { ok: false, error };
}

function number(raw: string | undefined, what: string, min: number): number | string {
  if (raw === undefined) return `${what} required`;
  if (!/^\d+$/.test(raw) || raw.length > MAX_NUMBER_DIGITS) return `${what} must be a decimal number`;
  const n = Number(raw);
  if (n < min) return `${what} must be at least ${min}`;
  return n;
}

/**
 * Parses one command line without its line terminator. Bytes are taken as UTF-8 for the
 * arguments (user names may be internationalised); the keyword must be ASCII letters.
 */
export function parseCommand(line: Uint8Array | string): ParseResult {
  const text = typeof line === "string" ? line : Buffer.from(line).toString("utf8");
  const clean = text.endsWith("\r") ? text.slice(0, -1) : text;
  // Control characters (NUL, ESC, a stray CR …) never belong in a command line.
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(clean)) return fail("control characters are not allowed in a command");
  if (clean.length === 0) return fail("empty command");
  const sp = clean.indexOf(" ");
  const keyword = (sp < 0 ? clean : clean.slice(0, sp)).toUpperCase();
  const rest = sp < 0 ? "" : clean.slice(sp + 1);
  if (!/^[A-Z]{3,4}$/.test(keyword)) return fail("unknown command");

  // PASS takes the rest of the line verbatim: RFC 1939 lets a password contain spaces.
  if (keyword === "PASS") {
    if (sp < 0 || rest.length === 0) return fail("PASS needs a password");
    return { ok: true, command: { name: "PASS", password: rest } };
  }

  const args = rest.length === 0 ? [] : rest.split(" ");
  if (args.some((a) => a.length === 0)) return fail("arguments are separated by exactly one space");

  if (NO_ARGS.has(keyword)) {
    if (args.length > 0) return fail(`${keyword} takes no arguments`);
    return { ok: true, command: { name: keyword as "CAPA" } };
  }
  switch (keyword) {
    case "USER": {
      if (args.length !== 1) return fail("USER needs exactly one argument, the inbox address");
      return { ok: true, command: { name: "USER", user: args[0]! } };
    }
    case "AUTH": {
      if (args.length > 2) return fail("AUTH takes a mechanism and an optional initial response");
      const mechanism = args[0]?.toUpperCase() ?? null;
      return { ok: true, command: { name: "AUTH", mechanism, initial: args[1] ?? null } };
    }
    case "LIST":
    case "UIDL": {
      if (args.length > 1) return fail(`${keyword} takes at most one message number`);
      if (args.length === 0) return { ok: true, command: { name: keyword, msg: null } };
      const n = number(args[0], "message number", 1);
      return typeof n === "string" ? fail(n) : { ok: true, command: { name: keyword, msg: n } };
    }
    case "RETR":
    case "DELE": {
      if (args.length !== 1) return fail(`${keyword} needs exactly one message number`);
      const n = number(args[0], "message number", 1);
      return typeof n === "string" ? fail(n) : { ok: true, command: { name: keyword as "RETR", msg: n } };
    }
    case "TOP": {
      if (args.length !== 2) return fail("TOP needs a message number and a number of lines");
      const n = number(args[0], "message number", 1);
      if (typeof n === "string") return fail(n);
      const lines = number(args[1], "number of lines", 0);
      if (typeof lines === "string") return fail(lines);
      return { ok: true, command: { name: "TOP", msg: n, lines } };
    }
    default:
      return fail("unknown command");
  }
}

/**
 * Decodes a SASL PLAIN response (RFC 4616): base64 of authzid NUL authcid NUL password.
 * "=" stands for an empty response. Returns null when it is not well-formed.
 */
export function decodeSaslPlain(b64: string): { authzid: string; user: string; password: string } | null {
  if (b64 === "=") return null;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) return null;
  const parts = Buffer.from(b64, "base64").toString("utf8").split("\0");
  if (parts.length !== 3) return null;
  const [authzid, user, password] = parts as [string, string, string];
  if (user.length === 0 || password.length === 0) return null;
  return { authzid, user, password };
}
