// The command line as a user meets it: help on stdout with exit 0 (starting nothing), unknown flags and
// commands refused (exit 2), every setting a flag, the version, start-up failures in one line naming the
// setting, `user list|passwd`, `dump` + `import` byte for byte, `sendmail`, and the one-time sign-in link.
import { loadConfig } from "../../src/runtime/config";
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADMIN_EMAIL, ADMIN_PASSWORD, BOOTSTRAP_KEY, json, ROOT, startInboxd } from "../support/harness";
import { createInbox } from "../support/mail";
import { flagOf, SETTINGS } from "../../src/runtime/config";
import { withDatabase } from "../support/database-rows";
import { knownDatabaseEnv } from "../support/test-database";
import { inboxdCommand } from "../support/command";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `inboxd ARGS` with the INBOXD_* variables of this process removed (only `env` counts). */
async function cli(args: string[], env: Record<string, string> = {}, stdin?: string | Buffer): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("INBOXD_"))) as Record<string, string>;
  const p = Bun.spawn([...inboxdCommand(), ...args], {
    cwd: ROOT,
    // A directory an instance ran on keeps its database (INBOXD_TEST_DATABASE=postgres).
    env: { ...base, ...knownDatabaseEnv(env.INBOXD_DATA_DIR ?? ""), ...env },
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => p.kill("SIGKILL"), 20_000);
  const [stdout, stderr] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  const code = await p.exited;
  clearTimeout(timer);
  return { code, stdout, stderr };
}

const dirs: string[] = [];
const tmp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const ZERO_PORTS = { INBOXD_HTTP_PORT: "0", INBOXD_SMTP_PORT: "0", INBOXD_IMAP_PORT: "0", INBOXD_POP3_PORT: "0" };

/** One line, naming `name`, no stack frame. */
function expectOneLine(r: Run, name: string) {
  expect(r.code).not.toBe(0);
  const lines = (r.stdout + r.stderr).trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(name);
  expect(r.stderr).not.toMatch(/^\s+at /m);
}

const COMMANDS = [
  ["serve"],
  ["user", "add"],
  ["user", "list"],
  ["user", "passwd"],
  ["dump"],
  ["import"],
  ["sendmail"],
  ["mcp"],
  ["health"],
  ["version"],
  ["help"],
];

describe("help, flags, version", () => {
  test("--help (and -h, and `help CMD`) prints usage on stdout with exit 0 for every command, starting nothing", async () => {
    const dir = join(tmp("inboxd-help-"), "never-created");
    for (const cmd of COMMANDS) {
      for (const args of [
        [...cmd, "--help"],
        [...cmd, "-h"],
        ["help", ...cmd],
      ]) {
        const r = await cli(args, { INBOXD_DATA_DIR: dir, ...ZERO_PORTS });
        expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: "" });
        expect(r.stdout).toContain(`usage: inboxd ${cmd.join(" ")}`);
        expect(r.stdout).not.toContain("listening");
      }
    }
    for (const args of [["--help"], ["-h"], ["help"]]) {
      const r = await cli(args);
      expect(r.code).toBe(0);
      for (const cmd of COMMANDS) expect(r.stdout).toContain(cmd.join(" "));
    }
    for (const args of [
      ["user", "--help"],
      ["help", "user"],
    ]) {
      const r = await cli(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("inboxd user passwd");
    }
    const bare = await cli(["user"]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("inboxd user list");
    expect(existsSync(dir)).toBe(false);
  }, 120_000);

  test("serve --help lists every setting as a flag next to its variable", async () => {
    const r = await cli(["serve", "--help"]);
    for (const s of SETTINGS) expect(r.stdout).toContain(`  --${flagOf(s.env)} VALUE`.padEnd(40) + ` ${s.env}:`);
    expect(flagOf("INBOXD_SMTP_PORT")).toBe("smtp-port");
  });

  test("unknown flags, commands and stray arguments are refused with a message naming them (exit 2)", async () => {
    const cases: [string[], string][] = [
      [["serve", "--smtp-prot", "25"], "--smtp-prot"],
      [["--frobnicate"], "--frobnicate"],
      [["frob"], '"frob"'],
      [["user", "remove"], '"user remove"'],
      [["user", "list", "--email", "x@y"], "--email"],
      [["dump"], "DIR"],
      [["serve", "extra"], '"extra"'],
      [["mcp", "--data-dir", "x"], "--data-dir"],
      [["import", "x.eml"], "--inbox"],
      [["help", "serve", "extra"], '"extra"'],
    ];
    for (const [args, named] of cases) {
      const r = await cli(args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain(named);
    }
  });

  test("--version and `inboxd version`: package version, commit, Bun version", async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    for (const args of [["--version"], ["version"], ["serve", "--version"]]) {
      const r = await cli(args);
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toMatch(
        new RegExp(`^inboxd ${pkg.version.replace(/\./g, "\\.")} \\(commit ([0-9a-f]{7,40}(-dirty)?|unknown); bun \\d+\\.\\d+\\.\\d+`),
      );
    }
  });

  test("a flag is the setting: --http-port/--data-dir start the server as the variables do, and win over them", async () => {
    const dir = tmp("inboxd-flags-");
    const p = Bun.spawn(
      [...inboxdCommand(), "serve", "--data-dir", dir, "--http-port=0", "--smtp-port", "0", "--imap-port", "0", "--pop3-port", "0"],
      // The variables say otherwise; the flags win.
      { cwd: ROOT, env: { ...process.env, INBOXD_DATA_DIR: join(dir, "not-this"), INBOXD_HTTP_PORT: "1" }, stdout: "pipe", stderr: "pipe" },
    );
    let out = "";
    const reader = (async () => {
      for await (const chunk of p.stdout as ReadableStream<Uint8Array>) out += new TextDecoder().decode(chunk);
    })();
    const deadline = Date.now() + 20_000;
    while (!/^ready$/m.test(out) && Date.now() < deadline && p.exitCode === null) await Bun.sleep(20);
    expect(out).toMatch(/^listening http 127\.0\.0\.1:\d+$/m);
    expect(existsSync(join(dir, "inboxd.db"))).toBe(true);
    expect(existsSync(join(dir, "not-this"))).toBe(false);
    p.kill("SIGTERM");
    await p.exited;
    await reader;
    // A bad value given as a flag is named as the flag and its variable.
    const bad = await cli(["serve", "--plan", "platinum"]);
    expectOneLine(bad, "--plan (INBOXD_PLAN)");
    expect(bad.code).toBe(2);
  }, 60_000);
});

