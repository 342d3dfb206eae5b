// One IMAP connection: frames commands off the socket, runs them one at a time (pipelined
// commands queue), checks each against the session state, and writes responses with
// back-pressure. Bus events for the logged-in inbox mark the view stale; it is refreshed before
// the next tagged reply, or at once while the client IDLEs.
import { log } from "../../lib/log";
import type { Socket } from "node:net";
import type { AppContext } from "../../runtime/context";
import type { Services } from "../../services";
import type { InboxRow } from "../../mail/inboxes";
import type { BusEvent } from "../../lib/bus";
import { Framer, type Frame } from "./parser/framer";
import { ParseError, parseCommand, type Command } from "./parser/tokens";
import type { Mailbox } from "./mailbox";
import { forgetRaw } from "./raw-cache";
import { withExtraFlags } from "./extra-flags";
import { withModseq } from "./condstore";
import { commands, type SessionState } from "./commands";
import { REFUSED_LINE } from "./commands/types";
import { viewNeed } from "./view-need";
import type { ImapOptions } from "./options";

const FLUSH_AT = 128 * 1024;
/** Bytes of framed commands waiting to run before the socket stops being read. */
const QUEUE_BYTES = 4 * 1024 * 1024;

export interface SessionHost {
  ctx: AppContext;
  services: Services;
  options: ImapOptions;
  /** Whether the connection is already encrypted, and how to upgrade it if not (STARTTLS). */
  secure: boolean;
  startTls: ((socket: Socket) => Socket) | null;
  /** Per-inbox connection accounting; false = the inbox has too many sessions. */
  claimInbox(inboxId: string): boolean;
  releaseInbox(inboxId: string): void;
  /** The session logged in: it leaves its address's pre-auth share. */
  loggedIn(): void;
  onClose(s: Session): void;
}

/** Commands that never use the selected mailbox's sequence numbers: they need not wait for its view. */
const VIEWLESS = new Set([
  "CAPABILITY",
  "ID",
  "ENABLE",
  "NAMESPACE",
  "LIST",
  "LSUB",
  "STATUS",
  "SUBSCRIBE",
  "UNSUBSCRIBE",
  "SELECT",
  "EXAMINE",
  "LOGOUT",
]);

export class Session {
  state: SessionState | "logout" = "not-authenticated";
  inbox: InboxRow | null = null;
  private selected: Mailbox | null = null;
  /** The selected mailbox; replacing it stops the old view's background fill. */
  get mailbox(): Mailbox | null {
    return this.selected;
  }
  set mailbox(mb: Mailbox | null) {
    if (this.selected && this.selected !== mb) this.selected.stop();
    this.selected = mb;
  }
  /** A mailbox being opened by SELECT/EXAMINE: bus events are noted on it until it becomes `mailbox`. */
  opening: Mailbox | null = null;
  /** Client address, for the log-in failure limit. */
  readonly ip: string;
  lastActivity = Date.now();
  /** When the connection was accepted: log-in must follow within the pre-auth timeout. */
  readonly connectedAt = Date.now();
  idling = false;
  /** CONDSTORE / QRESYNC enabled (RFC 7162; condstore.ts). */
  condstore = false;
  qresync = false;
  /** Whether the connection is encrypted (implicit TLS, or after STARTTLS). */
  secure: boolean;

  private framer: Framer;
  private queue: Frame[] = [];
  private running = false;
  private lineWaiter: ((line: Buffer | null) => void) | null = null;
  /** The waiting command takes a refused line (readLine's takeRefused). */
  private waiterTakesRefused = false;
  private out: Buffer[] = [];
  private outLen = 0;
  private closed = false;
  /** The client closed its side (FIN); see onEnd. */
  private inputEnded = false;
  private dirty = false;
  private fullRefresh = false;
  private deferred: (() => Promise<void> | void)[] = [];
  private ownEvents = false;
  private unsubscribe: (() => void) | null = null;
  private unwatchCredential: (() => void) | null = null;
  private idleRefresh: ReturnType<typeof setTimeout> | null = null;

  constructor(
    public socket: Socket,
    readonly host: SessionHost,
    /** The client's address: the socket's, or the one a trusted balancer's PROXY header named. */
    client: string | undefined = socket.remoteAddress,
  ) {
    this.ip = client ?? "unknown";
    this.secure = host.secure;
    this.framer = new Framer(host.options.limits);
    this.attach(socket);
  }

  get ctx(): AppContext {
    return this.host.ctx;
  }

  get services(): Services {
    return this.host.services;
  }

  private attach(socket: Socket): void {
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("end", () => this.onEnd());
    socket.on("error", () => this.close());
    socket.on("close", () => this.close());
  }

