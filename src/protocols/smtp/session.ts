// One SMTP or LMTP connection: owns the socket (and its TLS upgrade), frames input into command
// lines, DATA bodies and BDAT chunks, runs commands one at a time in order, checks each against
// the session state, and answers. PIPELINING (RFC 2920): every complete command of a packet is
// run in order, and the replies produced meanwhile leave in one write, when the input runs dry
// (or before the session waits for the client: a 334 challenge, STARTTLS). The greeting goes out
// as soon as the connection is accepted, unless a connect-time chaos rule fires (docs/chaos.md
// "Connection faults"): then it is late, or a 421 or 554 instead; input that arrives before it
// waits, and after a 554 every command but QUIT gets 503.
import { log } from "../../lib/log";
import type { Socket } from "node:net";
import type tls from "node:tls";
import { serverTls } from "../server-tls";
import type { AppContext } from "../../runtime/context";
import type { Services } from "../../services";
import type { Recipient } from "../../mail/ingest";
import type { ChaosReply } from "../../mail/chaos";
import { type ConnectFault, smtpGreeting } from "../../mail/smtp-chaos";
import type { ChaosRuleRecord } from "../../storage/mail";
import { type Body, DataDecoder, MAX_COMMAND_LINE, parseCommand, type SmtpCommand } from "./parser";
import type { IncomingMessage } from "../../mail/incoming";
import { commands, type SmtpState } from "./commands";
import { refusalReply } from "./commands/types";
import { deliverMessage } from "./deliver";

/** What a session needs from its listener; shared by every session of one port. */
export interface SmtpHost {
  ctx: AppContext;
  services: Services;
  /** The name in the greeting and the EHLO reply. */
  name: string;
  lmtp: boolean;
  maxBytes: number;
  authRequired: boolean;
  idleMs: number;
  secureContext: tls.SecureContext;
  onClose(s: SmtpSession): void;
}

export interface Transaction {
  /** The reverse path ("" for the null sender <>). */
  from: string;
  body: Body;
  /** One per inbox, in envelope order. */
  recipients: Recipient[];
  /** One per accepted RCPT (LMTP answers each), pointing into recipients. */
  accepted: { address: string; recipient: number }[];
  /** Each recipient's chaos rules as read at its RCPT (same order as recipients). */
  chaos: ChaosRuleRecord[][];
}

const CR = 0x0d;
const EMPTY = Buffer.alloc(0);
/** Unprocessed input beyond which the socket stops being read until the session catches up. */
const PAUSE_ABOVE = 8 * 1024 * 1024;
/**
 * Replies queued in one run beyond which they are sent at once, and the run waits while the socket
 * holds what it could not pass on (backedUp): a client that sends commands and never reads its replies
 * (each HELP is 6 bytes in, 65 out) otherwise grew the server by gigabytes. IMAP and POP3 wait alike.
 */
const OUTPUT_BEHIND = 1024 * 1024;
/** The answer to every command but QUIT after a 554 greeting (RFC 5321 §3.1). */
const NO_SERVICE = "503 5.5.1 no service, send QUIT";
/** Unknown commands in a row before the connection is dropped (a client speaking another protocol). */
const MAX_UNKNOWN = 10;
const OVERLONG = Symbol("overlong");

type Mode = "command" | "data" | "bdat" | "closed";

export class SmtpSession {
  state: SmtpState = "fresh";
  secure = false;
  /** The authenticated user (AUTH), or null. */
  user: string | null = null;
  clientName: string | null = null;
  transaction: Transaction | null = null;
  /** The message being received (DATA or BDAT chunks): in memory, or spooled to a temp file when large. */
  incoming: IncomingMessage | null = null;
  /** Ends the open transaction's announcement to the group commit (see beginTransaction). */
  private announced: (() => void) | null = null;
  /** Ends this connection's attendance at the group commit (IngestService.attend). */
  private readonly leave: () => void;
  readonly ip: string;

