// The POP3 listeners: implicit TLS on INBOXD_POP3_PORT (995 in the Docker image) and, when
// INBOXD_POP3_PLAIN_PORT is set, a plain port offering STLS. This file owns sockets only:
// framing lines, pipelining order, back-pressure, idle and pre-auth timeouts and connection
// bounds (in total, and per client address before log-in). What the lines mean is session.ts.
import { log } from "../../lib/log";
import type net from "node:net";
import tls from "node:tls";
import { serverTls } from "../server-tls";
import type { AppContext } from "../../runtime/context";
import type { Services } from "../../services";
import type { Listener, ListenerFactory } from "../listener";
import { type AddressSlot, AddressSlots, refuse } from "../address-slots";
import { InboxSlots, Pop3Session, type SessionIo } from "./session";
import { MAX_LINE_BYTES } from "./parser";
import { mailServer } from "../proxy/accept";

/** Pipelined lines buffered before the socket stops being read. */
const MAX_QUEUED_LINES = 64;
/** Unsent answer bytes before command processing waits for the client to read. */
const MAX_UNSENT_BYTES = 1 << 20;
/** A TLS handshake must finish within this; the idle timeout only starts after it. */
const HANDSHAKE_TIMEOUT_MS = 30_000;

/** State shared by the TLS and the plain listener of one server. */
interface Shared {
  slots: InboxSlots;
  /** Connections not logged in yet, per client address. */
  preauth: AddressSlots;
  connections: Set<Connection>;
  secureContext: tls.SecureContext;
}

const sharedByCtx = new WeakMap<AppContext, Shared>();

function shared(ctx: AppContext): Shared {
  let s = sharedByCtx.get(ctx);
  if (!s) {
    s = {
      slots: new InboxSlots(ctx.config.pop3MaxPerInbox),
      preauth: new AddressSlots(ctx.config.pop3PreauthPerAddress),
      connections: new Set(),
      secureContext: tls.createSecureContext({ cert: ctx.tls.cert, key: ctx.tls.key }),
    };
    sharedByCtx.set(ctx, s);
  }
  return s;
}

class Connection {
  private socket: net.Socket;
  private secure: boolean;
  private upgraded = false;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;
  private queue: (Buffer | "overlong")[] = [];
  private pumping = false;
  /** The client closed its side (FIN); see onEnd. */
  private inputEnded = false;
  private preauthTimer: ReturnType<typeof setTimeout> | null;
  readonly session: Pop3Session;

  constructor(
    private readonly ctx: AppContext,
    services: Services,
    private readonly sh: Shared,
    socket: net.Socket,
    readonly implicitTls: boolean,
    private readonly preauthSlot: AddressSlot,
    /** The client's address: the socket's, or the one a trusted balancer's PROXY header named. */
    client: string | undefined,
  ) {
    this.socket = socket;
    this.secure = implicitTls;
    const ip = client ?? "unknown";
    const io: SessionIo = {
      ip,
      secure: () => this.secure,
      canStartTls: () => !implicitTls && !this.upgraded,
      send: (data) => {
        if (!this.socket.destroyed) this.socket.write(data);
      },
      writable: () => this.writable(),
      startTls: () => this.startTls(),
      close: () => this.close(),
      loggedIn: () => this.leavePreauth(),
    };
    // From connect, not from the last line: NOOPs before log-in do not keep the slot.
    this.preauthTimer = setTimeout(() => this.session.loginTimeout(), ctx.config.pop3PreauthSeconds * 1000);
    ctx.metrics.connections.inc({ proto: "pop3" });
    this.session = new Pop3Session(ctx, services, sh.slots, io);
    this.attach(socket);
  }

  start(): void {
    this.session.greeting();
  }

  private attach(socket: net.Socket): void {
    this.socket = socket;
    socket.setTimeout(this.ctx.config.pop3IdleSeconds * 1000);
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("timeout", () => this.session.idleTimeout());
    socket.on("error", () => socket.destroy());
    socket.on("end", () => this.onEnd(socket));
    socket.on("close", () => this.onClose(socket));
  }

  /** Flushes what was sent and closes the connection. */
  private close(): void {
    const s = this.socket;
    s.end();
    // A client that never closes its side does not keep the slot.
    setTimeout(() => s.destroy(), 5000).unref();
  }

  /**
   * The client closed its side (FIN): the commands it sent before are still answered (a QUIT
   * among them applies its deletions), then the connection closes. Without a QUIT nothing is
   * applied, as on any disconnect.
   */
  private onEnd(socket: net.Socket): void {
    if (socket !== this.socket) return;
    this.inputEnded = true;
    this.closeIfInputDone();
  }

  private closeIfInputDone(): void {
    if (this.inputEnded && !this.pumping && this.queue.length === 0 && !this.socket.destroyed && this.socket.writable) this.close();
  }

  private onClose(socket: net.Socket): void {
    // During STLS the plain socket is handed to TLS; only the outermost socket's close counts.
    if (socket !== this.socket) return;
    this.leavePreauth();
    this.session.disconnected();
    this.sh.connections.delete(this);
  }

  private leavePreauth(): void {
    if (this.preauthTimer) clearTimeout(this.preauthTimer);
    this.preauthTimer = null;
    this.preauthSlot.release();
  }