  /**
   * The client closed its side (FIN): the commands it sent before are still run and answered,
   * then the connection closes. IDLE or AUTHENTICATE waiting for a line gets none.
   */
  private onEnd(): void {
    this.inputEnded = true;
    const w = this.lineWaiter;
    this.lineWaiter = null;
    w?.(null);
    this.closeIfInputDone();
  }

  private closeIfInputDone(): void {
    if (!this.inputEnded || this.running || this.queue.length > 0 || this.closed) return;
    this.flush().then(
      () => this.close(true),
      () => this.close(),
    );
  }

  greet(): void {
    const caps = this.capabilities().join(" ");
    void this.sendNow(`* OK [CAPABILITY ${caps}] inboxd IMAP4rev1 ready`);
  }

  capabilities(): string[] {
    const caps = [
      "IMAP4rev1",
      "LITERAL+",
      "SASL-IR",
      "ID",
      "ENABLE",
      "IDLE",
      "NAMESPACE",
      "UIDPLUS",
      "MULTIAPPEND",
      "UNSELECT",
      "CHILDREN",
      "MOVE",
      "SPECIAL-USE",
      "LIST-EXTENDED",
      "CONDSTORE",
      "QRESYNC",
      "ESEARCH",
    ];
    if (this.state === "not-authenticated") {
      if (!this.secure && this.host.startTls) caps.push("STARTTLS", "LOGINDISABLED");
      else caps.push("AUTH=PLAIN");
    }
    return caps;
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    this.lastActivity = Date.now();
    let frames: Frame[];
    try {
      frames = this.framer.push(chunk);
    } catch (e) {
      log.error({ err: e }, "imap framer failed");
      this.close();
      return;
    }
    this.queue.push(...frames);
    if (this.lineWaiter) {
      const line = this.nextLine(this.waiterTakesRefused);
      if (line !== undefined) {
        const w = this.lineWaiter;
        this.lineWaiter = null;
        w(line);
      }
    }
    // Pipelining without bound would buffer without bound: stop reading until the queue drains
    // (by count, and by bytes: pipelined APPENDs of 25 MB each).
    if (this.queue.length > 64 || this.queuedBytes() > QUEUE_BYTES) this.socket.pause();
    void this.run();
  }

  private queuedBytes(): number {
    let n = 0;
    for (const f of this.queue) if (f.kind === "command") n += f.bytes.length;
    return n;
  }

  /**
   * The next raw line from the client (IDLE's DONE, AUTHENTICATE's response), or null on close. A line the
   * framer refused (too long) is skipped, unless `takeRefused`: then it is REFUSED_LINE, so that AUTHENTICATE
   * answers it instead of waiting for a response the client already sent.
   */
  readLine(takeRefused = false): Promise<Buffer | null> {
    const line = this.nextLine(takeRefused);
    if (line !== undefined) return Promise.resolve(line);
    if (this.closed || this.inputEnded) return Promise.resolve(null);
    this.waiterTakesRefused = takeRefused;
    return new Promise((resolve) => (this.lineWaiter = resolve));
  }

