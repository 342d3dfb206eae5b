// Inbound SMTP, our own (RFC 5321 with PIPELINING, 8BITMIME, SMTPUTF8, SIZE, CHUNKING/BDAT,
// BINARYMIME, ENHANCEDSTATUSCODES, STARTTLS with the server's certificate, AUTH PLAIN/LOGIN): the
// way mail gets into inboxes, on INBOXD_SMTP_PORT, and LMTP (RFC 2033) on INBOXD_LMTP_PORT when
// set. The 220 goes out as soon as a connection is accepted, unless a connect-time chaos rule fires
// (mail/smtp-chaos.ts: the 220 late, or 421 / 554 instead, on SMTP and LMTP alike). AUTH accepts any credentials unless
// INBOXD_SMTP_AUTH=require (docs/smtp.md). This file owns the listening sockets and the connection
// budget (in total, and per client address on SMTP: INBOXD_SMTP_MAX_PER_ADDRESS); parser.ts the syntax, session.ts a connection, commands/ one file per command,
// deliver.ts the end of a message. Replies:
//   RCPT to no live inbox            550 5.1.1
//   RCPT to a full inbox / team      452 4.2.2 / 452 4.3.1  (retention frees room: try later)
//   MAIL SIZE= or DATA over INBOXD_SMTP_MAX_BYTES  552 5.3.4
//   DATA that would overflow a quota 552 5.2.2
//   DATA stored                      250 2.0.0 stored <ids>, sent only after the commit (fsynced blob + row)
//   an inbox's fault-injection rule  its code and text at RCPT or at the end of DATA, after its
//                                    delay; nothing stored (mail/chaos.ts, docs/chaos.md)
import type net from "node:net";
import { log } from "../../lib/log";
import tls from "node:tls";
import type { AppContext } from "../../runtime/context";
import type { Services } from "../../services";
import type { Listener, ListenerFactory } from "../listener";
import { type AddressSlot, AddressSlots, refuse } from "../address-slots";
import { mailServer } from "../proxy/accept";
import { type SmtpHost, SmtpSession } from "./session";

/** Sessions get this long to finish what they are doing when the server stops. */
const CLOSE_TIMEOUT_MS = 2_000;

interface Shared {
  sessions: Set<SmtpSession>;
  /** SMTP connections per client address, and the slot each session holds. LMTP is not counted:
   *  its clients are the operator's own MTAs, all mail arriving from one address by design. */
  perAddress: AddressSlots;
  slotOf: Map<SmtpSession, AddressSlot>;
  secureContext: tls.SecureContext;
}

const sharedByCtx = new WeakMap<AppContext, Shared>();

function shared(ctx: AppContext): Shared {
  let sh = sharedByCtx.get(ctx);
  if (!sh) {
    sh = {
      sessions: new Set(),
      perAddress: new AddressSlots(ctx.config.smtpMaxPerAddress),
      slotOf: new Map(),
      secureContext: tls.createSecureContext({ cert: ctx.tls.cert, key: ctx.tls.key }),
    };
    sharedByCtx.set(ctx, sh);
  }
  return sh;
}

async function start(ctx: AppContext, services: Services, port: number, lmtp: boolean): Promise<Listener> {
  const { config } = ctx;
  const sh = shared(ctx);
  const mine = new Set<SmtpSession>();
  // The connect-time chaos rules are in memory before the first connection (none: the usual 220 at once).
  await services.smtpChaos.ready();
  const host: SmtpHost = {
    ctx,
    services,
    name: config.publicHost,
    lmtp,
    maxBytes: config.smtpMaxBytes,
    authRequired: config.smtpAuth === "require",
    idleMs: config.smtpIdleSeconds * 1000,
    secureContext: sh.secureContext,
    onClose(s) {
      sh.slotOf.get(s)?.release();
      sh.slotOf.delete(s);
      sh.sessions.delete(s);
      mine.delete(s);
    },
  };
  const connection = (socket: net.Socket, client: string | undefined) => {
    socket.on("error", () => socket.destroy());
    socket.setNoDelay(true);
    if (sh.sessions.size >= config.smtpMaxConnections) {
      refuse(socket, `421 4.7.0 ${config.publicHost} Error: too many connections; try again later\r\n`);
      return;
    }
    const slot = lmtp ? null : sh.perAddress.claim(client);
    if (slot === null && !lmtp) {
      refuse(socket, `421 4.7.0 ${config.publicHost} Error: too many connections from your address; try again later\r\n`);
      return;
    }
    ctx.metrics.connections.inc({ proto: lmtp ? "lmtp" : "smtp" });
    const s = new SmtpSession(socket, host, client);
    if (slot) sh.slotOf.set(s, slot);
    sh.sessions.add(s);
    mine.add(s);
    s.greet(services.smtpChaos.atConnect());
  };
  const server = mailServer({
    proto: lmtp ? "lmtp" : "smtp",
    tls: null,
    proxyFrom: config.proxyProtocolFrom,
    badHeader: `421 4.7.0 ${config.publicHost} Error: invalid PROXY protocol header\r\n`,
    connection,
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, config.host, () => {
      server.off("error", reject);
      // Later errors (EMFILE under a connection flood, say) are logged; the listener stays up.
      server.on("error", (e) => log.error({ err: e }, `${lmtp ? "lmtp" : "smtp"} listener error`));
      resolve();
    });
  });
  const bound = (server.address() as net.AddressInfo).port;
  return {
    proto: lmtp ? "lmtp" : "smtp",
    port: bound,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of mine) s.shutdown();
      const deadline = Date.now() + CLOSE_TIMEOUT_MS;
      while (mine.size > 0 && Date.now() < deadline) await Bun.sleep(20);
      for (const s of mine) s.destroy();
      await closed;
    },
  };
}

export const smtpListener: ListenerFactory = async (ctx, services) => {
  const l = await start(ctx, services, ctx.config.smtpPort, false);
  ctx.ports.smtp = l.port;
  return l;
};

export const lmtpListener: ListenerFactory = async (ctx, services) => {
  if (ctx.config.lmtpPort === null) return null;
  return start(ctx, services, ctx.config.lmtpPort, true);
};
