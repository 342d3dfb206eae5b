// Helpers for the IMAP tests: inboxes with credentials, mail sent through the real SMTP
// listener, an imapflow client, and a raw TLS line client for byte-level assertions.
import net from "node:net";
import tls from "node:tls";
import { ImapFlow } from "imapflow";
import { json, type Instance } from "./harness";
import { createInbox, transport } from "./mail";

export interface Box {
  id: string;
  address: string;
  password: string;
}

export async function newBox(inst: Instance): Promise<Box> {
  const ib = await createInbox(inst);
  const cr = await json(inst.api(`/v1/inboxes/${ib.id}/credentials`));
  if (cr.status !== 200) throw new Error(`credentials: ${cr.status}`);
  return { id: ib.id, address: ib.address, password: cr.body.data.password };
}

/** Sends one message through SMTP (nodemailer) and resolves after the 250. */
export async function send(inst: Instance, to: string, mail: Record<string, unknown>): Promise<void> {
  const t = transport(inst);
  try {
    await t.sendMail({ from: "Sender Name <sender@example.com>", to, ...mail });
  } finally {
    t.close();
  }
}

export async function sendRawMail(inst: Instance, to: string, raw: string | Buffer): Promise<void> {
  const t = transport(inst);
  try {
    await t.sendMail({ envelope: { from: "sender@example.com", to: [to] }, raw });
  } finally {
    t.close();
  }
}

export function imapflow(inst: Instance, box: Box, opts: Record<string, unknown> = {}): ImapFlow {
  return new ImapFlow({
    host: "127.0.0.1",
    port: inst.ports.imap!,
    secure: true,
    tls: { rejectUnauthorized: false },
    auth: { user: box.address, pass: box.password },
    logger: false,
    ...opts,
  } as any);
}

export async function connected(inst: Instance, box: Box): Promise<ImapFlow> {
  const c = imapflow(inst, box);
  await c.connect();
  return c;
}

/** A raw IMAP connection over TLS: write bytes, read lines and tagged completions. */
export class RawImap {
  private buf = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  closed = false;

  private constructor(readonly socket: tls.TLSSocket) {
    socket.on("data", (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.wake();
    });
    socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
    socket.on("error", () => {});
  }

  private wake() {
    for (const w of this.waiters.splice(0)) w();
  }

  /**
   * `localAddress` picks the client address (any 127.x.y.z reaches a loopback listener on Linux);
   * `first` goes out in clear before the TLS handshake (a balancer's PROXY header).
   */
  static async open(port: number, localAddress?: string, first?: Buffer): Promise<RawImap> {
    let plain: net.Socket | undefined;
    if (first) {
      plain = net.connect({ host: "127.0.0.1", port, localAddress });
      plain.write(first);
    }
    // localAddress is passed on to net.connect; the TLS option types just do not list it.
    const socket = tls.connect({
      host: "127.0.0.1",
      port,
      rejectUnauthorized: false,
      localAddress,
      ...(plain ? { socket: plain } : {}),
    } as tls.ConnectionOptions);
    await new Promise<void>((res, rej) => {
      socket.once("secureConnect", () => res());
      socket.once("error", rej);
    });
    return new RawImap(socket);
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** Everything received up to and including the line that starts with `prefix`. */
  async until(prefix: string, timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = this.buf.toString("latin1");
      const re = new RegExp(`(^|\\r\\n)${prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[^\\r\\n]*\\r\\n`);
      const m = re.exec(text);
      if (m) {
        const end = m.index + m[0].length;
        const out = this.buf.subarray(0, end).toString("latin1");
        this.buf = this.buf.subarray(end);
        return out;
      }
      if (this.closed) throw new Error(`closed before "${prefix}"; got: ${text.slice(-500)}`);
      if (Date.now() > deadline) throw new Error(`timeout waiting for "${prefix}"; got: ${text.slice(-500)}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }

  /** Sends `tag command` and returns all output through the tagged completion. */
  async cmd(tag: string, command: string): Promise<string> {
    this.write(`${tag} ${command}\r\n`);
    return this.until(`${tag} `);
  }

  async login(box: Box): Promise<void> {
    await this.until("* OK");
    const r = await this.cmd("L1", `LOGIN "${box.address}" "${box.password}"`);
    if (!r.includes("L1 OK")) throw new Error(`login failed: ${r}`);
  }

  async waitClosed(timeoutMs = 10_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return this.closed;
  }

  pending(): string {
    return this.buf.toString("latin1");
  }

  close(): void {
    this.socket.destroy();
  }
}
