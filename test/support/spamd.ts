// A throw-away SpamAssassin spamd (Debian's `spamd`, when installed) on a loopback port, for the
// spam analysis tests. Rules are the packaged ones; no user configuration, no network tests needed.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { freePort, listening } from "./net";

export const SPAMD = "/usr/sbin/spamd";
export const haveSpamd = (): boolean => existsSync(SPAMD);

/** Starts spamd and resolves once it accepts connections (loading the rules takes a few seconds). */
export async function startSpamd(): Promise<{ port: number; stop(): void }> {
  const port = await freePort();
  const asRoot = process.getuid?.() === 0 ? ["-u", "nobody"] : [];
  const proc = spawn(
    SPAMD,
    [`--listen=127.0.0.1:${port}`, "--allowed-ips=127.0.0.1", "--nouser-config", "--max-children=2", "--syslog=stderr", ...asRoot],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let err = "";
  proc.stderr!.on("data", (d) => (err += d));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await listening(port);
    if (up) break;
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`spamd did not start: ${err.slice(-500)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { port, stop: () => proc.kill("SIGTERM") };
}