  private mode: Mode = "command";
  private input: Buffer = EMPTY;
  private out = "";
  /** The last write was not taken at once (write() said false): nothing more is read or run until 'drain'. */
  private backedUp = false;
  private running = false;
  private discarding = false;
  private unknown = 0;
  private decoder: DataDecoder | null = null;
  private bdat: { command: SmtpCommand & { verb: "BDAT" }; remaining: number; refusal: string | null } | null = null;
  private lineWaiter: ((line: string | null) => void) | null = null;
  private shuttingDown = false;
  /** A connect-time fault's delay: no greeting yet, so input waits (cleared when the connection ends). */
  private greetTimer: ReturnType<typeof setTimeout> | null = null;
  /** Greeted with 554: only QUIT is served. */
  private noService = false;
  /**
   * The client closed its side (FIN) after its last command: what it sent is still served and
   * answered, then the connection closes (docs/smtp.md "A client that closes its side").
   */
  private inputEnded = false;

  constructor(
    private socket: Socket,
    readonly host: SmtpHost,
    /** The client's address: the socket's, or the one a trusted balancer's PROXY header named. */
    client: string | undefined = socket.remoteAddress,
  ) {
    this.ip = client ?? "unknown";
    this.leave = host.services.ingest.attend();
    this.attach(socket);
  }

  get lmtp(): boolean {
    return this.host.lmtp;
  }

  get closed(): boolean {
    return this.mode === "closed";
  }

  /** The greeting, or what a connect-time chaos rule that fired says instead, after its delay (a timer: others go on meanwhile). */
  greet(fault: ConnectFault | null = null): void {
    if (fault === null) {
      this.socket.write(`${smtpGreeting(this.host.name, this.lmtp)}\r\n`);
      return;
    }
    if (fault.delayMs <= 0) return this.greetWith(fault);
    this.greetTimer = setTimeout(() => {
      this.greetTimer = null;
      this.greetWith(fault);
    }, fault.delayMs);
  }

  private greetWith(fault: ConnectFault): void {
    if (this.mode === "closed") return;
    if (fault.code === null) {
      this.reply(smtpGreeting(this.host.name, this.lmtp));
    } else {
      this.host.ctx.metrics.smtpRefusals.inc({ stage: "connect", code: String(fault.code) });
      log.info({ proto: this.lmtp ? "lmtp" : "smtp", client: this.ip, code: fault.code }, "connection refused by chaos rule");
      this.reply(`${fault.code} ${fault.text}`);
      if (fault.code === 421) return this.close();
      this.noService = true;
    }
    this.flush();
    // What the client sent before the greeting is served now, in order.
    void this.run();
  }

  private stopGreetTimer(): void {
    if (this.greetTimer === null) return;
    clearTimeout(this.greetTimer);
    this.greetTimer = null;
  }

  /** The EHLO/LHLO keywords for the connection as it is now. */
  extensions(): string[] {
    const ext = ["PIPELINING", "8BITMIME", "SMTPUTF8", "ENHANCEDSTATUSCODES", "CHUNKING", "BINARYMIME"];
    if (!this.secure) ext.push("STARTTLS");
    ext.push("AUTH PLAIN LOGIN", `SIZE ${this.host.maxBytes}`);
    return ext;
  }

  // -- Replies ---------------------------------------------------------------------------

  /** Queues one reply line (without CRLF); it leaves with the others of this packet. */
  reply(line: string): void {
    // Replies may quote client input (an address): keep them on one line.
    this.out += `${line.replace(/[\r\n]/g, " ")}\r\n`;
  }

  replyLines(code: number, lines: string[]): void {
    lines.forEach((l, i) => this.reply(`${code}${i < lines.length - 1 ? "-" : " "}${l}`));
  }

  /**
   * A refused MAIL or RCPT: one log line and one count (the transaction may go on with other
   * recipients, so it is not a transaction's outcome).
   */
  refused(stage: "mail" | "rcpt", code: number, address: string): void {
    this.host.ctx.metrics.smtpRefusals.inc({ stage, code: String(code) });
    log.info(
      {
        proto: this.lmtp ? "lmtp" : "smtp",
        client: this.ip,
        from: stage === "mail" ? address : this.transaction?.from,
        ...(stage === "rcpt" ? { to: address } : {}),
        code,
      },
      `${this.lmtp ? "lmtp" : "smtp"} ${stage === "mail" ? "sender" : "recipient"} refused`,
    );
  }

