// Loopback ports for components the tests and benchmarks start themselves (Dovecot, spamd,
// smtp-sink, MailDev): a free port to give them, and the wait until they accept connections.
import net from "node:net";

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
