// Starts a real inboxd process (from source or the executable: command.ts) on port 0 with a fresh data directory and
// reads the chosen ports from its `listening <proto> <host>:<port>` lines. Nothing of ours is mocked.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { inboxdCommand } from "./command";
import { databaseEnv, knownDatabaseEnv } from "./test-database";
import { stopWhenOrphaned } from "./watchdog";

export const ROOT = resolve(import.meta.dir, "../..");
export const BOOTSTRAP_KEY = "isk_live_test_bootstrap_key_0123456789";
export const ADMIN_EMAIL = "admin@localhost";
export const ADMIN_PASSWORD = "admin-password-123";
/**
 * ADMIN_PASSWORD hashed once with Bun's argon2id defaults: instances get the owner's password as this
 * hash (INBOXD_ADMIN_PASSWORD_HASH), which spares each fresh start ~0.2 s of hashing; logging in costs
 * what it costs with INBOXD_ADMIN_PASSWORD. A test that sets INBOXD_ADMIN_PASSWORD gets that instead.
 */
export const ADMIN_PASSWORD_HASH =
  "$argon2id$v=19$m=65536,t=2,p=1$TGLih2za7wg7Nx1Ep1upK6bWKFg2aWibyHXlLLY3DSE$FhpG+/Qaf+kP9+L+B8cJE87FmaJh3sXRyHj/J3wd2iA";

export interface Instance {
  url: string;
  ports: Record<string, number>;
  dataDir: string;
  key: string;
  env: Record<string, string>;
  proc: Subprocess;
  output: () => string;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
  /** SIGKILL (crash) and wait. */
  kill(): Promise<void>;
  /** Start again on the same data directory (new ports). */
  restart(): Promise<Instance>;
  /** Remove the data directory (after stop). */
  cleanup(): void;
  /** fetch against this instance with the bootstrap key (override with headers). */
  api(path: string, init?: RequestInit & { json?: unknown; token?: string | null; project?: string }): Promise<Response>;
}

/** The settings every test instance starts with: ports 0, the known key and password, no rate limit. */
export function testEnv(dataDir: string, env: Record<string, string> = {}): Record<string, string> {
  const owner: Record<string, string> = "INBOXD_ADMIN_PASSWORD" in env ? {} : { INBOXD_ADMIN_PASSWORD_HASH: ADMIN_PASSWORD_HASH };
  return {
    INBOXD_DATA_DIR: dataDir,
    INBOXD_HTTP_PORT: "0",
    INBOXD_SMTP_PORT: "0",
    INBOXD_IMAP_PORT: "0",
    INBOXD_POP3_PORT: "0",
    INBOXD_BOOTSTRAP_KEY: BOOTSTRAP_KEY,
    ...owner,
    INBOXD_RATE_LIMIT_RPS: "100000",
    INBOXD_RATE_LIMIT_BURST: "100000",
    // Tests are written against the contract's plans; INBOXD_PLAN: "" gives the self-hosted default.
    INBOXD_PLAN: "free",
    // Hundreds of instances start per suite run; compiling every route up front costs each ~0.5 s.
    INBOXD_HTTP_PRECOMPILE: "off",
    ...env,
  };
}

/**
 * Servers started here and not yet gone. A test or bench that ends early (process.exit, say a
 * bench whose peer is not installed) must not leave one running.
 */
const running = new Set<Subprocess>();
/**
 * Data directories made here, removed at the end whether or not their test called cleanup(): a day of
 * suite runs had left 583 of them (with their databases) in the temp directory.
 */
const madeDirs = new Set<string>();

function removeMadeDirs(): void {
  for (const dir of madeDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
      madeDirs.delete(dir);
    } catch {
      // A server still writing there (ENOTEMPTY): the others are removed all the same.
    }
  }
}

/**
 * The end of a test run: what is still running stops, then every directory made here goes. `bun test`
 * never emits the process's "exit" event, so the suite calls this from a global afterAll
 * (test/support/teardown.ts, preloaded by bunfig.toml).
 */
export async function releaseLeftovers(): Promise<void> {
  const stopping = [...running].map(async (p) => {
    p.kill("SIGTERM");
    const hard = setTimeout(() => p.kill("SIGKILL"), 5_000);
    await p.exited;
    clearTimeout(hard);
  });
  await Promise.all(stopping);
  removeMadeDirs();
}

// A bench (`bun bench/...`) does get "exit": no waiting there, so SIGTERM and remove what can be removed.
process.on("exit", () => {
  for (const p of running) p.kill("SIGTERM");
  removeMadeDirs();
});

/**
 * The certificate the first instance of this test process made at its first start, copied into each
 * data directory the harness makes afterwards: making one (an RSA key, then signing) cost every start
 * ~0.2-0.3 s. The server keeps a certificate it finds only when it covers the instance's names
 * (src/tls.ts). Not copied for a test that sets INBOXD_PUBLIC_HOST or INBOXD_TLS_CERT, nor into a data
 * directory the test passes (it starts as the test made it: a test of the first start passes an empty one).
 */
