// One POP3 conversation (RFC 1939 states AUTHORIZATION → TRANSACTION → UPDATE), independent of
// sockets: the listener feeds it lines and gives it an Io to answer through. Every error
// answers -ERR and the session goes on; only QUIT, autologout and a deleted inbox end it.
import { log } from "../../lib/log";
import { recordLogin } from "../login-log";
import type { AppContext } from "../../runtime/context";
import type { Services } from "../../services";
import { decodeSaslPlain, parseCommand, type Pop3Command } from "./parser";
import { encodeMultiline, transmittedSize } from "./wire";
import { yieldToLoop } from "../../lib/batches";
import { Maildrop } from "./maildrop";

export interface SessionIo {
  readonly ip: string;
  /** Whether the connection is encrypted now (implicit TLS, or after STLS). */
  secure(): boolean;
  /** Whether STLS can be offered (a plain port that has not upgraded yet). */
  canStartTls(): boolean;
  send(data: string | Uint8Array): void;
  /**
   * Settles once the answer bytes not yet taken by the client are back under the bound (at once
   * when they are, or when the connection closed): a long answer (LIST, UIDL of a million
   * messages) waits here between chunks instead of piling megabytes up in the socket.
   */
  writable(): Promise<void>;
  /** Called right after the +OK to STLS: the listener discards pipelined input and starts TLS. */
  startTls(): void;
  /** Flushes what was sent and closes the connection. */
  close(): void;
  /** The session logged in: the listener stops the pre-auth clock and frees the address's share. */
  loggedIn(): void;
}

/** Logged-in sessions per inbox, shared by every POP3 listener of one server. */
export class InboxSlots {
  private open = new Map<string, number>();
  constructor(private readonly perInbox: number) {}
  acquire(inboxId: string): boolean {
    const n = this.open.get(inboxId) ?? 0;
    if (n >= this.perInbox) return false;
    this.open.set(inboxId, n + 1);
    return true;
  }
  release(inboxId: string): void {
    const n = (this.open.get(inboxId) ?? 1) - 1;
    if (n <= 0) this.open.delete(inboxId);
    else this.open.set(inboxId, n);
  }
}

const CRLF = "\r\n";

