// The IMAP listeners: implicit TLS on INBOXD_IMAP_PORT, and optionally a plain port offering
// STARTTLS (INBOXD_IMAP_PLAIN_PORT, off by default). Both share one connection budget (in
// total and per inbox) and one sweeper that says BYE to sessions idle beyond the timeout.
import { log } from "../../lib/log";
import net, { type Server, type Socket } from "node:net";
import tls from "node:tls";
import type { AppContext } from "../../runtime/context";
import type { Services } from "../../services";
import type { Listener, ListenerFactory } from "../listener";
import { Session, type SessionHost } from "./session";
import { imapOptions, type ImapOptions } from "./options";

interface Shared {
  options: ImapOptions;
  sessions: Set<Session>;
  perInbox: Map<string, number>;
  sweep: ReturnType<typeof setInterval> | null;
  servers: number;
}

const sharedByCtx = new WeakMap<AppContext, Shared>();
const PREAUTH_TIMEOUT_MS = 60_000;
const HANDSHAKE_TIMEOUT_MS = 10_000;

function shared(ctx: AppContext): Shared {
  let sh = sharedByCtx.get(ctx);
  if (!sh) {
    sh = { options: imapOptions(ctx.config), sessions: new Set(), perInbox: new Map(), sweep: null, servers: 0 };
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

function accept(ctx: AppContext, services: Services, sh: Shared, socket: Socket, startTls: SessionHost["startTls"]): void {
  socket.on("error", () => socket.destroy());
  if (sh.sessions.size >= sh.options.maxConnections) {
    socket.end("* BYE Too many connections, try again later\r\n");
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
    onClose: (s) => sh.sessions.delete(s),
  };
  ctx.metrics.connections.inc({ proto: "imap" });
  const s = new Session(socket, host);
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
          // Before log-in a connection gets a minute at most: it costs a slot and has no right yet.
          const limit = s.state === "not-authenticated" ? Math.min(PREAUTH_TIMEOUT_MS, sh.options.idleTimeoutMs) : sh.options.idleTimeoutMs;
          if (now - s.lastActivity > limit) void s.end("* BYE Autologout; idle for too long");
        }
      },
      Math.min(30_000, Math.max(250, sh.options.idleTimeoutMs / 4)),
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
  const server = tls.createServer({ cert: ctx.tls.cert, key: ctx.tls.key, handshakeTimeout: HANDSHAKE_TIMEOUT_MS }, (socket) =>
    accept(ctx, services, sh, socket, null),
  );
  // Failed handshakes (scanners, plain-text clients on the TLS port) just drop the socket.
  server.on("tlsClientError", (_e, socket) => socket.destroy());
  ctx.ports.imap = await listen(server, ctx.config.imapPort, ctx.config.host);
  return started(sh, server, true, "imap", ctx.ports.imap);
};

export const imapPlainListener: ListenerFactory = async (ctx, services) => {
  if (ctx.config.imapPlainPort === null) return null;
  const sh = shared(ctx);
  const secureContext = tls.createSecureContext({ cert: ctx.tls.cert, key: ctx.tls.key });
  const upgrade = (socket: Socket) => new tls.TLSSocket(socket, { isServer: true, secureContext });
  const server = net.createServer((socket) => accept(ctx, services, sh, socket, upgrade));
  const port = await listen(server, ctx.config.imapPlainPort, ctx.config.host);
  return started(sh, server, false, "imapplain", port);
};
