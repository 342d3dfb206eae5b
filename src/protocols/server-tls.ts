// The server side of TLS on an accepted socket: STARTTLS/STLS upgrades, and implicit TLS behind a
// PROXY header. Like the listeners (proxy/accept.ts), it stays writable after the client closes
// its side, so the replies to what the client sent before its FIN still reach it.
import type { Socket } from "node:net";
import tls from "node:tls";

export function serverTls(socket: Socket, secureContext: tls.SecureContext): tls.TLSSocket {
  // allowHalfOpen is passed on to the underlying net.Socket; @types/node leaves it out of TLSSocketOptions.
  const options: tls.TLSSocketOptions & { allowHalfOpen: boolean } = { isServer: true, secureContext, allowHalfOpen: true };
  return new tls.TLSSocket(socket, options);
}