  /** An injected failure (docs/chaos.md), after the rule's delay; 421 also closes the connection. */
  async injected(r: ChaosReply): Promise<void> {
    if (r.delayMs > 0) await Bun.sleep(r.delayMs);
    this.reply(`${r.code} ${r.text}`);
    if (r.code === 421) this.close();
  }

  /**
   * Sends what was said now unless more commands are already waiting (their replies then leave
   * together, as PIPELINING expects). For a reply that must not wait behind bookkeeping, such as
   * the end of DATA's before its log line.
   */
  flushUnlessPipelined(): void {
    if (this.input.length === 0) this.flush();
  }

  private flush(): void {
    if (this.out === "") return;
    const text = this.out;
    this.out = "";
    // write() says false once the socket holds more than it passes on: the client is not reading.
    if (!this.socket.destroyed && this.socket.writable) this.backedUp = !this.socket.write(text);
  }

  /** Sends a continuation (AUTH's 334) and waits for the client's next line; null if the connection went away. */
  ask(prompt: string): Promise<string | null> {
    this.reply(prompt);
    this.flush();
    if (this.mode === "closed") return Promise.resolve(null);
    return new Promise((resolve) => {
      this.lineWaiter = resolve;
      this.answerWaiter();
      // The client closed its side before answering: no answer will come.
      if (this.lineWaiter && this.inputEnded) {
        this.lineWaiter = null;
        resolve(null);
      }
    });
  }

  private answerWaiter(): void {
    if (!this.lineWaiter) return;
    const line = this.takeLine();
    if (line === undefined) return;
    const w = this.lineWaiter;
    this.lineWaiter = null;
    w(line === OVERLONG ? "" : line);
  }

  // -- Transaction -----------------------------------------------------------------------

  /** Opens a transaction (MAIL FROM), announced to the group commit (IngestService.announce). */
  beginTransaction(t: NonNullable<SmtpSession["transaction"]>): void {
    this.resetTransaction();
    this.transaction = t;
    this.announced = this.host.services.ingest.announce();
  }

  resetTransaction(): void {
    this.announced?.();
    this.announced = null;
    this.transaction = null;
    this.incoming?.done();
    this.incoming = null;
    this.decoder = null;
    if (this.state !== "fresh") this.state = "greeted";
  }

  /** After the 354: what follows is the message, up to CRLF.CRLF. */
  startData(): void {
    const m = this.newIncoming();
    this.decoder = new DataDecoder(this.host.maxBytes, (b) => m.add(b));
    this.mode = "data";
  }

  private newIncoming(): IncomingMessage {
    this.incoming?.done();
    this.incoming = this.host.services.ingest.incoming(this.host.maxBytes);
    return this.incoming;
  }

  /** The whole message has arrived (end of DATA, BDAT LAST): store it and answer, then free its bytes and budget. */
  async finishMessage(): Promise<void> {
    const m = this.incoming!;
    this.incoming = null;
    try {
      await deliverMessage(this, m.message());
    } finally {
      m.done();
    }
  }

  // -- Socket ----------------------------------------------------------------------------

  private attach(socket: Socket): void {
    this.socket = socket;
    socket.setTimeout(this.host.idleMs);
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("timeout", () => this.onTimeout());
    socket.on("error", () => socket.destroy());
    socket.on("end", () => this.onEnd(socket));
    socket.on("close", () => this.onClose(socket));
  }

  private onEnd(socket: Socket): void {
    if (socket !== this.socket) return;
    this.inputEnded = true;
    // A continuation asked for (AUTH's 334) that never came (a line that did was handed over on
    // arrival): the command gives up, as on a close.
    const w = this.lineWaiter;
    this.lineWaiter = null;
    w?.(null);
    void this.run();
  }

  /** Once the client closed its side and everything it sent has been answered: close ours. */
  private closeIfInputDone(): void {
    if (this.inputEnded && !this.running && this.greetTimer === null && this.mode !== "closed") this.close();
  }

