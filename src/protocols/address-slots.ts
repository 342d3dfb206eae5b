// Per-client-address connection counts for the mail listeners: how many connections (SMTP) or
// how many connections not logged in yet (IMAP, POP3) one address holds. Past the cap a new
// connection gets its protocol's "try later" and is closed, so one client holding idle sockets
// fills its own share and not the global cap every tenant shares (docs/security.md).
import { clientKey } from "../lib/client-address";
import type { Socket } from "node:net";

export class AddressSlots {
  private held = new Map<string, number>();

  constructor(private readonly cap: number) {}

  /** A slot for this remote address, or null when it already holds `cap` of them. */
  claim(remoteAddress: string | undefined): AddressSlot | null {
    const key = clientKey(remoteAddress);
    const n = this.held.get(key) ?? 0;
    if (n >= this.cap) return null;
    this.held.set(key, n + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const left = (this.held.get(key) ?? 1) - 1;
        if (left <= 0) this.held.delete(key);
        else this.held.set(key, left);
      },
    };
  }
}

/** One held slot; release() is idempotent, so log-in and close may both call it. */
export interface AddressSlot {
  release(): void;
}

/**
 * Answers a refused connection with its protocol's "try later" line and closes it. The socket is
 * destroyed shortly after even if the client never closes its side, so refusals hold no descriptor.
 */
export function refuse(socket: Socket, line: string): void {
  socket.end(line);
  setTimeout(() => socket.destroy(), 2000).unref();
}
