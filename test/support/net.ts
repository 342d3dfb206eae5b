// Loopback ports for components the tests and benchmarks start themselves (Dovecot, spamd,
// smtp-sink, MailDev): a free port to give them, and the wait until they accept connections; and a
// client that closes its sending side right after its input (half-close).
import net from "node:net";
import tls from "node:tls";

/** A port nothing listens on right now (the component binds it next). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

/** Whether something accepts connections on the loopback port now. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}

/** Resolves once something accepts connections on the port; throws after `ms`. */
export async function waitForPort(port: number, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await listening(port))) {
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port}`);
    await Bun.sleep(100);
  }
}

/**
 * Connects, writes `input` in one go and closes the sending side at once (FIN; close_notify then FIN over TLS), as
 * `printf … | nc -N` or a script that shuts down its socket would; then reads until the server closes. Resolves with
 * everything the server said (after TLS started), and whether it closed by itself within `ms` (false: still open).
 * `tls`: implicit TLS; `starttls`: say `say` in clear, wait for `until` (the go-ahead), then TLS on the same socket.
 */
export function sendThenShutWrite(
  port: number,
  input: string | Buffer,
  o: { tls?: boolean; starttls?: { say: string; until: RegExp }; ms?: number } = {},
): Promise<{ output: string; closedByServer: boolean }> {
  return new Promise((resolve) => {
    let output = "";
    let socket: net.Socket = net.connect(port, "127.0.0.1");
    const done = (closedByServer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ output, closedByServer });
    };
    const timer = setTimeout(() => done(false), o.ms ?? 15_000);
    const talk = (s: net.Socket) => {
      socket = s;
      s.write(input);
      s.end();
      s.on("data", (d: Buffer) => {
        output += d.toString("latin1");
      });
      s.on("error", () => {});
      s.once("close", () => done(true));
    };
    const secure = (raw?: net.Socket) => {
      const s = tls.connect({ ...(raw ? { socket: raw } : { port, host: "127.0.0.1" }), rejectUnauthorized: false });
      socket = s;
      s.once("secureConnect", () => talk(s));
    };
    if (o.tls) {
      socket.destroy();
      return secure();
    }
    const start = o.starttls;
    if (!start) return socket.once("connect", () => talk(socket));
    let clear = "";
    const onClear = (d: Buffer) => {
      clear += d.toString("latin1");
      if (!start.until.test(clear)) return;
      socket.off("data", onClear);
      secure(socket);
    };
    socket.on("data", onClear);
    socket.once("connect", () => socket.write(start.say));
  });
}