describe("start-up failures: one line naming the setting, no stack trace", () => {
  const listen = (port = 0) =>
    new Promise<Server>((resolve, reject) => {
      const s = createServer();
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => resolve(s));
    });

  test("a busy SMTP, IMAP or POP3 port", async () => {
    const blocker = await listen();
    const port = String((blocker.address() as { port: number }).port);
    for (const name of ["INBOXD_SMTP_PORT", "INBOXD_IMAP_PORT", "INBOXD_POP3_PORT", "INBOXD_HTTP_PORT"]) {
      const dir = tmp("inboxd-busy-");
      const r = await cli(["serve"], { INBOXD_DATA_DIR: dir, ...ZERO_PORTS, [name]: port });
      expectOneLine(r, name);
      expect(r.stderr).toContain("in use");
      // Nothing was bootstrapped: the next start prints the credentials.
      expect(existsSync(join(dir, "inboxd.db"))).toBe(false);
    }
    blocker.close();
  }, 60_000);

  test("a second server on the first one's ports refuses to start (no SO_REUSEPORT sharing)", async () => {
    const first = await startInboxd();
    try {
      for (const [name, proto] of [
        ["INBOXD_HTTP_PORT", "http"],
        ["INBOXD_SMTP_PORT", "smtp"],
        ["INBOXD_IMAP_PORT", "imap"],
        ["INBOXD_POP3_PORT", "pop3"],
      ] as const) {
        const r = await cli(["serve"], { INBOXD_DATA_DIR: tmp("inboxd-second-"), ...ZERO_PORTS, [name]: String(first.ports[proto]) });
        expectOneLine(r, name);
      }
      // The first one still answers every request itself.
      for (let i = 0; i < 12; i++) expect((await first.api("/v1/inboxes")).status).toBe(200);
    } finally {
      await first.stop();
      first.cleanup();
    }
  }, 60_000);

  test("a host this machine does not have (INBOXD_HOST=999.1.1.1, or --host)", async () => {
    expectOneLine(await cli(["serve"], { INBOXD_DATA_DIR: tmp("inboxd-host-"), ...ZERO_PORTS, INBOXD_HOST: "999.1.1.1" }), "INBOXD_HOST");
    expectOneLine(await cli(["serve", "--host", "999.1.1.1"], { INBOXD_DATA_DIR: tmp("inboxd-host-"), ...ZERO_PORTS }), "INBOXD_HOST");
  });

  test("two listeners on one port, a host or domain that is no name, a public URL that is no URL: refused before anything is bootstrapped", async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ INBOXD_HTTP_PORT: "61195", INBOXD_IMAP_PORT: "61195" }, "INBOXD_HTTP_PORT and INBOXD_IMAP_PORT are both 61195"],
      [{ INBOXD_SMTP_PORT: "61196", INBOXD_LMTP_PORT: "61196" }, "INBOXD_SMTP_PORT and INBOXD_LMTP_PORT are both 61196"],
      [{ INBOXD_MAIL_DOMAIN: "a..b" }, "INBOXD_MAIL_DOMAIN"],
      [{ INBOXD_MAIL_DOMAIN: "-bad-" }, "INBOXD_MAIL_DOMAIN"],
      [{ INBOXD_MAIL_DOMAIN: "10.0.0.1" }, "INBOXD_MAIL_DOMAIN"],
      [{ INBOXD_PUBLIC_HOST: "[" }, "INBOXD_PUBLIC_HOST"],
      [{ INBOXD_PUBLIC_HOST: "a:b" }, "INBOXD_PUBLIC_HOST"],
      [{ INBOXD_PUBLIC_URL: "inboxd.lab:8025" }, "INBOXD_PUBLIC_URL"],
      [{ INBOXD_PUBLIC_URL: "not a url" }, "INBOXD_PUBLIC_URL"],
      [{ INBOXD_PUBLIC_URL: "ftp://inboxd.lab" }, "INBOXD_PUBLIC_URL"],
    ];
    for (const [env, says] of cases) {
      const dir = tmp("inboxd-conf-");
      const r = await cli(["serve"], { INBOXD_DATA_DIR: dir, ...ZERO_PORTS, ...env });
      expect([JSON.stringify(env), r.code]).toEqual([JSON.stringify(env), 2]);
      expectOneLine(r, says);
      expect(existsSync(join(dir, "inboxd.db"))).toBe(false);
    }
    // What stays allowed: IPv6 and IPv4 hosts, a single-label public host, a URL with a path, port 0 twice.
    for (const env of [
      { INBOXD_HOST: "::1", INBOXD_PUBLIC_HOST: "localhost", INBOXD_PUBLIC_URL: "https://lab.example/inboxd/" },
      { INBOXD_HOST: "[::]", INBOXD_PUBLIC_HOST: "mail-1.lab.example", INBOXD_MAIL_DOMAIN: "Lab.Example" },
      { INBOXD_HOST: "0.0.0.0", INBOXD_PUBLIC_HOST: "192.168.1.20", ...ZERO_PORTS },
    ]) {
      expect(() => loadConfig(env)).not.toThrow();
    }
    expect(loadConfig({ INBOXD_PUBLIC_URL: "https://lab.example/inboxd/" }).publicUrl).toBe("https://lab.example/inboxd");
  }, 60_000);

  test("a data directory that cannot be written", async () => {
    const base = tmp("inboxd-ro-");
    writeFileSync(join(base, "a-file"), "");
    expectOneLine(await cli(["serve"], { INBOXD_DATA_DIR: join(base, "a-file", "data"), ...ZERO_PORTS }), "INBOXD_DATA_DIR");
    if (process.getuid?.() !== 0) {
      // (root writes anywhere, so this half runs only as another user)
      mkdirSync(join(base, "ro"));
      chmodSync(join(base, "ro"), 0o555);
      const r = await cli(["serve"], { INBOXD_DATA_DIR: join(base, "ro"), ...ZERO_PORTS });
      expectOneLine(r, "INBOXD_DATA_DIR");
      expect(r.stderr).toContain("permission denied");
    }
  });
});

