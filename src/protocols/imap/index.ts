// The IMAP listeners: implicit TLS on INBOXD_IMAP_PORT, and optionally a plain port offering
// STARTTLS (INBOXD_IMAP_PLAIN_PORT, off by default). Both share one connection budget (in
// total, per inbox, and per client address before log-in) and one sweeper that says BYE to
// sessions idle beyond the timeout, or not logged in within the pre-auth timeout.
import { log } from "../../lib/log";
import type net from "node:net";
import type { Server, Socket } from "node:net";
import tls from "node:tls";
import { serverTls } from "../server-tls";
import type { AppContext } from "../../runtime/context";
import type { Services } from "../../services";
import type { Listener, ListenerFactory } from "../listener";
import { AddressSlots, refuse } from "../address-slots";
import { Session, type SessionHost } from "./session";
import { imapOptions, type ImapOptions } from "./options";
import { mailServer } from "../proxy/accept";

interface Shared {
  options: ImapOptions;
  sessions: Set<Session>;
  perInbox: Map<string, number>;
  preauth: AddressSlots;
  sweep: ReturnType<typeof setInterval> | null;
  servers: number;
}

const sharedByCtx = new WeakMap<AppContext, Shared>();

function shared(ctx: AppContext): Shared {
  let sh = sharedByCtx.get(ctx);
  if (!sh) {
    const options = imapOptions(ctx.config);
    sh = {
      options,
      sessions: new Set(),
      perInbox: new Map(),
      preauth: new AddressSlots(options.preauthPerAddress),
      sweep: null,
      servers: 0,
    };
    sharedByCtx.set(ctx, sh);
  }
  return sh;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      // Later errors (EMFILE under a connection flood, say) are logged; the listener stays up.
      server.on("error", (e) => log.error({ err: e }, "imap listener error"));
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

function accept(
  ctx: AppContext,
  services: Services,
  sh: Shared,
  socket: Socket,
  client: string | undefined,
  startTls: SessionHost["startTls"],
): void {
  socket.on("error", () => socket.destroy());
  if (sh.sessions.size >= sh.options.maxConnections) {
    refuse(socket, "* BYE Too many connections, try again later\r\n");
    return;
  }
  const slot = sh.preauth.claim(client);
  if (!slot) {
    refuse(socket, "* BYE [UNAVAILABLE] Too many connections not logged in from your address; try again later\r\n");
    return;
  }
  const host: SessionHost = {
    ctx,
    services,
    options: sh.options,
    secure: startTls === null,
    startTls,
    claimInbox(id) {
      const n = sh.perInbox.get(id) ?? 0;
      if (n >= sh.options.maxPerInbox) return false;
      sh.perInbox.set(id, n + 1);
      return true;
    },
    releaseInbox(id) {
      const n = (sh.perInbox.get(id) ?? 1) - 1;
      if (n <= 0) sh.perInbox.delete(id);
      else sh.perInbox.set(id, n);
    },
    loggedIn: () => slot.release(),
    onClose: (s) => {
      slot.release();
      sh.sessions.delete(s);
    },
  };
  ctx.metrics.connections.inc({ proto: "imap" });
  const s = new Session(socket, host, client);
  sh.sessions.add(s);
  s.greet();
}

/** Starts the idle sweeper with the first server, stops it with the last. */
function started(sh: Shared, server: Server, secure: boolean, proto: string, port: number): Listener {
  if (sh.servers++ === 0) {
    sh.sweep = setInterval(
      () => {
        const now = Date.now();
        for (const s of sh.sessions) {
          // Before log-in the clock runs from connect, not from the last line: a client that
          // never logs in cannot keep its slot by sending NOOPs.
          if (s.state === "not-authenticated" && now - s.connectedAt > sh.options.preauthTimeoutMs)
            void s.end("* BYE Autologout; log-in took too long");
          else if (now - s.lastActivity > sh.options.idleTimeoutMs) void s.end("* BYE Autologout; idle for too long");
        }
      },
      Math.min(30_000, Math.max(250, Math.min(sh.options.idleTimeoutMs, sh.options.preauthTimeoutMs) / 4)),
    );
    sh.sweep.unref?.();
  }
  return {
    proto,
    port,
    stop: async () => {
      if (--sh.servers === 0 && sh.sweep) clearInterval(sh.sweep);
      const mine = [...sh.sessions].filter((s) => (s.host.startTls === null) === secure);
      await Promise.allSettled(mine.map((s) => s.end("* BYE Server shutting down")));
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export const imapListener: ListenerFactory = async (ctx, services) => {
  const sh = shared(ctx);
  // Implicit TLS; a balancer's PROXY header, when configured, comes before the handshake.
  const server = mailServer({
    proto: "imap",
    tls: { cert: ctx.tls.cert, key: ctx.tls.key, handshakeTimeoutMs: 10_000 },
    proxyFrom: ctx.config.proxyProtocolFrom,
    badHeader: "",
    connection: (socket, client) => accept(ctx, services, sh, socket, client, null),
  });
  ctx.ports.imap = await listen(server, ctx.config.imapPort, ctx.config.host);
  return started(sh, server, true, "imap", ctx.ports.imap);
};

export const imapPlainListener: ListenerFactory = async (ctx, services) => {
  if (ctx.config.imapPlainPort === null) return null;
  const sh = shared(ctx);
  const secureContext = tls.createSecureContext({ cert: ctx.tls.cert, key: ctx.tls.key });
  const upgrade = (socket: Socket) => serverTls(socket, secureContext);
  const server = mailServer({
    proto: "imap",
    tls: null,
    proxyFrom: ctx.config.proxyProtocolFrom,
    badHeader: "* BYE Invalid PROXY protocol header\r\n",
    connection: (socket, client) => accept(ctx, services, sh, socket, client, upgrade),
  });
  const port = await listen(server, ctx.config.imapPlainPort, ctx.config.host);
  return started(sh, server, false, "imapplain", port);
};