export class Pop3Session {
  private state: "authorization" | "transaction" | "closed" = "authorization";
  private user: string | null = null;
  /** Set while AUTH PLAIN waits for the client's response on its own line. */
  private awaitingSasl = false;
  private drop: Maildrop | null = null;
  private deleted = new Set<number>();
  private retrieved = new Set<number>();
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly services: Services,
    private readonly slots: InboxSlots,
    private readonly io: SessionIo,
  ) {}

  get closed(): boolean {
    return this.state === "closed";
  }

  greeting(): void {
    this.ok("inboxd POP3 server ready");
  }

  /** One line of input without its LF. */
  async handleLine(line: Uint8Array): Promise<void> {
    if (this.state === "closed") return;
    if (this.awaitingSasl) {
      this.awaitingSasl = false;
      const text = Buffer.from(line).toString("utf8").replace(/\r$/, "").trim();
      if (text === "*") return this.err("authentication cancelled");
      return this.saslPlain(text);
    }
    const parsed = parseCommand(line);
    if (!parsed.ok) return this.err(parsed.error);
    return this.dispatch(parsed.command);
  }

  /** The line was longer than the framing limit and was discarded. */
  lineTooLong(): void {
    if (this.awaitingSasl) this.awaitingSasl = false;
    this.err("line too long");
  }

  /** Autologout (RFC 1939 §3): no UPDATE state, so pending deletions are dropped. */
  idleTimeout(): void {
    if (this.state === "closed") return;
    this.err("[SYS/TEMP] autologout; idle for too long");
    this.end();
  }

  /** The inbox or its credentials went away: like autologout, nothing is applied. */
  private revoked(text: string): void {
    if (this.state === "closed") return;
    this.err(text);
    this.end();
  }

  /** Not logged in within the pre-auth timeout (counted from connect): the slot goes back. */
  loginTimeout(): void {
    if (this.state !== "authorization") return;
    this.err("[SYS/TEMP] log-in took too long");
    this.end();
  }

  /** The server shuts down: like autologout, nothing is applied. */
  shutdown(): void {
    if (this.state === "closed") return;
    this.err("[SYS/TEMP] server shutting down");
    this.end();
  }

  /** The connection went away (without QUIT): release resources, apply nothing. */
  disconnected(): void {
    this.release();
    this.state = "closed";
  }

  private async dispatch(c: Pop3Command): Promise<void> {
    switch (c.name) {
      case "CAPA":
        return this.capa();
      case "NOOP":
        return this.ok("");
      case "QUIT":
        return this.quit();
      case "STLS":
        return this.stls();
      case "USER":
      case "PASS":
      case "AUTH":
        if (this.state !== "authorization") return this.err("already logged in");
        if (!this.io.secure()) return this.err("[AUTH] log-in is only allowed over TLS; use STLS first");
        if (c.name === "USER") {
          this.user = c.user;
          return this.ok("send PASS");
        }
        if (c.name === "PASS") {
          if (this.user === null) return this.err("send USER first");
          const user = this.user;
          this.user = null;
          return this.login(user, c.password);
        }
        return this.auth(c.mechanism, c.initial);
    }
    if (this.state !== "transaction") return this.err("log in first (USER/PASS or AUTH PLAIN)");
    // The maildrop fills in the background after log-in (maildrop.ts); STAT answers from its counts.
    if (c.name !== "STAT" || this.deleted.size > 0) await this.drop!.ready;
    switch (c.name) {
      case "STAT":
        return this.ok(`${this.drop!.count - this.deleted.size} ${this.octets()}`);
      case "LIST":
      case "UIDL": {
        const drop = this.drop!;
        // A message deleted through another channel since log-in has no id left to show.
        const values = async (ns: number[]) =>
          c.name === "LIST" ? ns.map((n) => String(drop.size(n))) : (await drop.ids(ns)).map((id, k) => id || `deleted-${ns[k]}`);
        if (c.msg !== null) {
          const n = this.message(c.msg);
          return n ? this.ok(`${n} ${(await values([n]))[0]}`) : undefined;
        }
        const count = drop.count;
        this.io.send(`+OK ${count - this.deleted.size} messages${CRLF}`);
        // A chunk at a time (no list of every number): UIDL looks the ids up by UID, 500 per query.
        // LIST's chunks resolve without I/O, so the loop turns between them (a million lines held it 250 ms).
        // Between chunks the client's reading paces the answer (io.writable): written without
        // waiting, a million lines (11.6 MB) piled up unsent in the TLS socket, in memory.
        for (let from = 1; from <= count; from += 500) {
          if (from > 1) {
            await this.io.writable();
            await yieldToLoop();
          }
          if (this.closed) return;
          const ns: number[] = [];
          for (let n = from; n < from + 500 && n <= count; n++) if (!this.deleted.has(n)) ns.push(n);
          const vs = await values(ns);
          this.io.send(ns.map((n, k) => `${n} ${vs[k]}${CRLF}`).join(""));
        }
        this.io.send(`.${CRLF}`);
        return;
      }
      case "RETR":
      case "TOP": {
        const m = this.message(c.msg);
        if (!m) return;
        const raw = await this.drop!.raw(m);
        if (raw === null) return this.err(`message ${c.msg} was deleted through another channel`);
        if (c.name === "RETR") {
          this.retrieved.add(c.msg);
          this.io.send(`+OK ${transmittedSize(raw)} octets${CRLF}`);
          this.io.send(encodeMultiline(raw));
        } else {
          this.io.send(`+OK top of message follows${CRLF}`);
          this.io.send(encodeMultiline(raw, c.lines));
        }
        return;
      }
      case "DELE": {
        const m = this.message(c.msg);
        if (!m) return;
        this.deleted.add(c.msg);
        return this.ok(`message ${c.msg} deleted`);
      }
      case "RSET":
        this.deleted.clear();
        return this.ok(`maildrop has ${this.drop!.count} messages (${this.octets()} octets)`);
    }
  }

  private capa(): void {
    const caps = ["TOP", "UIDL", "RESP-CODES", "AUTH-RESP-CODE", "PIPELINING"];
    if (this.state === "authorization") {
      if (this.io.canStartTls()) caps.push("STLS");
      if (this.io.secure()) caps.push("USER", "SASL PLAIN");
    }
    caps.push("IMPLEMENTATION inboxd");
    this.io.send(`+OK capability list follows${CRLF}${caps.map((c) => c + CRLF).join("")}.${CRLF}`);
  }

  private stls(): void {
    if (this.state !== "authorization") return this.err("STLS is only allowed before log-in");
    if (this.io.secure()) return this.err("TLS is already active");
    if (!this.io.canStartTls()) return this.err("STLS is not offered on this port");
    this.user = null;
    this.ok("begin TLS negotiation");
    this.io.startTls();
  }

  private auth(mechanism: string | null, initial: string | null): Promise<void> | void {
    if (mechanism === null) {
      // The pre-RFC 5034 mechanism listing some clients (Outlook among them) still send.
      this.io.send(`+OK${CRLF}PLAIN${CRLF}.${CRLF}`);
      return;
    }
    if (mechanism !== "PLAIN") return this.err("unsupported mechanism; PLAIN is offered");
    if (initial === null) {
      this.awaitingSasl = true;
      this.io.send(`+ ${CRLF}`);
      return;
    }
    return this.saslPlain(initial);
  }

  private saslPlain(response: string): Promise<void> | void {
    const creds = decodeSaslPlain(response);
    if (!creds) return this.err("[AUTH] malformed PLAIN response");
    if (creds.authzid !== "" && creds.authzid.toLowerCase() !== creds.user.toLowerCase()) {
      return this.err("[AUTH] acting as another user is not supported");
    }
    return this.login(creds.user, creds.password);
  }

  private async login(user: string, password: string): Promise<void> {
    const r = await this.services.mailAccess.login(user, password, this.io.ip);
    if (!r.ok && r.retryAfter > 0) {
      recordLogin(this.ctx, "pop3", this.io.ip, user, "throttled");
      return this.err(`[SYS/TEMP] too many failed log-ins; try again in ${r.retryAfter} seconds`);
    }
    if (!r.ok) {
      recordLogin(this.ctx, "pop3", this.io.ip, user, "invalid");
      return this.err("[AUTH] invalid user name or password");
    }
    const inbox = r.inbox;
    if (!this.slots.acquire(inbox.id)) {
      recordLogin(this.ctx, "pop3", this.io.ip, user, "busy");
      return this.err("[IN-USE] too many open sessions on this inbox");
    }
    recordLogin(this.ctx, "pop3", this.io.ip, user, "ok");
    let drop: Maildrop;
    try {
      drop = await Maildrop.open(this.ctx, this.services, inbox);
    } catch (e) {
      this.slots.release(inbox.id);
      throw e;
    }
    if (this.state === "closed") {
      // The connection went away while the maildrop was read.
      this.slots.release(inbox.id);
      return;
    }
    this.drop = drop;
    this.state = "transaction";
    this.io.loggedIn();
    // The inbox deleted, or the password it logged in with rotated: -ERR and close at once, not at
    // the next command (a client holding the maildrop open must not keep reading it).
    const unsubscribe = this.ctx.bus.subscribe((e) => {
      if (e.type === "inbox.deleted" && e.inboxId === inbox.id) this.revoked("[SYS/PERM] the inbox was deleted");
    });
    const unwatch = this.services.revocations.watch(
      [`inbox:${inbox.id}`],
      `inbox:${inbox.id}:${password}`,
      () => this.services.mailAccess.stillValid(user, password),
      () => this.revoked("[AUTH] the inbox's credentials were revoked; log in again"),
    );
    this.unsubscribe = () => {
      unsubscribe();
      unwatch();
    };
    this.ok(`logged in; ${this.drop.count} messages (${this.drop.totalBytes} octets)`);
  }

  private async quit(): Promise<void> {
    if (this.state === "transaction") {
      let removed: number;
      try {
        removed = await this.drop!.commit([...this.deleted], [...this.retrieved]);
      } catch (e) {
        log.error({ err: e }, "pop3: update state failed");
        this.err("[SYS/TEMP] some deleted messages were not removed");
        return this.end();
      }
      this.ok(`inboxd signing off (${removed} messages deleted)`);
    } else {
      this.ok("inboxd signing off");
    }
    this.end();
  }

  /** The message numbered n, or null after answering -ERR (out of range or marked deleted). */
  private message(n: number): number | null {
    if (!(n >= 1 && n <= this.drop!.count)) {
      this.err(`no such message; the maildrop has ${this.drop!.count}`);
      return null;
    }
    if (this.deleted.has(n)) {
      this.err(`message ${n} is marked deleted`);
      return null;
    }
    return n;
  }

  /** Octets of the messages not marked deleted. */
  private octets(): number {
    let total = this.drop!.totalBytes;
    for (const n of this.deleted) total -= this.drop!.size(n);
    return total;
  }

  private release(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.drop && this.state !== "closed") this.slots.release(this.drop.inbox.id);
  }

  private end(): void {
    this.release();
    this.state = "closed";
    this.io.close();
  }

  private ok(text: string): void {
    this.io.send(text ? `+OK ${text}${CRLF}` : `+OK${CRLF}`);
  }

  private err(text: string): void {
    this.io.send(`-ERR ${text}${CRLF}`);
  }
}