  /** Splits input into lines; a line beyond MAX_LINE_BYTES is dropped up to its LF and reported once. */
  private onData(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const lf = chunk.indexOf(0x0a, start);
      const end = lf < 0 ? chunk.length : lf;
      if (!this.discarding) {
        const piece = chunk.subarray(start, end);
        if (this.pendingBytes + piece.length > MAX_LINE_BYTES) {
          this.discarding = true;
          this.pending = [];
          this.pendingBytes = 0;
        } else {
          this.pending.push(piece);
          this.pendingBytes += piece.length;
        }
      }
      if (lf < 0) break;
      if (this.discarding) {
        this.queue.push("overlong");
        this.discarding = false;
      } else {
        this.queue.push(Buffer.concat(this.pending));
      }
      this.pending = [];
      this.pendingBytes = 0;
      start = lf + 1;
    }
    if (this.queue.length >= MAX_QUEUED_LINES) this.socket.pause();
    this.pump().catch((e) => {
      // Never an unhandled rejection: one broken connection must not take the server down.
      log.error({ err: e }, "pop3 connection failed");
      this.socket.destroy();
    });
  }

  /** Settles when the unsent answer bytes are under MAX_UNSENT_BYTES again, or the socket closed. */
  private writable(): Promise<void> {
    const socket = this.socket;
    if (socket.destroyed || socket.writableLength <= MAX_UNSENT_BYTES) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        socket.off("drain", done);
        socket.off("close", done);
        resolve();
      };
      socket.on("drain", done);
      socket.on("close", done);
    });
  }

  /** Runs queued commands strictly in order (PIPELINING), one at a time. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0 && !this.session.closed && !this.socket.destroyed) {
        if (this.socket.writableLength > MAX_UNSENT_BYTES) {
          await this.writable();
          continue;
        }
        const item = this.queue.shift()!;
        try {
          if (item === "overlong") this.session.lineTooLong();
          else await this.session.handleLine(item);
        } catch (e) {
          log.error({ err: e }, "pop3: command failed");
          if (!this.socket.destroyed) this.socket.write("-ERR [SYS/TEMP] internal error\r\n");
        }
        if (this.queue.length < MAX_QUEUED_LINES / 2 && this.socket.isPaused()) this.socket.resume();
      }
    } finally {
      this.pumping = false;
      this.closeIfInputDone();
    }
  }

  private startTls(): void {
    // Anything pipelined after STLS arrived in plain text and must not be acted on (RFC 2595 §3.1 spirit).
    this.queue = [];
    this.pending = [];
    this.pendingBytes = 0;
    this.discarding = false;
    const plain = this.socket;
    plain.removeAllListeners("data");
    plain.removeAllListeners("timeout");
    plain.setTimeout(0);
    const secure = serverTls(plain, this.sh.secureContext);
    this.upgraded = true;
    this.secure = true;
    this.attach(secure);
    // Not ended with the plain socket: under Bun that one reports 'close' as soon as the client closes its
    // side, while the TLS socket still carries the replies (half-close). The TLS socket closes on its own
    // ('end', a reset, the idle timeout).
  }

  /** Server stop: tell the client, then drop the connection. */
  shutdown(): void {
    this.session.shutdown();
    this.socket.destroy();
  }
}

async function listen(server: net.Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return (server.address() as net.AddressInfo).port;
}

function accept(
  ctx: AppContext,
  services: Services,
  sh: Shared,
  socket: net.Socket,
  client: string | undefined,
  implicitTls: boolean,
): void {
  socket.on("error", () => socket.destroy());
  if (sh.connections.size >= ctx.config.pop3MaxConnections) {
    refuse(socket, "-ERR [SYS/TEMP] too many connections; try again later\r\n");
    return;
  }
  const slot = sh.preauth.claim(client);
  if (!slot) {
    refuse(socket, "-ERR [SYS/TEMP] too many connections not logged in from your address; try again later\r\n");
    return;
  }
  const c = new Connection(ctx, services, sh, socket, implicitTls, slot, client);
  sh.connections.add(c);
  c.start();
}

function stopper(server: net.Server, sh: Shared, implicitTls: boolean): () => Promise<void> {
  return async () => {
    for (const c of sh.connections) if (c.implicitTls === implicitTls) c.shutdown();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}

export const pop3Listener: ListenerFactory = async (ctx, services): Promise<Listener> => {
  const sh = shared(ctx);
  // Implicit TLS; a balancer's PROXY header, when configured, comes before the handshake.
  const server = mailServer({
    proto: "pop3",
    tls: { cert: ctx.tls.cert, key: ctx.tls.key, handshakeTimeoutMs: HANDSHAKE_TIMEOUT_MS },
    proxyFrom: ctx.config.proxyProtocolFrom,
    badHeader: "",
    connection: (socket, client) => accept(ctx, services, sh, socket, client, true),
  });
  const port = await listen(server, ctx.config.host, ctx.config.pop3Port);
  ctx.ports.pop3 = port;
  return { proto: "pop3", port, stop: stopper(server, sh, true) };
};

export const pop3PlainListener: ListenerFactory = async (ctx, services): Promise<Listener | null> => {
  if (ctx.config.pop3PlainPort === null) return null;
  const sh = shared(ctx);
  const server = mailServer({
    proto: "pop3",
    tls: null,
    proxyFrom: ctx.config.proxyProtocolFrom,
    badHeader: "-ERR [SYS/TEMP] invalid PROXY protocol header\r\n",
    connection: (socket, client) => accept(ctx, services, sh, socket, client, false),
  });
  const port = await listen(server, ctx.config.host, ctx.config.pop3PlainPort);
  return { proto: "pop3plain", port, stop: stopper(server, sh, false) };
};