  private onData(chunk: Buffer): void {
    if (this.mode === "closed") return;
    this.input = this.input.length === 0 ? chunk : Buffer.concat([this.input, chunk]);
    if (this.lineWaiter) this.answerWaiter();
    if (this.input.length > PAUSE_ABOVE) this.socket.pause();
    void this.run();
  }

  private onTimeout(): void {
    // A command still working (a delivery, a chaos delay) is not the client being idle, nor is a client waiting for its greeting.
    if (this.running || this.greetTimer !== null || this.mode === "closed") return;
    this.reply(`421 4.4.2 ${this.host.name} Error: timeout exceeded`);
    this.close();
  }

  private onClose(socket: Socket): void {
    // During STARTTLS the plain socket is handed to TLS; only the outermost socket's close counts.
    if (socket !== this.socket) return;
    this.mode = "closed";
    this.stopGreetTimer();
    this.leave();
    this.announced?.();
    this.announced = null;
    // A client gone mid-DATA: its temp file and budget go now, not with the session object.
    this.incoming?.done();
    this.incoming = null;
    this.lineWaiter?.(null);
    this.lineWaiter = null;
    this.host.onClose(this);
  }

  /** Flushes what was said and closes; a client that never closes its side does not keep the slot. */
  close(): void {
    if (this.mode === "closed") return;
    this.stopGreetTimer();
    this.flush();
    this.mode = "closed";
    this.lineWaiter?.(null);
    this.lineWaiter = null;
    const s = this.socket;
    s.end();
    setTimeout(() => s.destroy(), 5000).unref();
  }