describe("command failures: one line, no stack trace", () => {
  test("a TLS certificate that is not PEM stops the start before anything is bootstrapped", async () => {
    const dir = tmp("inboxd-tls-");
    const junk = join(dir, "junk.pem");
    writeFileSync(junk, "not a certificate\n");
    const r = await cli(["serve", "--tls-cert", junk, "--tls-key", junk], { INBOXD_DATA_DIR: join(dir, "data"), ...ZERO_PORTS });
    expectOneLine(r, "INBOXD_TLS_CERT");
    expect(r.stdout).not.toContain("bootstrap");
  });

  test("user add on a directory without inboxd data creates nothing; its bad values name the flag (exit 2)", async () => {
    const typo = join(tmp("inboxd-typo-"), "typo");
    const add = ["user", "add", "--data-dir", typo, "--email", "z@example.com", "--password", "secret123", "--role", "owner"];
    expectOneLine(await cli([...add, "--team", "X"]), "holds no inboxd data");
    expect(existsSync(typo)).toBe(false);
    const missing = await cli(["user", "add", "--data-dir", typo, "--email", "z@example.com"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--password is required");
    const email = await cli(["user", "add", "--data-dir", typo, "--email", "bad", "--password", "secret123", "--role", "admin"]);
    expect(email.code).toBe(2);
    expect(email.stderr).toContain("--email must be an email address");
    const short = await cli(["user", "passwd", "--data-dir", typo, "--email", "z@example.com", "--password", "x"]);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain("at least 8 characters");
  });

  test("health with nothing listening says where it looked (exit 1); a ready server: exit 0 and silent", async () => {
    const down = await cli(["health", "--http-port", "1"]);
    expectOneLine(down, "http://127.0.0.1:1/readyz");
    expect(down.code).toBe(1);
    const inst = await startInboxd();
    try {
      const up = await cli(["health", "--http-port", String(inst.ports.http)]);
      expect(up).toEqual({ code: 0, stdout: "", stderr: "" });
    } finally {
      await inst.stop();
      inst.cleanup();
    }
  });

  test("dump into a file or an impossible place, import of an empty file, and mcp with a URL that is none", async () => {
    const dir = tmp("inboxd-dump-bad-");
    const file = join(dir, "a-file");
    writeFileSync(file, "");
    expectOneLine(await cli(["dump", file], { INBOXD_DATA_DIR: dir }), "is a file");
    expectOneLine(await cli(["dump", join(file, "below")], { INBOXD_DATA_DIR: dir }), "cannot create");
    // An empty file to import is named as such, before any data directory is opened.
    expectOneLine(await cli(["import", "--inbox", "box@example.com", file], { INBOXD_DATA_DIR: dir }), `${file}: the file is empty`);
    const mcp = await cli(["mcp", "--url", "notaurl", "--key", "k"]);
    expectOneLine(mcp, "--url");
    expect(mcp.code).toBe(2);
  });

  test("a PostgreSQL that cannot be reached: the offline commands say so in one line naming the setting", async () => {
    const unreachable = { INBOXD_DATABASE_URL: "postgres://u:p@127.0.0.1:1/db", INBOXD_DATA_DIR: join(tmp("inboxd-pg-down-"), "data") };
    for (const args of [
      ["user", "list"],
      ["user", "passwd", "--email", "a@example.com"],
      ["dump", join(tmp("inboxd-pg-dump-"), "out")],
    ]) {
      expectOneLine(await cli(args, unreachable), "INBOXD_DATABASE_URL");
    }
    // The lock the dump took is given back.
    expect(existsSync(join(unreachable.INBOXD_DATA_DIR, "inboxd.lock"))).toBe(false);
  });
});

describe("secrets and the sign-in link", () => {
  // The generated ones are printed once: lifecycle.test.ts, "bootstrap".
  test("secrets given through the environment (key, password, secret key) are never printed", async () => {
    const secretKey = "ab".repeat(32);
    const inst = await startInboxd({ INBOXD_SECRET_KEY: secretKey, INBOXD_ADMIN_PASSWORD: ADMIN_PASSWORD });
    const out = inst.output();
    for (const secret of [BOOTSTRAP_KEY, ADMIN_PASSWORD, secretKey]) expect(out).not.toContain(secret);
    expect(out).toContain("bootstrap: owner admin@localhost password: (as configured, not shown)");
    await inst.stop();
    inst.cleanup();
  });

  test("a changed INBOXD_BOOTSTRAP_KEY replaces the bootstrap key: the old one is revoked, the same one kept across restarts", async () => {
    const first = await startInboxd();
    const dir = first.dataDir;
    const created = await json(first.api("/v1/api-keys", { method: "POST", json: { name: "ci", scopes: ["inboxes:read"] } }));
    expect(created.status).toBe(201);
    await first.stop();
    const same = await startInboxd({}, dir);
    expect((await same.api("/v1/inboxes")).status).toBe(200);
    expect(same.output()).not.toContain("is revoked");
    await same.stop();
    const rotated = "isk_live_rotated_bootstrap_key_0123456789";
    const second = await startInboxd({ INBOXD_BOOTSTRAP_KEY: rotated }, dir);
    try {
      expect((await second.api("/v1/inboxes", { token: rotated })).status).toBe(200);
      expect((await second.api("/v1/inboxes", { token: BOOTSTRAP_KEY })).status).toBe(401);
      expect(second.output()).toContain(`the previous bootstrap key …${BOOTSTRAP_KEY.slice(-4)} is revoked`);
      expect(second.output()).not.toContain(rotated);
      // Keys made by hand are not the bootstrap's.
      expect((await second.api("/v1/inboxes", { token: created.body.data.secret })).status).toBe(200);
    } finally {
      await second.stop();
      first.cleanup();
    }
  }, 60_000);

  test("the start-up sign-in link signs the owner in once, and only once", async () => {
    const inst = await startInboxd();
    try {
      const link = /^signin: (http:\/\/127\.0\.0\.1:(\d+)\/#signin=(iss_[A-Za-z0-9_-]+)) /m.exec(inst.output());
      expect(link).not.toBeNull();
      expect(Number(link![2])).toBe(inst.ports.http);
      const token = link![3]!;
      const first = await json(inst.api("/v1/signin", { method: "POST", token: null, json: { token, name: "browser" } }));
      expect(first.status).toBe(201);
      const session: string = first.body.data.token;
      expect(session).toMatch(/^isd_/);
      expect(first.body.data.name).toBe("browser");
      const me = await json(inst.api("/v1/me", { token: session }));
      expect(me.body.data).toMatchObject({ email: ADMIN_EMAIL, role: "owner" });
      const again = await json(inst.api("/v1/signin", { method: "POST", token: null, json: { token } }));
      expect(again.status).toBe(401);
      expect(again.body).toMatchObject({ code: "invalid_signin_link", details: {}, request_id: expect.any(String) });
      const forged = await json(inst.api("/v1/signin", { method: "POST", token: null, json: { token: "iss_forged" } }));
      expect(forged.status).toBe(401);
      const empty = await json(inst.api("/v1/signin", { method: "POST", token: null, json: {} }));
      expect(empty.status).toBe(422);
      expect(empty.body.code).toBe("validation_error");
      // The token is no credential by itself.
      expect((await inst.api("/v1/me", { token })).status).toBe(401);
      // The route is in the OpenAPI document with its schemas.
      const doc = (await json(inst.api("/openapi.json"))).body;
      expect(doc.paths["/v1/signin"].post.responses["201"]).toBeDefined();
    } finally {
      await inst.stop();
      inst.cleanup();
    }
    const quiet = await startInboxd({ INBOXD_SIGNIN_LINK: "off" });
    expect(quiet.output()).not.toContain("signin:");
    await quiet.stop();
    quiet.cleanup();
  }, 60_000);
});

test("a sign-in link is stored as a hash only and refused once expired (15 minutes)", async () => {
  const inst = await startInboxd();
  try {
    const token = /#signin=(iss_\S+) /.exec(inst.output())![1]!;
    const rows = await withDatabase(inst.dataDir, (db) => db.all<any>("SELECT token_hash, created_at, expires_at FROM signin_tokens"));
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).not.toContain(token.slice(4));
    expect(Date.parse(rows[0].expires_at) - Date.parse(rows[0].created_at)).toBe(15 * 60 * 1000);
    // Time moves on: the link has expired.
    await withDatabase(inst.dataDir, (db) => db.run("UPDATE signin_tokens SET expires_at = '2000-01-01T00:00:00.000Z'"));
    const late = await json(inst.api("/v1/signin", { method: "POST", token: null, json: { token } }));
    expect(late.status).toBe(401);
    expect(late.body.code).toBe("invalid_signin_link");
  } finally {
    await inst.stop();
    inst.cleanup();
  }
});

describe("user list and user passwd", () => {
  test("list shows every user; passwd sets a password (or generates one, printed once) and logs the user out", async () => {
    const inst = await startInboxd();
    try {
      const env = { INBOXD_DATA_DIR: inst.dataDir };
      const list = await cli(["user", "list"], env);
      expect(list.code).toBe(0);
      expect(list.stdout).toMatch(/^EMAIL\s+ROLE\s+TEAM\s+ID\s+CREATED$/m);
      expect(list.stdout).toMatch(new RegExp(`^${ADMIN_EMAIL}\\s+owner\\s+default\\s+[0-9A-Z]{26}\\s`, "m"));
      const asJson = JSON.parse((await cli(["user", "list", "--json"], env)).stdout);
      expect(asJson).toEqual([expect.objectContaining({ email: ADMIN_EMAIL, role: "owner", team: "default" })]);

      const device = (
        await json(inst.api("/v1/devices", { method: "POST", token: null, json: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } }))
      ).body.data.token;
      const set = await cli(["user", "passwd", "--email", ADMIN_EMAIL, "--password", "a-new-password"], env);
      expect(set.code).toBe(0);
      expect(set.stdout).not.toContain("a-new-password");
      const loginWith = (password: string) =>
        inst.api("/v1/devices", { method: "POST", token: null, json: { email: ADMIN_EMAIL, password } }).then((r) => r.status);
      expect(await loginWith(ADMIN_PASSWORD)).toBe(401);
      expect(await loginWith("a-new-password")).toBe(201);
      await Bun.sleep(5_100); // the server's credential cache (5 s)
      expect((await inst.api("/v1/me", { token: device })).status).toBe(401);

      const generated = await cli(["user", "passwd", "--email", ADMIN_EMAIL], env);
      expect(generated.code).toBe(0);
      const password = /new password \(shown once\): (\S+)/.exec(generated.stdout)?.[1];
      expect(password).toBeDefined();
      expect(await loginWith(password!)).toBe(201);

      const unknown = await cli(["user", "passwd", "--email", "nobody@x.test", "--password", "whatever-long"], env);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr.trim().split("\n")).toHaveLength(1);
      const short = await cli(["user", "passwd", "--email", ADMIN_EMAIL, "--password", "short"], env);
      expect(short.code).not.toBe(0);
      expect(short.stderr).toContain("8 characters");
    } finally {
      await inst.stop();
      inst.cleanup();
    }
  }, 60_000);
});