  /** The first line queued for a waiting command; what was framed before it is not a command and is dropped. */
  private nextLine(takeRefused: boolean): Buffer | undefined {
    const i = this.queue.findIndex((f) => f.kind === "command" || (takeRefused && f.kind === "error" && !f.fatal));
    if (i < 0) return undefined;
    const f = this.queue.splice(0, i + 1).at(-1)!;
    return f.kind === "command" ? f.bytes : REFUSED_LINE;
  }

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length && !this.closed) {
        const f = this.queue.shift()!;
        if (this.queue.length < 16 && this.queuedBytes() <= QUEUE_BYTES) this.socket.resume();
        if (f.kind === "continue") await this.sendNow("+ Ready for literal data");
        else if (f.kind === "error") {
          await this.sendNow(`${f.tag} BAD ${f.message}`);
          if (f.fatal) await this.end("* BYE Protocol error");
        } else await this.execute(f.bytes);
      }
    } catch (e) {
      // Whatever went wrong (a database error while refreshing, say) ends this session, never the server.
      log.error({ err: e }, "imap session failed");
      void this.end("* BYE Internal error");
    } finally {
      this.running = false;
      this.closeIfInputDone();
    }
  }

  private async execute(bytes: Buffer): Promise<void> {
    let cmd: Command;
    try {
      cmd = parseCommand(bytes);
    } catch (e) {
      if (!(e instanceof ParseError)) throw e;
      await this.sendNow(`${e.tag} BAD ${e.message.replace(/[^\x20-\x7e]/g, "?")}`);
      return;
    }
    const def = commands.get(cmd.name);
    let reply: string;
    if (!def) reply = `BAD Unknown command ${cmd.name.slice(0, 30)}`;
    else if (this.state === "logout" || !def.states.includes(this.state)) reply = `BAD ${cmd.name} is not allowed in this state`;
    else {
      try {
        // The view of a fresh SELECT fills in the background (mailbox.ts); a command waits for the
        // part of it that it names (view-need.ts).
        const mb = VIEWLESS.has(cmd.name) ? null : this.mailbox;
        if (mb) await mb.readyFor(viewNeed(cmd));
        const ended = mb?.complete === false ? mb.commandRuns() : null;
        try {
          reply = await def.run(this, cmd);
        } finally {
          ended?.();
        }
      } catch (e) {
        if (e instanceof ParseError) reply = `BAD ${e.message}`;
        else {
          log.error({ err: e }, `imap ${cmd.name} failed`);
          reply = "NO [SERVERBUG] Internal error";
        }
      }
    }
    if (this.closed) return;
    // EXPUNGE may not be announced while answering FETCH, STORE or SEARCH (sequence numbers
    // would shift under the client); the UID forms are exempt.
    const expungeOk = cmd.uid || !["FETCH", "STORE", "SEARCH"].includes(cmd.name);
    // After BYE nothing more about the mailbox (imaptest counts it an error: the view is gone).
    if (this.state !== "logout") await this.pushUpdates(expungeOk);
    // Replies may quote client input (an unknown item, say): keep them printable ASCII.
    if (reply) await this.write(`${cmd.tag} ${reply.replace(/[^\x20-\x7e]/g, "?")}\r\n`);
    await this.flush();
    await this.runAfterReply();
    if (this.state === "logout") this.close(true);
  }

  /** Queues the untagged responses that describe what changed since the client last heard. */
  async pushUpdates(allowExpunge: boolean): Promise<void> {
    const mb = this.mailbox;
    // While the view still fills (a command ran on its filled part), the updates wait for the next
    // command that needs it whole: a refresh compares the whole view.
    if (!mb || !this.dirty || !mb.complete) return;
    this.dirty = false;
    const full = this.fullRefresh;
    this.fullRefresh = false;
    const lines = await withModseq(this, await withExtraFlags(this, await mb.refresh(allowExpunge, full)));
    if (!allowExpunge && mb.hasGone) this.dirty = true;
    for (const l of lines) this.queueOut(l + "\r\n");
  }

  /**
   * Work that may follow the tagged reply but must precede the next command (nothing else of this
   * session runs in between, and it runs before the event loop serves anyone else).
   */
  afterReply(fn: () => Promise<void> | void): void {
    this.deferred.push(fn);
  }

  private async runAfterReply(): Promise<void> {
    const fns = this.deferred;
    this.deferred = [];
    for (const fn of fns) await fn();
  }

  /** Asks for a refresh before the next reply; `full` compares every row instead of what the bus reported. */
  markDirty(full = false): void {
    this.dirty = true;
    if (full) this.fullRefresh = true;
  }

  // -- Output ---------------------------------------------------------------------------

  private queueOut(data: string | Buffer): void {
    const b = typeof data === "string" ? Buffer.from(data, "latin1") : data;
    this.out.push(b);
    this.outLen += b.length;
  }

  /** Buffers output; flushes (and waits for the socket) once enough has piled up. */
  async write(data: string | Buffer): Promise<void> {
    if (this.closed) return;
    this.queueOut(data);
    if (this.outLen >= FLUSH_AT) await this.flush();
  }

  /** Like write() for the pieces of one response; one await at most (the hot path of FETCH). */
  writeAll(parts: (string | Buffer)[]): Promise<void> | void {
    if (this.closed) return;
    for (const p of parts) this.queueOut(p);
    if (this.outLen >= FLUSH_AT) return this.flush();
  }

  async flush(): Promise<void> {
    if (this.outLen === 0 || this.closed) return;
    const buf = this.out.length === 1 ? this.out[0]! : Buffer.concat(this.out, this.outLen);
    this.out = [];
    this.outLen = 0;
    this.lastActivity = Date.now();
    if (this.socket.write(buf)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.socket.off("drain", done);
        this.socket.off("close", done);
        resolve();
      };
      this.socket.on("drain", done);
      this.socket.on("close", done);
    });
  }

  async sendNow(line: string): Promise<void> {
    await this.write(line + "\r\n");
    await this.flush();
  }

  /** Says goodbye and closes, without waiting on a client that no longer reads. */
  async end(bye: string): Promise<void> {
    if (this.closed) return;
    this.queueOut(bye + "\r\n");
    const buf = Buffer.concat(this.out, this.outLen);
    this.out = [];
    this.outLen = 0;
    this.socket.write(buf);
    this.close(true);
  }

  // -- Log-in and the bus -----------------------------------------------------------------

  /** Completes a successful log-in; false if the inbox already has too many sessions. */
  authenticated(inbox: InboxRow): boolean {
    if (!this.host.claimInbox(inbox.id)) return false;
    this.inbox = inbox;
    this.state = "authenticated";
    // APPEND carries whole messages: once logged in, literals up to the size SMTP accepts (1 MB before).
    const max = this.ctx.config.smtpMaxBytes;
    const limits = this.host.options.limits;
    this.framer.setLimits({
      ...limits,
      maxLiteral: Math.max(limits.maxLiteral, max),
      maxCommand: Math.max(limits.maxCommand, max + limits.maxLine),
    });
    this.host.loggedIn();
    this.unsubscribe = this.ctx.bus.subscribe((e) => this.onBus(e));
    return true;
  }

  /**
   * Ends the session (BYE) when the password it logged in with stops working: the inbox's
   * credentials rotated, or the inbox deleted on another node (tenancy/revocation.ts).
   */
  watchCredential(username: string, password: string): void {
    const id = this.inbox!.id;
    this.unwatchCredential = this.services.revocations.watch(
      [`inbox:${id}`],
      `inbox:${id}:${password}`,
      () => this.services.mailAccess.stillValid(username, password),
      () => void this.end("* BYE The inbox's credentials were revoked; log in again"),
    );
  }

  /** Publishes events this session caused itself; its own view already shows them. */
  publishOwn(events: BusEvent[]): void {
    this.ownEvents = true;
    try {
      for (const e of events) this.ctx.bus.publish(e);
    } finally {
      this.ownEvents = false;
    }
  }

  private onBus(e: BusEvent): void {
    if (this.ownEvents && e.type === "message.flags") return;
    if (!this.inbox || !("inboxId" in e) || e.inboxId !== this.inbox.id) return;
    if (e.type === "inbox.deleted") {
      void this.end("* BYE The inbox was deleted");
      return;
    }
    const mb = this.mailbox ?? this.opening;
    if (e.type === "message.received") mb?.noteArrived();
    else if (e.type === "message.deleted") {
      // A UID names a message within its mailbox: another mailbox's deletion of the same UID is not ours.
      if (!mb || e.mailboxId !== mb.folderId) return;
      mb.noteDeleted(e.uid);
      const gone = mb?.detailsOf(e.uid);
      if (gone) forgetRaw(gone.blob_key);
    } else if (e.type === "message.flags") mb?.noteFlags(e.messageId);
    else return;
    this.dirty = true;
    if (this.idling && !this.idleRefresh) {
      // Coalesces a burst (e.g. a bulk delete) into one refresh.
      this.idleRefresh = setTimeout(() => {
        this.idleRefresh = null;
        if (!this.idling || this.closed) return;
        this.pushUpdates(true).then(
          () => void this.flush(),
          (err) => {
            log.error({ err: err }, "imap idle refresh failed");
            void this.end("* BYE Internal error");
          },
        );
      }, 15);
    }
  }

  /** Replaces the socket after STARTTLS; the framer starts afresh (no plaintext is carried over). */
  upgrade(secure: Socket): void {
    this.socket.removeAllListeners("data");
    this.socket.removeAllListeners("end");
    this.socket.removeAllListeners("close");
    this.socket.removeAllListeners("error");
    this.framer = new Framer(this.host.options.limits);
    this.queue = [];
    this.socket = secure;
    this.secure = true;
    this.attach(secure);
  }

  /** graceful: end the socket after what was written (BYE) instead of cutting it off. */
  close(graceful = false): void {
    if (this.closed) return;
    this.closed = true;
    this.runAfterReply().catch((e) => log.error({ err: e }, "imap deferred work failed"));
    this.state = "logout";
    // Deferred work above may still use the view; only its background fill stops.
    this.selected?.stop();
    this.opening?.stop();
    this.unsubscribe?.();
    this.unwatchCredential?.();
    if (this.idleRefresh) clearTimeout(this.idleRefresh);
    if (this.inbox) this.host.releaseInbox(this.inbox.id);
    this.lineWaiter?.(null);
    this.lineWaiter = null;
    this.queue = [];
    if (graceful) {
      const sock = this.socket;
      sock.end();
      setTimeout(() => sock.destroyed || sock.destroy(), 2000).unref?.();
    } else if (!this.socket.destroyed) this.socket.destroy();
    this.host.onClose(this);
  }

  get isClosed(): boolean {
    return this.closed;
  }
}