  /** Server stop: 421 now when idle, else once the command at hand has answered. */
  shutdown(): void {
    if (this.mode === "closed") return;
    if (this.running) {
      this.shuttingDown = true;
      return;
    }
    this.reply("421 4.3.2 Server shutting down");
    this.close();
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** 220 has been queued: send it in clear, then speak TLS on the same socket and start over. */
  startTls(): void {
    this.flush();
    this.input = EMPTY;
    this.discarding = false;
    const plain = this.socket;
    plain.removeAllListeners("data");
    plain.removeAllListeners("timeout");
    plain.setTimeout(0);
    const secure = serverTls(plain, this.host.secureContext);
    this.secure = true;
    this.state = "fresh";
    this.user = null;
    this.clientName = null;
    this.resetTransaction();
    this.attach(secure);
    // Not ended with the plain socket: under Bun that one reports 'close' as soon as the client closes its
    // side, while the TLS socket still carries the replies (half-close). The TLS socket closes on its own
    // ('end', a reset, the idle timeout).
  }

  // -- Input -----------------------------------------------------------------------------

  private async run(): Promise<void> {
    if (this.running || this.greetTimer !== null) return;
    this.running = true;
    try {
      while (this.mode !== "closed") {
        const r = this.step();
        if (r === false) break;
        if (r !== true) await r;
        if (this.out.length > OUTPUT_BEHIND || this.backedUp) await this.drained();
      }
    } catch (e) {
      // One broken connection never takes the server down.
      log.error({ err: e, client: this.ip }, "smtp session failed");
      this.reply("421 4.3.0 internal error; closing the connection");
      this.close();
    } finally {
      this.running = false;
      this.flush();
      if (this.shuttingDown) {
        this.shuttingDown = false;
        this.shutdown();
      }
      if (this.socket.isPaused() && this.input.length < PAUSE_ABOVE / 2 && this.mode !== "closed") this.socket.resume();
      this.closeIfInputDone();
    }
  }

  /** Sends what is queued and, while the client lags more than OUTPUT_BEHIND, reads nothing and waits. */
  private async drained(): Promise<void> {
    this.flush();
    const socket = this.socket;
    if (!this.backedUp || socket.destroyed) return;
    socket.pause();
    await new Promise<void>((resolve) => {
      const done = () => {
        socket.off("drain", done);
        socket.off("close", done);
        this.backedUp = false;
        resolve();
      };
      socket.on("drain", done);
      socket.on("close", done);
    });
  }

  /** One unit of input: false when more bytes are needed, true or a promise when something was done. */
  private step(): boolean | Promise<void> {
    switch (this.mode) {
      case "command": {
        const line = this.takeLine();
        if (line === undefined) return false;
        if (line === OVERLONG) {
          this.reply("500 5.5.2 Error: line too long");
          return true;
        }
        return this.command(line) ?? true;
      }
      case "data": {
        if (this.input.length === 0) return false;
        const decoder = this.decoder!;
        const { consumed, done } = decoder.push(this.input);
        this.input = consumed >= this.input.length ? EMPTY : this.input.subarray(consumed);
        if (!done) return false;
        this.mode = "command";
        this.decoder = null;
        const m = this.incoming!;
        if (decoder.overflow || m.refused) {
          this.resetTransaction();
          // Read to the end either way, so the reply lines up with the client's next command.
          this.reply(refusalReply(m, this.host.maxBytes, decoder.overflow));
          return true;
        }
        return this.finishMessage();
      }
      case "bdat": {
        const b = this.bdat!;
        const n = Math.min(b.remaining, this.input.length);
        if (n > 0) {
          if (b.refusal === null) this.incoming!.add(this.input.subarray(0, n));
          this.input = n === this.input.length ? EMPTY : this.input.subarray(n);
          b.remaining -= n;
        }
        if (b.remaining > 0) return false;
        this.mode = "command";
        this.bdat = null;
        if (b.refusal !== null) {
          this.reply(b.refusal);
          return true;
        }
        return commands.get("BDAT")!.run(this, b.command) ?? true;
      }
      case "closed":
        return false;
    }
  }

  /** The next command line without its line end, OVERLONG, or undefined when no full line has arrived. */
  private takeLine(): string | typeof OVERLONG | undefined {
    const input = this.input;
    const lf = input.indexOf(0x0a);
    if (lf < 0) {
      if (input.length > MAX_COMMAND_LINE + 1) {
        this.discarding = true;
        this.input = EMPTY;
      }
      return undefined;
    }
    this.input = lf + 1 === input.length ? EMPTY : input.subarray(lf + 1);
    if (this.discarding) {
      this.discarding = false;
      return OVERLONG;
    }
    // A bare LF ends a command line too (commands carry no data to smuggle).
    const end = lf > 0 && input[lf - 1] === CR ? lf - 1 : lf;
    if (end > MAX_COMMAND_LINE) return OVERLONG;
    return input.toString("utf8", 0, end);
  }

  private command(line: string): void | Promise<void> {
    const parsed = parseCommand(line);
    const verb = parsed.ok ? parsed.command.verb : parsed.verb;
    if (verb === null) {
      this.reply(this.noService ? NO_SERVICE : parsed.ok ? "500 5.5.2 Error: command not recognized" : parsed.reply);
      if (++this.unknown >= MAX_UNKNOWN) {
        this.reply("421 4.7.0 Error: too many unrecognized commands");
        this.close();
      }
      return;
    }
    this.unknown = 0;
    const def = commands.get(verb)!;
    const allowed = def.states.includes(this.state) && (!this.noService || verb === "QUIT");
    const refusal = allowed
      ? null
      : this.noService
        ? NO_SERVICE
        : this.state === "fresh"
          ? `503 5.5.1 Error: send ${this.lmtp ? "LHLO" : "EHLO/HELO"} first`
          : (def.outOfOrder ?? "503 5.5.1 Error: bad sequence of commands");
    if (verb === "BDAT") {
      // The chunk follows the command whatever the answer: read it to stay in step (RFC 3030 §2).
      if (!parsed.ok) {
        this.reply(parsed.reply);
        this.close(); // the size is unknown, so what follows cannot be framed
        return;
      }
      const c = parsed.command as SmtpCommand & { verb: "BDAT" };
      if (allowed && this.state === "rcpt") this.newIncoming();
      this.bdat = { command: c, remaining: c.size, refusal };
      this.mode = "bdat";
      return;
    }
    if (refusal !== null) return this.reply(refusal);
    if (!parsed.ok) return this.reply(parsed.reply);
    return def.run(this, parsed.command);
  }
}
