// The listening socket of a mail protocol, with the PROXY protocol in front when
// INBOXD_PROXY_PROTOCOL_FROM lists balancers. A connection from a listed address must open with a
// PROXY header (v1 or v2); the client it names is the address the session sees. The header comes
// in clear before anything else, the TLS ClientHello included, so on the implicit-TLS ports the
// handshake is run here on the plain socket once the header is read (tls.Server would start it
// on the first byte). A listed balancer's connection without a valid header is closed: on a
// plain port after the protocol's own error line, on a TLS port silently (no TLS to speak in).
// Connections from other addresses are served as without the setting, and a header they send is
// not read as one (it reaches the protocol as a bad command).
import net, { type Socket } from "node:net";
import tls from "node:tls";
import { log } from "../../lib/log";
import { refuse } from "../address-slots";
import { parseProxyHeader, type ProxySource } from "./header";
import { serverTls } from "../server-tls";
import { isProxySource, type ProxySourceRange } from "../../lib/proxy-sources";

/** A balancer sends its header at once; this bounds a listed address that connects and says nothing. */
const HEADER_TIMEOUT_MS = 10_000;
/** A v2 header is at most 16 + 65535 bytes; nothing longer is kept waiting for its end. */
const HEADER_MAX = 16 + 0xffff;

export interface MailServerOptions {
  proto: string;
  /** Implicit TLS (IMAPS, POP3S); null on plain ports (SMTP, LMTP, the STARTTLS ports). */
  tls: { cert: string | Buffer; key: string | Buffer; handshakeTimeoutMs: number } | null;
  proxyFrom: readonly ProxySourceRange[];
  /** The protocol's own error line for a bad header, sent on a plain port before closing. */
  badHeader: string;
  /** A connection ready for the protocol (TLS done on TLS ports), with the client's address. */
  connection: (socket: Socket, client: string | undefined) => void;
}

/**
 * Plain connections stay open for writing when the client closes its side (FIN): a client that
 * pipes its commands and then shuts down its sending half (`nc -N`, a script) still gets every
 * reply. Each session closes its side once it has answered all input ('end').
 */
const HALF_OPEN = { allowHalfOpen: true };

export function mailServer(o: MailServerOptions): net.Server {
  if (o.proxyFrom.length === 0) {
    if (!o.tls) return net.createServer(HALF_OPEN, (s) => o.connection(s, s.remoteAddress));
    const { cert, key, handshakeTimeoutMs } = o.tls;
    const server = tls.createServer({ ...HALF_OPEN, cert, key, handshakeTimeout: handshakeTimeoutMs }, (s) =>
      o.connection(s, s.remoteAddress),
    );
    // Failed handshakes (scanners, plain-text clients on the TLS port) just drop the socket.
    server.on("tlsClientError", (_e, s) => s.destroy());
    return server;
  }
  const secureContext = o.tls ? tls.createSecureContext({ cert: o.tls.cert, key: o.tls.key }) : null;
  const handshakeTimeoutMs = o.tls?.handshakeTimeoutMs ?? 0;
  const ready = (raw: Socket, client: string | undefined) => {
    if (!secureContext) {
      o.connection(raw, client);
      raw.resume();
      return;
    }
    const s = serverTls(raw, secureContext);
    const drop = () => {
      clearTimeout(timer);
      s.destroy();
      raw.destroy();
    };
    const timer = setTimeout(drop, handshakeTimeoutMs);
    s.on("error", drop);
    s.once("secure", () => {
      clearTimeout(timer);
      s.off("error", drop);
      o.connection(s, client);
    });
  };
  return net.createServer(HALF_OPEN, (raw) => {
    raw.on("error", () => raw.destroy());
    if (!isProxySource(o.proxyFrom, raw.remoteAddress)) {
      raw.pause();
      ready(raw, raw.remoteAddress);
      return;
    }
    readHeader(raw, (result) => {
      if (typeof result === "string") {
        log.warn({ proto: o.proto, balancer: raw.remoteAddress, reason: result }, "PROXY header refused; connection closed");
        if (secureContext) raw.destroy();
        else refuse(raw, o.badHeader);
        return;
      }
      ready(raw, result?.address ?? raw.remoteAddress);
    });
  });
}

/**
 * Reads the header off `raw` and hands back the client it names (null: none named, the
 * connection's own address stands) or why it was refused. The bytes after the header are put
 * back (unshift) and the socket left paused for the protocol.
 */
function readHeader(raw: Socket, done: (result: ProxySource | null | string) => void): void {
  let buf: Buffer = Buffer.alloc(0);
  const finish = (result: ProxySource | null | string) => {
    clearTimeout(timer);
    raw.off("data", onData);
    raw.off("end", onEnd);
    raw.off("close", onClose);
    done(result);
  };
  const onData = (chunk: Buffer) => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    const r = parseProxyHeader(buf);
    if (r.status === "more") {
      if (buf.length > HEADER_MAX) finish("PROXY header too long");
      return;
    }
    raw.pause();
    if (r.status === "invalid") return finish(r.reason);
    if (buf.length > r.length) raw.unshift(buf.subarray(r.length));
    finish(r.source);
  };
  const onEnd = () => finish("closed before a PROXY header");
  // Gone without a word (reset): nothing to answer.
  const onClose = () => {
    clearTimeout(timer);
    raw.off("data", onData);
    raw.off("end", onEnd);
  };
  const timer = setTimeout(() => finish("no PROXY header in time"), HEADER_TIMEOUT_MS);
  raw.on("data", onData);
  raw.on("end", onEnd);
  raw.once("close", onClose);
}
