// Inbound SMTP (smtp-server): the way mail gets into inboxes. STARTTLS with the server's
// certificate; 8BITMIME, SMTPUTF8, PIPELINING, SIZE. AUTH is optional and accepts any
// PLAIN/LOGIN credentials: it exists only for applications whose mailer insists on logging in
// (this is a test sink, not a relay; docs/smtp.md). Replies:
//   RCPT to no live inbox            550 5.1.1
//   RCPT to a full inbox / team      452 4.2.2 / 452 4.3.1  (retention frees room: try later)
//   DATA over INBOXD_SMTP_MAX_BYTES  552 5.3.4
//   DATA that would overflow a quota 552 5.2.2
//   DATA stored                      250, sent only after the commit (fsynced blob + row)
//   an inbox's fault-injection rule  its code and text at RCPT or at the end of DATA, after its
//                                    delay; nothing stored (mail/chaos.ts, docs/chaos.md)
import type { Socket } from "node:net";
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from "smtp-server";
import type { ListenerFactory } from "../listener";
import type { Recipient } from "../../mail/ingest";
import { InboxGone, QuotaExceeded } from "../../mail/ingest";
import type { ChaosReply } from "../../mail/chaos";

interface SessionState {
  recipients: Recipient[];
}

const stateOf = (session: SMTPServerSession): SessionState => {
  const s = session as SMTPServerSession & { inboxd?: SessionState };
  // smtp-server resets envelope per transaction but keeps the session object: reset on MAIL.
  return (s.inboxd ??= { recipients: [] });
};

/**
 * Buffers string writes on a connection's socket until the end of the current turn. Any other
 * write (bytes, a callback, TLS records after STARTTLS) and end() first send what is buffered,
 * so the order on the wire never changes.
 */
function coalesceReplies(socket: Socket): Socket {
  const write = socket.write;
  const end = socket.end;
  let pending: string | null = null;
  const flush = () => {
    if (pending === null) return;
    const text = pending;
    pending = null;
    if (!socket.destroyed && socket.writable) write.call(socket, text);
  };
  socket.write = function (this: Socket, chunk: unknown, ...rest: unknown[]) {
    if (typeof chunk === "string" && rest.length === 0) {
      if (pending === null) {
        pending = chunk;
        process.nextTick(flush);
      } else pending += chunk;
      return true;
    }
    flush();
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as Socket["write"];
  socket.end = function (this: Socket, ...args: unknown[]) {
    flush();
    return (end as (...a: unknown[]) => Socket).apply(this, args);
  } as Socket["end"];
  return socket;
}

const smtpError = (code: number, text: string) => Object.assign(new Error(text), { responseCode: code });

const isSmtpError = (e: unknown): e is Error & { responseCode: number } => e instanceof Error && "responseCode" in e;

/** An injected failure, after the rule's delay. */
const chaosError = async (reply: ChaosReply) => {
  if (reply.delayMs > 0) await Bun.sleep(reply.delayMs);
  return smtpError(reply.code, reply.text);
};

export const smtpListener: ListenerFactory = async (ctx, s) => {
  const { config } = ctx;
  const server = new SMTPServer({
    name: config.publicHost,
    banner: "inboxd test mail sink",
    key: ctx.tls.key,
    cert: ctx.tls.cert,
    size: config.smtpMaxBytes,
    authOptional: true,
    authMethods: ["PLAIN", "LOGIN"],
    allowInsecureAuth: true,
    disableReverseLookup: true,
    logger: false,
    maxClients: 1000,
    socketTimeout: 120_000,
    closeTimeout: 2_000,
    onAuth(auth, _session, cb) {
      cb(null, { user: auth.username ?? "anonymous" });
    },
    onMailFrom(_address, session, cb) {
      stateOf(session).recipients = [];
      cb();
    },
    onRcptTo(address, session, cb) {
      const addr = address.address;
      void (async () => {
        const inbox = await s.ingest.resolveRecipient(addr);
        if (!inbox) return cb(smtpError(550, `5.1.1 <${addr}>: no such inbox here`));
        const st = stateOf(session);
        if (st.recipients.some((r) => r.inbox.id === inbox.id)) return cb(); // one copy per inbox
        const injected = await s.chaos.atRcpt(inbox);
        if (injected) return cb(await chaosError(injected));
        const refusal = await s.ingest.checkRoom(inbox);
        if (refusal) {
          return cb(
            refusal.kind === "inbox"
              ? smtpError(452, `4.2.2 <${addr}>: mailbox full (inbox storage quota reached)`)
              : smtpError(452, `4.3.1 <${addr}>: team storage quota reached`),
          );
        }
        st.recipients.push({ inbox, address: addr.toLowerCase() });
        cb();
      })().catch((e) => {
        console.error("smtp: recipient lookup failed", e);
        cb(smtpError(451, "4.3.0 temporary failure looking up the recipient; try again"));
      });
    },
    onData(stream: SMTPServerDataStream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("error", (e) => cb(e));
      stream.on("end", () => {
        if (stream.sizeExceeded) {
          return cb(smtpError(552, `5.3.4 message exceeds the size limit of ${config.smtpMaxBytes} bytes`));
        }
        const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address || null : null;
        const recipients = stateOf(session).recipients;
        stateOf(session).recipients = [];
        // Fault injection first: a message that gets an injected failure is stored for no one.
        const outcome = (async () => {
          const injected = await s.chaos.atData(recipients.map((r) => r.inbox));
          if (injected) throw await chaosError(injected);
          return s.ingest.deliver(raw, from, recipients);
        })();
        outcome.then(
          (r) => cb(null, `2.0.0 stored ${r.messageIds.join(",")}`),
          (e) => {
            if (isSmtpError(e)) return cb(e);
            if (e instanceof QuotaExceeded) {
              return cb(smtpError(552, `5.2.2 ${e.refusal.kind} storage quota exceeded by this message`));
            }
            if (e instanceof InboxGone) return cb(smtpError(550, `5.1.1 <${e.address}>: inbox was deleted`));
            console.error("smtp: delivery failed", e);
            cb(smtpError(451, "4.3.0 temporary failure storing the message; try again"));
          },
        );
      });
    },
  });
  // Replies produced in one turn (a pipelined group's 250 for the message, then MAIL, RCPT and
  // DATA answers) leave in one write instead of four: each socket write is a syscall and a packet.
  const connect = server.connect.bind(server);
  server.connect = (socket: Socket, options: Parameters<typeof connect>[1]) => connect(coalesceReplies(socket), options);
  server.on("error", (e) => console.error("smtp: server error", e));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.smtpPort, config.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.server.address() as { port: number }).port;
  ctx.ports.smtp = port;
  return {
    proto: "smtp",
    port,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
