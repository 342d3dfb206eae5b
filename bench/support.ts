// What the benchmarks share: command-line numbers, percentiles, the machine's load, a lean SMTP
// client, and MailDev started on loopback ports as the peer.
import type { Socket } from "bun";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { waitForPort } from "../test/support/net";

const ROOT = resolve(import.meta.dir, "..");

/** `--name N` from the command line, else `def`. */
export const arg = (name: string, def: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};

/** The p-th percentile (nearest rank) of the samples. */
export const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** The 1, 5 and 15 minute load averages, for the printed context of a run. */
export const loadAverage = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

export const machineLine = (): string =>
  `machine: ${availableParallelism()} cores, load average ${loadAverage()} (figures vary with other load on the machine)`;

const enc = new TextEncoder();
const latin1 = new TextDecoder("latin1");

/**
 * A lean SMTP client on Bun's native sockets, so that the figures measure the servers, not a
 * client library: replies counted by code, writes queued under backpressure; `send` may carry
 * several pipelined commands (RFC 2920) and waits for that many replies.
 */
export class SmtpClient {
  private text = "";
  private codes: number[] = [];
  private want = 0;
  private waiter: ((codes: number[]) => void) | null = null;
  private out: Uint8Array[] = [];
  last = "";
  private constructor(private socket: Socket<undefined>) {}

  static async open(port: number): Promise<SmtpClient> {
    let conn!: SmtpClient;
    await Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(s) {
          conn = new SmtpClient(s);
        },
        data(_s, chunk) {
          conn.onData(chunk);
        },
        drain() {
          conn.flushOut();
        },
        error(_s, e) {
          console.error("bench client socket error", e);
        },
      },
    });
    await conn.expect(1);
    await conn.send(enc.encode("EHLO bench.local\r\n"), 1);
    return conn;
  }

  private onData(chunk: Uint8Array): void {
    this.text += latin1.decode(chunk);
    let nl: number;
    while ((nl = this.text.indexOf("\n")) >= 0) {
      const line = this.text.slice(0, nl + 1);
      this.text = this.text.slice(nl + 1);
      if (line.charCodeAt(3) === 45 /* "-" continuation */) continue;
      this.codes.push(Number(line.slice(0, 3)));
      this.last = line;
    }
    if (this.waiter && this.codes.length >= this.want) {
      const w = this.waiter;
      this.waiter = null;
      w(this.codes.splice(0, this.want));
    }
  }

  /** The next n replies. */
  expect(n: number): Promise<number[]> {
    if (this.codes.length >= n) return Promise.resolve(this.codes.splice(0, n));
    this.want = n;
    return new Promise((r) => (this.waiter = r));
  }

  private flushOut(): void {
    while (this.out.length > 0) {
      const b = this.out[0]!;
      const n = this.socket.write(b);
      if (n < b.byteLength) {
        this.out[0] = b.subarray(Math.max(0, n));
        return;
      }
      this.out.shift();
    }
  }

  send(bytes: Uint8Array, replies: number): Promise<number[]> {
    this.out.push(bytes);
    if (this.out.length === 1) this.flushOut();
    return this.expect(replies);
  }

  /** One message, one command at a time; resolves at its 250. */
  async deliver(from: string, to: string, body: string): Promise<void> {
    const codes = await this.send(enc.encode(`MAIL FROM:<${from}>\r\nRCPT TO:<${to}>\r\nDATA\r\n`), 3);
    if (codes[0] !== 250 || codes[1] !== 250 || codes[2] !== 354) throw new Error(`envelope refused: ${codes} ${this.last}`);
    const [final] = await this.send(enc.encode(body + ".\r\n"), 1);
    if (final !== 250) throw new Error(`DATA refused: ${this.last}`);
  }

  close(): void {
    this.socket.end("QUIT\r\n");
  }
}

/**
 * A benchmark peer or tool from bench/node_modules (bench/package.json: not part of the default
 * install); exits with how to install it when missing.
 */
export function benchModule(path: string): string {
  const file = join(ROOT, "bench/node_modules", path);
  if (!existsSync(file)) {
    console.error(
      `${path.split("/")[0]} is not installed: run \`npm ci --prefix bench\` once (benchmark peers stay out of the default install)`,
    );
    process.exit(2);
  }
  return file;
}

/** Runs fn against a throw-away MailDev (bench/node_modules) on a loopback SMTP port. */
export async function withMaildev<T>(fn: (smtpPort: number) => Promise<T>): Promise<T> {
  const smtpPort = 20000 + Math.floor(Math.random() * 20000);
  const dir = mkdtempSync(join(tmpdir(), "maildev-bench-"));
  const proc = spawn(
    "node",
    [
      benchModule("maildev/dist/bin/maildev.js"),
      "--smtp",
      String(smtpPort),
      "--ip",
      "127.0.0.1",
      "--web",
      String(smtpPort + 1),
      "--web-ip",
      "127.0.0.1",
      "--mail-directory",
      dir,
      "--silent",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  try {
    await waitForPort(smtpPort);
    return await fn(smtpPort);
  } finally {
    proc.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Postfix's `smtp-source` against a loopback port: `messages` of 10 KB from 8 concurrent sessions. It
 * disconnects after every message unless `reuse` (its -d, "don't disconnect"); it speaks HELO, one
 * command per round trip. Wall time, whether it exited 0, and its last lines of stderr.
 */
export async function smtpSource(o: {
  port: number;
  to: string;
  messages: number;
  reuse: boolean;
}): Promise<{ seconds: number; ok: boolean; err: string }> {
  const args = ["-s", "8", "-m", String(o.messages), "-l", "10240", "-f", "bench@example.com", "-t", o.to];
  if (o.reuse) args.push("-d");
  args.push(`127.0.0.1:${o.port}`);
  const t0 = performance.now();
  const child = spawn("smtp-source", args, { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  child.stderr?.on("data", (d) => (err += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), 600_000);
  const status = await new Promise<number | null>((r) => child.on("close", r));
  clearTimeout(timer);
  return { seconds: (performance.now() - t0) / 1000, ok: status === 0, err: err.trim().split("\n").slice(-3).join(" | ") };
}

/** The whole machine's CPU time so far, from /proc/stat (Linux): busy and total jiffies over every core. */
export function machineCpu(): { busy: number; total: number } {
  const f = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - f[3]! - f[4]!, total };
}

/**
 * CPU of the whole machine (every process: the server, the load tool, the kernel) per message between two
 * machineCpu() readings, in µs, and how many of its cores were busy meanwhile.
 */
export function machinePerMessage(
  a: { busy: number; total: number },
  b: { busy: number; total: number },
  seconds: number,
  messages: number,
): { us: number; cores: number } {
  const cores = (cpus().length * (b.busy - a.busy)) / Math.max(1, b.total - a.total);
  return { us: (cores * seconds * 1e6) / messages, cores };
}

/** µs per clock tick of /proc's CPU times: USER_HZ is 100 on Linux. */
export const TICK_US = 1_000_000 / 100;

/** utime + stime of one thread of a process, in µs (Linux /proc); 0 once the thread has ended. */
function taskCpu(pid: number, tid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * TICK_US;
  } catch {
    return 0;
  }
}

/** A process's CPU so far per thread name (comm; the process's own thread is "main"), in µs. */
export function cpuByThread(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    let name = "?";
    try {
      name = readFileSync(`/proc/${pid}/task/${t}/comm`, "utf8").trim();
    } catch {}
    if (Number(t) === pid) name = "main";
    out.set(name, (out.get(name) ?? 0) + taskCpu(pid, Number(t)));
  }
  return out;
}
