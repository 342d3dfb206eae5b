// Bytes of one framed command → tag, command name and argument tokens (RFC 3501 §9 syntax:
// atoms, quoted strings, literals {n}/{n+}, parenthesised lists, NIL). Atoms may carry a
// bracketed section (BODY[HEADER.FIELDS (FROM TO)]<0.100>), kept whole for the FETCH parser.

export type Token = { t: "atom"; v: string } | { t: "string"; v: Buffer; literal: boolean } | { t: "list"; v: Token[] };

export interface Command {
  tag: string;
  /** Upper-cased command name; "UID FETCH" etc. for the UID forms. */
  name: string;
  uid: boolean;
  args: Token[];
}

export class ParseError extends Error {
  constructor(
    message: string,
    /** The tag if it could be read, for the BAD reply. */
    readonly tag: string = "*",
  ) {
    super(message);
  }
}

const SP = 0x20;
/** FETCH items whose atom carries a bracketed section, spaces and all. */
const SECTIONED = /^(BODY|BODY\.PEEK|BINARY|BINARY\.PEEK|BINARY\.SIZE)$/i;
const TAG_OK = /^[\x21-\x7e]+$/;

export function parseCommand(bytes: Buffer): Command {
  const sp = bytes.indexOf(SP);
  const rawTag = (sp < 0 ? bytes : bytes.subarray(0, sp)).toString("latin1");
  if (!rawTag.length || !TAG_OK.test(rawTag) || /[(){%*"\\+]/.test(rawTag)) throw new ParseError("Invalid tag");
  const tag = rawTag;
  if (sp < 0) throw new ParseError("Missing command", tag);
  const r = new Reader(bytes, sp + 1, tag);
  let name = r.word().toUpperCase();
  let uid = false;
  if (name === "UID") {
    r.expectSpace();
    name = `UID ${r.word().toUpperCase()}`;
    uid = true;
  }
  if (!/^[A-Z][A-Z0-9 ]*$/.test(name)) throw new ParseError("Invalid command name", tag);
  const args: Token[] = [];
  while (!r.done()) {
    r.expectSpace();
    args.push(r.token());
  }
  return { tag, name, uid, args };
}

/** Tokens of a string that is itself argument syntax (e.g. the inside of BODY[...]). */
export function tokenize(text: string, tag = "*"): Token[] {
  const r = new Reader(Buffer.from(text, "utf8"), 0, tag);
  const out: Token[] = [];
  while (!r.done()) {
    if (out.length) r.expectSpace();
    out.push(r.token());
  }
  return out;
}

class Reader {
  private depth = 0;
  constructor(
    private readonly b: Buffer,
    private pos: number,
    private readonly tag: string,
  ) {}

  done(): boolean {
    return this.pos >= this.b.length;
  }

  fail(msg: string): never {
    throw new ParseError(msg, this.tag);
  }

  expectSpace(): void {
    if (this.b[this.pos] !== SP) this.fail("Expected a space");
    this.pos++;
  }

  word(): string {
    const start = this.pos;
    while (this.pos < this.b.length && this.b[this.pos] !== SP) this.pos++;
    if (this.pos === start) this.fail("Missing command");
    return this.b.subarray(start, this.pos).toString("latin1");
  }

  token(): Token {
    const c = this.b[this.pos];
    if (c === undefined) this.fail("Unexpected end of command");
    if (c === 0x28 /* ( */) return this.list();
    if (c === 0x22 /* " */) return this.quoted();
    if (c === 0x7b /* { */) return this.literal();
    return this.atom();
  }

  private list(): Token {
    if (++this.depth > 16) this.fail("Lists nested too deeply");
    this.pos++;
    const items: Token[] = [];
    for (;;) {
      const c = this.b[this.pos];
      if (c === undefined) this.fail("Unterminated list");
      if (c === 0x29 /* ) */) {
        this.pos++;
        break;
      }
      if (items.length) this.expectSpace();
      items.push(this.token());
    }
    this.depth--;
    return { t: "list", v: items };
  }

  private quoted(): Token {
    this.pos++;
    const out: number[] = [];
    for (;;) {
      const c = this.b[this.pos++];
      if (c === undefined || c === 0x0d || c === 0x0a) this.fail("Unterminated quoted string");
      if (c === 0x22) break;
      if (c === 0x5c /* \ */) {
        const n = this.b[this.pos++];
        if (n !== 0x22 && n !== 0x5c) this.fail("Invalid escape in quoted string");
        out.push(n);
        continue;
      }
      out.push(c);
    }
    return { t: "string", v: Buffer.from(out), literal: false };
  }

  private literal(): Token {
    const close = this.b.indexOf(0x7d /* } */, this.pos);
    const m = close > 0 ? /^\{(\d{1,10})\+?$/.exec(this.b.subarray(this.pos, close).toString("latin1")) : null;
    if (!m) this.fail("Invalid literal");
    const n = Number(m[1]);
    if (this.b[close + 1] !== 0x0d || this.b[close + 2] !== 0x0a) this.fail("Literal must end its line");
    const start = close + 3;
    if (start + n > this.b.length) this.fail("Literal shorter than announced");
    this.pos = start + n;
    return { t: "string", v: Buffer.from(this.b.subarray(start, start + n)), literal: true };
  }

  private atom(): Token {
    const start = this.pos;
    while (this.pos < this.b.length) {
      const c = this.b[this.pos]!;
      if (c === SP || c === 0x28 || c === 0x29) break;
      if (c < 0x20 || c === 0x7f || c === 0x22 || c === 0x7b) this.fail("Invalid character in atom");
      // "[" opens a section only after a FETCH item name (BODY[...], BINARY.PEEK[...]); elsewhere
      // it is an ordinary atom character (RFC 3501 §9: mailbox names like "a[b" are atoms).
      if (c === 0x5b /* [ */ && SECTIONED.test(this.b.subarray(start, this.pos).toString("latin1"))) {
        this.skipSection();
        continue;
      }
      this.pos++;
    }
    if (this.pos === start) this.fail("Expected an argument");
    return { t: "atom", v: this.b.subarray(start, this.pos).toString("utf8") };
  }

  /** From "[" to its "]", spaces, lists and quoted strings included. */
  private skipSection(): void {
    this.pos++;
    let inQuote = false;
    while (this.pos < this.b.length) {
      const c = this.b[this.pos++]!;
      if (c === 0x0d || c === 0x0a) break;
      if (inQuote) {
        if (c === 0x5c) this.pos++;
        else if (c === 0x22) inQuote = false;
      } else if (c === 0x22) inQuote = true;
      else if (c === 0x5d /* ] */) return;
    }
    this.fail("Unterminated [ section ]");
  }
}

// Helpers for command handlers: read a token as the type the grammar wants, or throw ParseError.

export function astring(t: Token | undefined, what = "argument"): string {
  if (!t) throw new ParseError(`Missing ${what}`);
  if (t.t === "atom") return t.v;
  if (t.t === "string") return t.v.toString("utf8");
  throw new ParseError(`${what} must be a string`);
}

export function atomOf(t: Token | undefined, what = "argument"): string {
  if (t?.t !== "atom") throw new ParseError(`Missing or invalid ${what}`);
  return t.v;
}

export function listOf(t: Token | undefined, what = "list"): Token[] {
  if (t?.t !== "list") throw new ParseError(`Expected a parenthesised ${what}`);
  return t.v;
}
