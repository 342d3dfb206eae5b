// Start-up, configuration, bootstrap, restart, the data-directory lock, shutdown and rate limits.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { json, ROOT, startInboxd } from "../support/harness";
import { knownDatabaseEnv } from "../support/test-database";
import { inboxdCommand } from "../support/command";

async function runCli(args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  const p = Bun.spawn([...inboxdCommand(), ...args], {
    cwd: ROOT,
    // A directory an instance ran on keeps its database (INBOXD_TEST_DATABASE=postgres).
    env: { ...process.env, ...knownDatabaseEnv(env.INBOXD_DATA_DIR ?? ""), ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => p.kill("SIGKILL"), 15_000);
  const [o, e] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  const code = await p.exited;
  clearTimeout(timer);
  return { code, out: o + e };
}

describe("configuration", () => {
  test("a bad value stops start-up with a one-line error naming the variable", async () => {
    const dir = mkdtempSync(join(tmpdir(), "inboxd-cfg-"));
    for (const [name, value] of [
      ["INBOXD_HTTP_PORT", "70000"],
      ["INBOXD_PLAN", "platinum"],
      ["INBOXD_RUN_WAIT_CAP", "soon"],
      ["INBOXD_SECRET_KEY", "short"],
    ] as const) {
      const r = await runCli(["serve"], { INBOXD_DATA_DIR: dir, [name]: value });
      expect(r.code).not.toBe(0);
      const lines = r.out.trim().split("\n");
      expect(lines.length).toBe(1);
      expect(lines[0]).toContain(name);
    }
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("bootstrap", () => {
  test("first start prints the generated key and password once; they work; second start prints neither", async () => {
    const dir = mkdtempSync(join(tmpdir(), "inboxd-boot-"));
    const first = await startInboxd({ INBOXD_BOOTSTRAP_KEY: "", INBOXD_ADMIN_PASSWORD: "" }, dir);
    const out = first.output();
    const key = /API key \(scope \*\): (isk_live_\S+)/.exec(out)?.[1];
    const password = /password: (\S+)/.exec(out)?.[1];
    expect(key).toBeDefined();
    expect(password).toBeDefined();
    expect((await first.api("/v1/inboxes", { token: key })).status).toBe(200);
    const login = await json(
      first.api("/v1/devices", { method: "POST", token: null, json: { email: "admin@localhost", password, name: "t" } }),
    );
    expect(login.status).toBe(201);
    const keys = await json(first.api("/v1/api-keys", { token: key }));
    expect(keys.body.data[0].scopes).toEqual(["*"]);
    await first.stop();
    const second = await startInboxd({ INBOXD_BOOTSTRAP_KEY: "", INBOXD_ADMIN_PASSWORD: "" }, dir);
    expect(second.output()).not.toContain("bootstrap:");
    expect((await second.api("/v1/inboxes", { token: key })).status).toBe(200);
    await second.stop();
    second.cleanup();
  });

  test("the owner's password given as INBOXD_ADMIN_PASSWORD, or as its hash (argon2id, or bcrypt made by another implementation)", async () => {
    // libxcrypt's bcrypt through Perl's crypt() (perl-base is on every Debian system; Python's crypt module is gone
    // in 3.13), so the hash comes from another implementation than the one inboxd verifies with.
    const salt = Buffer.from(crypto.getRandomValues(new Uint8Array(16)))
      .toString("base64")
      .replace(/[^A-Za-z0-9]/g, ".")
      .slice(0, 22);
    const other = Bun.spawnSync(["perl", "-e", "print crypt($ARGV[0], $ARGV[1])", "given-password-1", `$2b$05$${salt}`]);
    const bcrypt = other.stdout.toString().trim();
    expect(bcrypt).toMatch(/^\$2b\$05\$[./A-Za-z0-9]{53}$/);
    const hashes = [await Bun.password.hash("given-password-1", { algorithm: "argon2id" }), bcrypt];
    const envs: Record<string, string>[] = [
      { INBOXD_ADMIN_PASSWORD: "given-password-1" },
      ...hashes.map((h) => ({ INBOXD_ADMIN_PASSWORD_HASH: h })),
    ];
    for (const env of envs) {
      const inst = await startInboxd(env);
      try {
        expect(inst.output()).toContain("bootstrap: owner admin@localhost password: (as configured, not shown)");
        expect(inst.output()).not.toContain("given-password-1");
        expect(inst.output()).not.toContain("$argon2");
        const login = (password: string) =>
          json(inst.api("/v1/devices", { method: "POST", token: null, json: { email: "admin@localhost", password, name: "t" } }));
        expect((await login("given-password-1")).status).toBe(201);
        expect((await login("given-password-2")).status).toBe(401);
      } finally {
        await inst.stop();
        inst.cleanup();
      }
    }
    // Both at once, or something that is no hash: start-up stops with one line naming the setting.
    const dir = mkdtempSync(join(tmpdir(), "inboxd-boot-"));
    try {
      const refused: Record<string, string>[] = [
        { INBOXD_ADMIN_PASSWORD: "given-password-1", INBOXD_ADMIN_PASSWORD_HASH: hashes[0]! },
        { INBOXD_ADMIN_PASSWORD_HASH: "given-password-1" },
      ];
      for (const env of refused) {
        const r = await runCli(["serve"], { INBOXD_DATA_DIR: dir, INBOXD_HTTP_PORT: "0", ...env });
        expect(r.code).not.toBe(0);
        const lines = r.out.trim().split("\n");
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain("INBOXD_ADMIN_PASSWORD_HASH");
        expect(lines[0]).not.toContain("given-password-1");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("`inboxd user add` creates a user (and a team with a project when --team is new)", async () => {
    const inst = await startInboxd();
    const r = await runCli(["user", "add", "--email", "qa@x.test", "--password", "qa-password", "--role", "admin", "--team", "QA"], {
      INBOXD_DATA_DIR: inst.dataDir,
    });
    expect(r.code).toBe(0);
    expect(r.out).toContain("qa@x.test");
    const token = (
      await json(inst.api("/v1/devices", { method: "POST", token: null, json: { email: "qa@x.test", password: "qa-password", name: "t" } }))
    ).body.data.token;
    const me = await json(inst.api("/v1/me", { token }));
    expect(me.body.data).toMatchObject({ role: "admin", team: { name: "QA" } });
    const projects = await json(inst.api("/v1/projects", { token }));
    expect(projects.body.data.length).toBe(1);
    const bad = await runCli(["user", "add", "--email", "z@x.test", "--password", "pw-long-enough", "--role", "boss"], {
      INBOXD_DATA_DIR: inst.dataDir,
    });
    expect(bad.code).not.toBe(0);
    const dup = await runCli(["user", "add", "--email", "qa@x.test", "--password", "qa-password", "--role", "member"], {
      INBOXD_DATA_DIR: inst.dataDir,
    });
    expect(dup.code).not.toBe(0);
    await inst.stop();
    inst.cleanup();
  });
});

describe("restart and lock", () => {
  test("restart keeps everything", async () => {
    const inst = await startInboxd();
    const inbox = (await json(inst.api("/v1/inboxes", { method: "POST", json: { name: "keep me" } }))).body.data;
    const key = (await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "keep" } }))).body.data;
    const creds = (await json(inst.api(`/v1/inboxes/${inbox.id}/credentials`))).body.data;
    await inst.stop();
    const again = await inst.restart();
    const shown = await json(again.api(`/v1/inboxes/${inbox.id}`));
    expect(shown.body.data).toMatchObject({ id: inbox.id, address: inbox.address, name: "keep me", expires_at: inbox.expires_at });
    expect((await again.api("/v1/inboxes", { token: key.secret })).status).toBe(200);
    expect((await json(again.api(`/v1/inboxes/${inbox.id}/credentials`))).body.data.password).toBe(creds.password);
    await again.stop();
    again.cleanup();
  });

  test("two instances cannot share a data directory (lock file); a stale lock after kill -9 is taken over", async () => {
    const inst = await startInboxd();
    expect(existsSync(join(inst.dataDir, "inboxd.lock"))).toBe(true);
    const r = await runCli(["serve"], {
      INBOXD_DATA_DIR: inst.dataDir,
      INBOXD_HTTP_PORT: "0",
      INBOXD_SMTP_PORT: "0",
      INBOXD_IMAP_PORT: "0",
      INBOXD_POP3_PORT: "0",
    });
    expect(r.code).not.toBe(0);
    expect(r.out).toContain("in use");
    await inst.kill();
    const again = await inst.restart();
    expect((await again.api("/v1/inboxes")).status).toBe(200);
    await again.stop();
    expect(existsSync(join(inst.dataDir, "inboxd.lock"))).toBe(false);
    again.cleanup();
  });

  test("SIGTERM shuts down cleanly with exit code 0", async () => {
    const inst = await startInboxd();
    await inst.stop();
    expect(inst.proc.exitCode).toBe(0);
    expect(inst.output()).toContain("shutting down");
    inst.cleanup();
  });
});

describe("rate limits", () => {
  test("past the bucket: 429 with Retry-After, in the envelope, with X-RateLimit-* headers", async () => {
    const inst = await startInboxd({ INBOXD_RATE_LIMIT_RPS: "1", INBOXD_RATE_LIMIT_BURST: "3" });
    const statuses: number[] = [];
    let last: Response | null = null;
    for (let n = 0; n < 5; n++) {
      last = await inst.api("/v1/inboxes");
      statuses.push(last.status);
      if (last.status === 200) {
        expect(last.headers.get("x-ratelimit-limit")).toBe("3");
        expect(Number(last.headers.get("x-ratelimit-remaining"))).toBeLessThan(3);
      }
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses).toContain(429);
    const r = await json(inst.api("/v1/inboxes"));
    expect(r.status).toBe(429);
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(r.body.code).toBe("rate_limited");
    await inst.stop();
    inst.cleanup();
  });
});
