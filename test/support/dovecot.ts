// A throw-away Dovecot (when `dovecot-imapd` is installed) on loopback with implicit TLS, serving
// a Maildir that holds exactly the given messages: the reference for bench/imap.ts and for the
// IMAP parity test. User "bench", password "benchpass".
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, waitForPort } from "./net";

/** Dovecot's binaries are present and we may run it (it needs root to switch to the mail user). */
export function haveDovecot(): boolean {
  return process.getuid?.() === 0 && spawnSync("sh", ["-c", "command -v dovecot"]).status === 0 && existsSync("/usr/lib/dovecot/imap");
}

/** Starts Dovecot with a Maildir holding exactly `messages`. */
export async function startDovecot(messages: (string | Buffer)[], cert: string, key: string): Promise<{ port: number; stop(): void }> {
  const dir = mkdtempSync(join(tmpdir(), "imap-bench-dovecot-"));
  const maildir = join(dir, "Maildir");
  for (const sub of ["cur", "new", "tmp"]) mkdirSync(join(maildir, sub), { recursive: true });
  const now = Math.floor(Date.now() / 1000);
  messages.forEach((m, i) => writeFileSync(join(maildir, "cur", `${now}.M${i}P1.bench,S=${m.length}:2,`), m));
  spawnSync("chown", ["-R", "65534:65534", maildir]);
  chownSync(dir, 65534, 65534);
  writeFileSync(join(dir, "tls.crt"), cert);
  writeFileSync(join(dir, "tls.key"), key, { mode: 0o600 });
  const port = await freePort();
  writeFileSync(
    join(dir, "dovecot.conf"),
    `base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = required
ssl_cert = <${dir}/tls.crt
ssl_key = <${dir}/tls.key
auth_mechanisms = plain
disable_plaintext_auth = no
mail_location = maildir:${maildir}
passdb {
  driver = static
  args = password=benchpass
}
userdb {
  driver = static
  args = uid=65534 gid=65534 home=${dir}
}
service imap-login {
  inet_listener imap {
    port = 0
  }
  inet_listener imaps {
    port = ${port}
    ssl = yes
  }
}
service anvil {
  chroot =
}
service imap-login {
  chroot =
}
`,
  );
  const proc: ChildProcess = spawn("dovecot", ["-F", "-c", join(dir, "dovecot.conf")], { stdio: "ignore" });
  try {
    await waitForPort(port, 10_000);
  } catch (e) {
    proc.kill("SIGKILL");
    const log = existsSync(join(dir, "dovecot.log")) ? readFileSync(join(dir, "dovecot.log"), "utf8") : "";
    throw new Error(`Dovecot did not start: ${(e as Error).message}\n${log.slice(-2000)}`);
  }
  return {
    port,
    stop: () => {
      proc.kill("SIGTERM");
      setTimeout(() => rmSync(dir, { recursive: true, force: true }), 500);
    },
  };
}
