// Cuts the client's byte stream into whole commands. A command is one line, except that a line
// ending in a literal announcement {n} / {n+} continues with n raw bytes and then more line.
// Pure: bytes in, frames out; the session decides what to write (continuations, errors).

export type Frame =
  /** A complete command: its bytes with literals inline, without the final CRLF. */
  | { kind: "command"; bytes: Buffer }
  /** A synchronising literal {n} was announced and accepted: the server must answer "+". */
  | { kind: "continue" }
  /** The command was refused while framing; fatal = the connection must be closed. */
  | { kind: "error"; tag: string; message: string; fatal: boolean };

export interface FramerLimits {
  /** Longest line (without literal payloads) of one command. */
  maxLine: number;
  /** Largest single literal. */
  maxLiteral: number;
  /** Largest whole command, literals included. */
  maxCommand: number;
}

export const DEFAULT_LIMITS: FramerLimits = { maxLine: 64 * 1024, maxLiteral: 1024 * 1024, maxCommand: 2 * 1024 * 1024 };

const LITERAL_AT_END = /\{(\d{1,10})(\+?)\}$/;

export class Framer {
  private buf: Buffer = Buffer.alloc(0);
  /** Parts of the command being assembled (lines and literal payloads). */
  private parts: Buffer[] = [];
  private partsLen = 0;
  /** Bytes of literal payload still expected. */
  private literalLeft = 0;
  /** Discarding an oversized line up to its CRLF. */
  private skipping = false;

  constructor(private limits: FramerLimits = DEFAULT_LIMITS) {}

  /** New limits from the next command on (a logged-in session may APPEND messages above 1 MB). */
  setLimits(limits: FramerLimits): void {
    this.limits = limits;
  }

  push(chunk: Buffer): Frame[] {
    const out: Frame[] = [];
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    let pos = 0;
    for (;;) {
      if (this.literalLeft > 0) {
        const take = Math.min(this.literalLeft, this.buf.length - pos);
        if (take === 0) break;
        this.add(this.buf.subarray(pos, pos + take));
        pos += take;
        this.literalLeft -= take;
        continue;
      }
      const nl = this.buf.indexOf(10, pos);
      if (nl < 0) {
        const pending = this.buf.length - pos;
        if (!this.skipping && pending > this.limits.maxLine) {
          out.push({ kind: "error", tag: this.tagOf(this.buf.subarray(pos, pos + 64)), message: "Line too long", fatal: false });
          this.reset();
          this.skipping = true;
        }
        if (this.skipping) pos = this.buf.length;
        break;
      }
      let line = this.buf.subarray(pos, nl);
      pos = nl + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      if (line.length && line[line.length - 1] === 13) line = line.subarray(0, line.length - 1);
      if (line.length > this.limits.maxLine) {
        out.push({ kind: "error", tag: this.tagOf(this.parts.length ? this.parts[0]! : line), message: "Line too long", fatal: false });
        this.reset();
        continue;
      }
      const lit = LITERAL_AT_END.exec(line.subarray(Math.max(0, line.length - 16)).toString("latin1"));
      if (!lit) {
        this.add(line);
        out.push({ kind: "command", bytes: Buffer.concat(this.parts, this.partsLen) });
        this.reset();
        continue;
      }
      const n = Number(lit[1]);
      const nonSync = lit[2] === "+";
      const tag = this.tagOf(this.parts.length ? this.parts[0]! : line);
      if (n > this.limits.maxLiteral || this.partsLen + line.length + n > this.limits.maxCommand) {
        // A synchronising literal is simply not invited; a LITERAL+ one is already on its way,
        // and skipping an unbounded number of bytes is not worth it: the connection ends.
        out.push({ kind: "error", tag, message: `Literal too large (at most ${this.limits.maxLiteral} bytes)`, fatal: nonSync });
        this.reset();
        if (nonSync) {
          this.buf = Buffer.alloc(0);
          return out;
        }
        continue;
      }
      this.add(line);
      this.add(Buffer.from("\r\n"));
      this.literalLeft = n;
      if (!nonSync) out.push({ kind: "continue" });
    }
    this.buf = pos >= this.buf.length ? Buffer.alloc(0) : Buffer.from(this.buf.subarray(pos));
    return out;
  }

  private add(b: Buffer): void {
    this.parts.push(Buffer.from(b));
    this.partsLen += b.length;
  }

  private reset(): void {
    this.parts = [];
    this.partsLen = 0;
    this.literalLeft = 0;
  }

  private tagOf(b: Buffer): string {
    const m = /^([\x21-\x7e]+?)[ \r\n]/.exec(b.subarray(0, 64).toString("latin1") + " ");
    const t = m?.[1] ?? "*";
    return /^[A-Za-z0-9.\-_+!#$&',/:;<=>?@^`|~]+$/.test(t) && !/[(){%*"\\\]]/.test(t) ? t : "*";
  }
}
