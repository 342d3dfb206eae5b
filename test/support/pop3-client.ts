// A minimal POP3 client for the tests: raw lines over TLS (or plain, for STLS), written from
// RFC 1939 independently of protocols/pop3 so it checks the server rather than mirroring it.
import net from "node:net";
import tls from "node:tls";
import nodemailer from "nodemailer";

export class Pop3Client {
  private buf = Buffer.alloc(0);
  /** Room that `buf` grows into (doubling), so a long answer is copied O(n) times, not O(n²). */
  private store = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  private ended = false;
  readonly closed: Promise<void>;
  private closeResolve!: () => void;

  private constructor(private socket: net.Socket) {
    this.closed = new Promise((r) => (this.closeResolve = r));
    this.wire(socket);
  }

  private wire(socket: net.Socket) {
    socket.on("data", (d: Buffer) => {
      this.append(d);
      this.wake();
    });
    const end = () => {
      this.ended = true;
      this.wake();
      this.closeResolve();
    };
    socket.on("end", end);
    socket.on("close", end);
    socket.on("error", end);
  }

  private wake() {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  static async connect(
    port: number,
    opts: { plain?: boolean; servername?: string; host?: string; localAddress?: string } = {},
  ): Promise<Pop3Client> {
    const host = opts.host ?? "127.0.0.1";
    const { localAddress } = opts;
    const socket = opts.plain
      ? net.connect({ port, host, localAddress })
      : // localAddress is passed on to net.connect; the TLS option types just do not list it.
        tls.connect({
          port,
          host,
          servername: opts.servername ?? "localhost",
          rejectUnauthorized: false,
          localAddress,
        } as tls.ConnectionOptions);
    await new Promise<void>((resolve, reject) => {
      socket.once(opts.plain ? "connect" : "secureConnect", () => resolve());
      socket.once("error", reject);
    });
    return new Pop3Client(socket);
  }

  get tlsSocket(): tls.TLSSocket {
    return this.socket as tls.TLSSocket;
  }

  /** Upgrades a plain connection after the server's +OK to STLS. */
  async upgrade(): Promise<void> {
    this.socket.removeAllListeners("data");
    this.socket.removeAllListeners("end");
    this.socket.removeAllListeners("close");
    const t = tls.connect({ socket: this.socket, servername: "localhost", rejectUnauthorized: false });
    await new Promise<void>((resolve, reject) => {
      t.once("secureConnect", () => resolve());
      t.once("error", reject);
    });
    this.socket = t;
    this.wire(t);
  }

  private append(d: Buffer): void {
    const have = this.buf.length;
    const end = this.buf.byteOffset + have - this.store.byteOffset;
    if (this.buf.buffer === this.store.buffer && end + d.length <= this.store.length) {
      d.copy(this.store, end);
      this.buf = this.store.subarray(end - have, end + d.length);
      return;
    }
    this.store = Buffer.allocUnsafeSlow(Math.max(65536, (have + d.length) * 2));
    this.buf.copy(this.store, 0);
    d.copy(this.store, have);
    this.buf = this.store.subarray(0, have + d.length);
  }

  private async waitData(timeoutMs: number): Promise<void> {
    if (this.ended) throw new Error(`connection closed; unread: ${JSON.stringify(this.buf.toString("latin1"))}`);
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timeout; unread: ${JSON.stringify(this.buf.toString("latin1"))}`)), timeoutMs);
      this.waiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  /** One response line without CRLF. */
  async line(timeoutMs = 10_000): Promise<string> {
    for (;;) {
      const i = this.buf.indexOf("\r\n");
      if (i >= 0) {
        const l = this.buf.subarray(0, i).toString("utf8");
        this.buf = this.buf.subarray(i + 2);
        return l;
      }
      await this.waitData(timeoutMs);
    }
  }

  /** The raw bytes of a multi-line body up to and including ".\r\n" (still dot-stuffed). */
  async multiRaw(timeoutMs = 10_000): Promise<Buffer> {
    // Searches only what arrived since the last look (a LIST of a million lines comes in hundreds of chunks).
    let searched = 0;
    for (;;) {
      const at = this.buf.subarray(0, 3).toString("latin1") === ".\r\n" ? 0 : this.buf.indexOf("\r\n.\r\n", Math.max(0, searched - 4));
      searched = this.buf.length;
      if (at >= 0) {
        const end = at === 0 ? 3 : at + 5;
        const body = this.buf.subarray(0, end);
        this.buf = this.buf.subarray(end);
        return Buffer.from(body);
      }
      await this.waitData(timeoutMs);
    }
  }

  write(data: string | Uint8Array): void {
    this.socket.write(data);
  }

  async cmd(command: string): Promise<string> {
    this.write(command + "\r\n");
    return this.line();
  }

  /** Sends a command with a multi-line answer; body is un-stuffed, with CRLF line ends. */
  async multi(command: string): Promise<{ status: string; body: Buffer; raw: Buffer }> {
    this.write(command + "\r\n");
    const status = await this.line();
    if (!status.startsWith("+OK")) return { status, body: Buffer.alloc(0), raw: Buffer.alloc(0) };
    const raw = await this.multiRaw();
    return { status, body: unstuff(raw), raw };
  }

  async login(user: string, password: string): Promise<string> {
    const u = await this.cmd(`USER ${user}`);
    if (!u.startsWith("+OK")) return u;
    return this.cmd(`PASS ${password}`);
  }

  /** True once the server has closed the connection. */
  isEnded(): boolean {
    return this.ended;
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Removes the terminating line and the dot-stuffing of a multi-line body. */
export function unstuff(raw: Buffer): Buffer {
  const s = raw.toString("latin1");
  const content = s === ".\r\n" ? "" : s.slice(0, -3);
  const lines = content.split("\r\n");
  const out = lines.map((l) => (l.startsWith(".") ? l.slice(1) : l)).join("\r\n");
  return Buffer.from(out, "latin1");
}

/** Sends raw RFC 5322 bytes through the instance's SMTP listener, as a real sender would. */
export async function sendRaw(smtpPort: number, to: string, raw: string | Buffer, from = "sender@example.com"): Promise<void> {
  const transport = nodemailer.createTransport({ host: "127.0.0.1", port: smtpPort, secure: false, ignoreTLS: true });
  try {
    await transport.sendMail({ envelope: { from, to: [to] }, raw });
  } finally {
    transport.close();
  }
}

/** A CRLF message with the given subject and body lines. */
export function rawMessage(to: string, subject: string, bodyLines: string[]): string {
  return (
    [
      "From: Sender <sender@example.com>",
      `To: ${to}`,
      `Subject: ${subject}`,
      `Message-ID: <${subject.replace(/\W/g, "")}.${Math.random().toString(36).slice(2)}@example.com>`,
      "Date: Sun, 22 Nov 2026 00:00:00 +0000",
      "MIME-Version: 1.0",
      "Content-Type: text/plain; charset=utf-8",
      "",
      ...bodyLines,
    ].join("\r\n") + "\r\n"
  );
}