let madeCertificate: { cert: string; key: string } | null = null;

export async function startInboxd(
  env: Record<string, string> = {},
  dataDir?: string,
  command: readonly string[] = inboxdCommand(),
): Promise<Instance> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), "inboxd-test-"));
  if (dataDir === undefined) madeDirs.add(dir);
  // A test that names the certificate or the host it is for is about the certificate: nothing copied.
  const plain = dataDir === undefined && !env.INBOXD_PUBLIC_HOST && !env.INBOXD_TLS_CERT;
  if (plain && madeCertificate) {
    writeFileSync(join(dir, "tls.crt"), madeCertificate.cert, { mode: 0o600 });
    writeFileSync(join(dir, "tls.key"), madeCertificate.key, { mode: 0o600 });
  }
  // INBOXD_TEST_DATABASE=postgres: this directory's own database (test-database.ts); a test's own URL wins.
  const fullEnv = testEnv(dir, { ...(await databaseEnv(dir)), ...env });
  const proc = Bun.spawn([...command, "serve"], {
    cwd: ROOT,
    env: { ...process.env, ...fullEnv },
    stdout: "pipe",
    stderr: "pipe",
  });
  running.add(proc);
  void proc.exited.then(() => running.delete(proc));
  // A test process that dies (kill -9, a CI timeout) runs no teardown: its servers would live on,
  // reparented, holding their ports and directories (three were found running half an hour after such a run).
  stopWhenOrphaned(proc.pid, { signal: "TERM", dir: dataDir === undefined ? dir : null, keepDirWhileTestLives: true });
  let out = "";
  const ports: Record<string, number> = {};
  const decoder = new TextDecoder();
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) out += decoder.decode(chunk);
  };
  const done = Promise.all([pump(proc.stdout as ReadableStream<Uint8Array>), pump(proc.stderr as ReadableStream<Uint8Array>)]);
  const deadline = Date.now() + 20_000;
  while (!/^ready$/m.test(out)) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill("SIGKILL"); // one that never became ready is not left behind either
      await Promise.race([done, Bun.sleep(200)]);
      throw new Error(`inboxd did not start (exit ${proc.exitCode}):\n${out}`);
    }
    await Bun.sleep(10);
  }
  for (const m of out.matchAll(/^listening (\w+) [^\s]+:(\d+)$/gm)) ports[m[1]!] = Number(m[2]);
  const crt = join(dir, "tls.crt");
  const key = join(dir, "tls.key");
  if (plain && !madeCertificate && existsSync(crt) && existsSync(key)) {
    madeCertificate = { cert: readFileSync(crt, "utf8"), key: readFileSync(key, "utf8") };
  }
  const url = `http://127.0.0.1:${ports.http}`;
  const wait = async () => {
    await proc.exited;
    await done;
  };
  const inst: Instance = {
    url,
    ports,
    dataDir: dir,
    key: BOOTSTRAP_KEY,
    env: fullEnv,
    proc,
    output: () => out,
    stop: async () => {
      proc.kill("SIGTERM");
      await wait();
    },
    kill: async () => {
      proc.kill("SIGKILL");
      await wait();
    },
    restart: () => startInboxd(env, dir, command),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
    api: (path, init = {}) => {
      const headers = new Headers(init.headers);
      const token = init.token === undefined ? BOOTSTRAP_KEY : init.token;
      if (token) headers.set("authorization", `Bearer ${token}`);
      if (init.project) headers.set("x-service-project", init.project);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set("content-type", "application/json");
        body = JSON.stringify(init.json);
      }
      return fetch(url + path, { ...init, headers, body });
    },
  };
  return inst;
}

/** JSON body plus status, for terse assertions. */
export async function json(res: Response | Promise<Response>): Promise<{ status: number; body: any; headers: Headers }> {
  const r = await res;
  const text = await r.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: r.status, body, headers: r.headers };
}

/** Logs in the bootstrap owner (or another user) and returns a device token. */
export async function login(inst: Instance, email = ADMIN_EMAIL, password = ADMIN_PASSWORD): Promise<string> {
  const r = await json(inst.api("/v1/devices", { method: "POST", token: null, json: { email, password, name: "test" } }));
  if (r.status !== 201) throw new Error(`login failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data.token;
}

/** Runs `inboxd user add` against the instance's data directory. */
export async function addUser(inst: Instance, email: string, password: string, role: string, team?: string): Promise<string> {
  const args = [...inboxdCommand(), "user", "add", "--email", email, "--password", password, "--role", role];
  if (team) args.push("--team", team);
  const p = Bun.spawn(args, {
    cwd: ROOT,
    env: { ...process.env, INBOXD_DATA_DIR: inst.dataDir, ...knownDatabaseEnv(inst.dataDir) },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [o, e] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  if ((await p.exited) !== 0) throw new Error(`user add failed: ${o}${e}`);
  return o;
}

export const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
