// The Python client and pytest plugin (clients/python/), tested against a served inboxd with
// Debian's python3-pytest. .ci/run installs it; elsewhere a missing pytest skips with a message
// (components.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT, startInboxd, type Instance } from "../support/harness";
import { needs } from "../support/components";

const probe = Bun.spawnSync(["python3", "-c", "import pytest"], { stdout: "ignore", stderr: "ignore" });
const hasPytest = needs("pytest", probe.exitCode === 0, "apt-get install python3-pytest");

describe.skipIf(!hasPytest)("Python client and pytest plugin", () => {
  let inst: Instance;
  beforeAll(async () => {
    inst = await startInboxd();
  });
  afterAll(async () => {
    await inst?.stop();
    inst?.cleanup();
  });

  test("python3 -m pytest clients/python/tests passes against the instance", async () => {
    const dir = join(ROOT, "clients/python");
    const p = Bun.spawn(["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], {
      cwd: dir,
      env: {
        ...process.env,
        INBOXD_URL: inst.url,
        INBOXD_API_KEY: inst.key,
        INBOXD_SMTP: `127.0.0.1:${inst.ports.smtp}`,
        PYTHONDONTWRITEBYTECODE: "1",
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
    const code = await p.exited;
    if (code !== 0) console.error(out, err);
    expect(code).toBe(0);
    const passed = Number(/(\d+) passed/.exec(out)?.[1] ?? 0);
    expect(passed).toBeGreaterThanOrEqual(6);
    expect(out).not.toMatch(/\d+ (failed|skipped|error)/);
  }, 120_000);
});