const MESSAGES = [
  Buffer.from("From: a@example.com\r\nTo: x@example.com\r\nSubject: one\r\n\r\nfirst body, CRLF\r\n"),
  Buffer.from(
    "From: b@example.com\nSubject: two\nX-8bit: caf\xc3\xa9\n\nFrom the start of a body line\n>From an escaped one\nno newline at the end",
    "latin1",
  ),
  Buffer.from(
    "From: c@example.com\r\nSubject: three\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\ncode 424242\r\n--b\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\nAAECAwQFBgcICQ==\r\n--b--\r\n",
  ),
];

describe("dump and import", () => {
  test("dump writes every message byte for byte with an index; import stores them back identically, envelopes too", async () => {
    const a = await startInboxd();
    const inbox = await createInbox(a, { name: "dumped", ttl_seconds: 3600 });
    const ids: string[] = [];
    for (const m of MESSAGES) {
      const r = await json(
        a.api(`/v1/inboxes/${inbox.id}/messages`, { method: "POST", headers: { "content-type": "message/rfc822" }, body: m }),
      );
      expect(r.status).toBe(201);
      ids.push(r.body.data.id);
    }
    const out = join(tmp("inboxd-dump-"), "artifacts");
    // Refused while the server runs on the data directory.
    const locked = await cli(["dump", out], { INBOXD_DATA_DIR: a.dataDir });
    expect(locked.code).toBe(1);
    expect(locked.stderr).toContain("stopped server");
    await a.stop();

    const dumped = await cli(["dump", out], { INBOXD_DATA_DIR: a.dataDir });
    expect(dumped.code).toBe(0);
    const index = JSON.parse(readFileSync(join(out, "index.json"), "utf8"));
    const mine = index.messages.filter((m: any) => m.inbox_id === inbox.id);
    expect(mine.map((m: any) => m.id)).toEqual(ids);
    mine.forEach((m: any, i: number) => {
      expect(m).toMatchObject({ inbox_address: inbox.address, size_bytes: MESSAGES[i]!.byteLength });
      expect(readFileSync(join(out, m.file)).equals(MESSAGES[i]!)).toBe(true);
    });
    expect(mine[0].subject).toBe("one");
    // A second dump into the same (non-empty) directory is refused.
    expect((await cli(["dump", out], { INBOXD_DATA_DIR: a.dataDir })).code).toBe(1);

    // Into another instance's existing inbox.
    const b = await startInboxd();
    const target = await createInbox(b, { name: "restored", ttl_seconds: 3600 });
    const whileRunning = await cli(["import", "--inbox", target.address, out], { INBOXD_DATA_DIR: b.dataDir });
    expect(whileRunning.code).toBe(1);
    expect(whileRunning.stderr).toContain("stopped server");
    await b.stop();
    const missing = await cli(["import", "--inbox", "nobody@nowhere.test", out], { INBOXD_DATA_DIR: b.dataDir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("nobody@nowhere.test");
    // The envelope comes from the dump's index.json: as if the first message had come over SMTP from a bounce address.
    const edited = JSON.parse(readFileSync(join(out, "index.json"), "utf8"));
    edited.messages.find((m: any) => m.id === ids[0]).envelope.mail_from = "bounce@example.com";
    writeFileSync(join(out, "index.json"), JSON.stringify(edited));
    const imported = await cli(["import", "--inbox", target.address, join(out, inbox.address)], { INBOXD_DATA_DIR: b.dataDir });
    expect(imported.stderr).toBe("");
    expect(imported.stdout).toContain(`imported ${MESSAGES.length} messages`);

    // An mbox, with its "From " separators and >From escaping.
    const mbox = join(tmp("inboxd-mbox-"), "mail.mbox");
    writeFileSync(
      mbox,
      "From a@example.com Mon Jan  1 00:00:00 2024\nFrom: a@example.com\nSubject: mbox one\n\n>From here, escaped\nbody\n\n" +
        "From b@example.com Mon Jan  1 00:00:01 2024\nFrom: b@example.com\nSubject: mbox two\n\nlast\n",
    );
    expect((await cli(["import", "--inbox", target.address, mbox], { INBOXD_DATA_DIR: b.dataDir })).code).toBe(0);

    const b2 = await b.restart();
    try {
      const list = (await json(b2.api(`/v1/inboxes/${target.id}/messages?limit=100`))).body.data.reverse();
      expect(list.map((m: any) => m.subject)).toEqual(["one", "two", "three", "mbox one", "mbox two"]);
      for (let i = 0; i < MESSAGES.length; i++) {
        const raw = Buffer.from(await (await b2.api(`/v1/messages/${list[i].id}/raw`)).arrayBuffer());
        expect(raw.equals(MESSAGES[i]!)).toBe(true);
      }
      const first = Buffer.from(await (await b2.api(`/v1/messages/${list[3].id}/raw`)).arrayBuffer()).toString();
      expect(first).toBe("From: a@example.com\nSubject: mbox one\n\nFrom here, escaped\nbody\n");
      const full = (await json(b2.api(`/v1/messages/${list[2].id}`))).body.data;
      expect(full.codes).toContain("424242"); // parsed like received mail
      // A dump's envelopes come back (the address it was sent to, not the target's); an mbox has none to restore.
      const envelopes = await Promise.all(list.map(async (m: any) => (await json(b2.api(`/v1/messages/${m.id}`))).body.data.envelope));
      expect(envelopes[0]).toMatchObject({ mail_from: "bounce@example.com", rcpt_to: [inbox.address] });
      expect(envelopes[1]).toMatchObject({ mail_from: "b@example.com", rcpt_to: [inbox.address] });
      expect(envelopes[3]).toMatchObject({ mail_from: "a@example.com", rcpt_to: [target.address] });
    } finally {
      await b2.stop();
      b2.cleanup();
      a.cleanup();
    }
    expect(readdirSync(out).length).toBeGreaterThan(1);
  }, 90_000);
});

describe("sendmail", () => {
  test("reads a message on stdin, sends it to the To/Cc/Bcc recipients over SMTP, without the Bcc header", async () => {
    const inst = await startInboxd();
    try {
      const to = await createInbox(inst, { name: "to", ttl_seconds: 3600 });
      const bcc = await createInbox(inst, { name: "bcc", ttl_seconds: 3600 });
      const message = `From: App <app@example.com>\nTo: ${to.address}\nBcc: Hidden <${bcc.address}>\nSubject: via sendmail\n\nhello\n.\nstill the body\n`;
      const r = await cli(["sendmail", "-t", "-i", "--smtp-port", String(inst.ports.smtp)], {}, message);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      for (const inbox of [to, bcc]) {
        const got = (await json(inst.api(`/v1/inboxes/${inbox.id}/messages/latest?wait=10`))).body.data;
        expect(got.subject).toBe("via sendmail");
        const raw = await (await inst.api(`/v1/messages/${got.id}/raw`)).text();
        expect(raw).not.toMatch(/^bcc:/im);
        expect(raw).toContain("hello\r\n.\r\nstill the body\r\n");
        expect(got.envelope ?? (await json(inst.api(`/v1/messages/${got.id}`))).body.data.envelope).toMatchObject({
          mail_from: "app@example.com",
        });
      }
      // Recipients as arguments (the headers are then not read), and a sender given with -f.
      const other = await createInbox(inst, { name: "arg", ttl_seconds: 3600 });
      const r2 = await cli(
        ["sendmail", "-f", "bounce@example.com", other.address],
        { INBOXD_SMTP_PORT: String(inst.ports.smtp) },
        "Subject: by argument\r\n\r\nbody\r\n",
      );
      expect(r2.code).toBe(0);
      const got = (await json(inst.api(`/v1/inboxes/${other.id}/messages/latest?wait=10`))).body.data;
      expect((await json(inst.api(`/v1/messages/${got.id}`))).body.data.envelope.mail_from).toBe("bounce@example.com");
      // Nobody listening: one line, exit 1.
      const closed = await cli(["sendmail", "--smtp-port", "1", "x@example.com"], {}, "Subject: x\n\nx\n");
      expect(closed.code).toBe(1);
      expect(closed.stderr.trim().split("\n")).toHaveLength(1);
      const none = await cli(["sendmail", "--smtp-port", String(inst.ports.smtp)], {}, "Subject: nobody\n\nx\n");
      expect(none.code).toBe(1);
      expect(none.stderr).toContain("no recipients");
    } finally {
      await inst.stop();
      inst.cleanup();
    }
  }, 60_000);

  test("sendmail's own spellings as PHP and cron use them; a message without From, Date, Message-ID gets them", async () => {
    const inst = await startInboxd();
    try {
      const port = { INBOXD_SMTP_PORT: String(inst.ports.smtp) };
      const php = await createInbox(inst, { name: "php", ttl_seconds: 3600 });
      // PHP's mail() fifth argument: the value attached to -f; -ti run together.
      const a = await cli(
        ["sendmail", "-ti", "-fbounce@example.com"],
        port,
        `To: ${php.address}\nFrom: App <app@example.com>\nSubject: php\n\nx\n`,
      );
      expect(a.stderr).toBe("");
      const gotA = (await json(inst.api(`/v1/inboxes/${php.id}/messages/latest?wait=10`))).body.data;
      expect((await json(inst.api(`/v1/messages/${gotA.id}`))).body.data.envelope.mail_from).toBe("bounce@example.com");
      expect(gotA.from).toMatchObject({ email: "app@example.com", name: "App" });

      // cronie: sendmail -FCronDaemon -i -B8BITMIME -oem USER, and a message with no From, Date or Message-ID.
      const cron = await createInbox(inst, { name: "cron", ttl_seconds: 3600 });
      const b = await cli(
        ["sendmail", "-FCronDaemon", "-i", "-B8BITMIME", "-oem", "-froot@example.com", cron.address],
        port,
        "Subject: Cron <root@host> run-parts\n\noutput\n",
      );
      expect(b.stderr).toBe("");
      expect(b.code).toBe(0);
      const gotB = (await json(inst.api(`/v1/inboxes/${cron.id}/messages/latest?wait=10`))).body.data;
      expect(gotB.from).toMatchObject({ email: "root@example.com", name: "CronDaemon" });
      const raw = await (await inst.api(`/v1/messages/${gotB.id}/raw`)).text();
      expect(raw).toMatch(/^Date: \w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} \+0000\r$/m);
      expect(raw).toMatch(/^Message-ID: <[^@\s]+@[^>\s]+>\r$/m);
      // A header the message has is not added again.
      expect(gotA.id).not.toBe(gotB.id);
      const rawA = await (await inst.api(`/v1/messages/${gotA.id}/raw`)).text();
      expect(rawA.match(/^From: /gm)).toHaveLength(1);

      // `echo "backup done" | sendmail ADDRESS`: no header at all, so that line is the body, not a broken header.
      const echoed = await createInbox(inst, { name: "echo", ttl_seconds: 3600 });
      expect((await cli(["sendmail", echoed.address], port, "backup done\n")).code).toBe(0);
      const gotC = (await json(inst.api(`/v1/inboxes/${echoed.id}/messages/latest?wait=10`))).body.data;
      const full = (await json(inst.api(`/v1/messages/${gotC.id}`))).body.data;
      expect(full.text.trim()).toBe("backup done");
      expect((await (await inst.api(`/v1/messages/${gotC.id}/raw`)).text()).endsWith("\r\n\r\nbackup done\r\n")).toBe(true);

      // Only the default mode, a message on stdin, is ours.
      const bs = await cli(["sendmail", "-bs"], port, "");
      expect(bs.code).toBe(2);
      expect(bs.stderr).toContain("only -bm");
    } finally {
      await inst.stop();
      inst.cleanup();
    }
  }, 60_000);
});
