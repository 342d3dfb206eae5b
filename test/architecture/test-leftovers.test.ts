// The suite leaves nothing behind: an inboxd a test started and never stopped is stopped, and the data
// directory the harness made for it removed, whether the test process ends normally (bun test's global
// afterAll, test/support/teardown.ts) or is killed (the watchdog, test/support/watchdog.ts).
// Each case runs a small test process of its own, on SQLite whatever this pass's engine: the harness is
// under test here, not the storage.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const scratch = mkdtempSync(join(tmpdir(), "inboxd-leftovers-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A test file that starts an instance, prints its pid and data directory, and never stops it. */
function writeLeavingTest(name: string, thenHang: boolean): string {
  const file = join(scratch, name);
  writeFileSync(
    file,
    `import { test } from "bun:test";
import { startInboxd } from ${JSON.stringify(join(ROOT, "test/support/harness.ts"))};
test("leaves an instance running", async () => {
  const inst = await startInboxd();
  console.log("LEFT " + JSON.stringify({ pid: inst.proc.pid, dir: inst.dataDir }));
  ${thenHang ? "await new Promise(() => {});" : ""}
}, 60_000);
`,
  );
  return file;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function gone(left: { pid: number; dir: string }, withinMs: number): Promise<{ running: boolean; dir: boolean }> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline && (alive(left.pid) || existsSync(left.dir))) await Bun.sleep(100);
  return { running: alive(left.pid), dir: existsSync(left.dir) };
}

/** Runs `bun test FILE` from the repository (so bunfig.toml's preload applies) and reads the LEFT line. */
function runLeavingTest(file: string) {
  const child = Bun.spawn([process.execPath, "test", "--timeout", "600000", file], {
    cwd: ROOT,
    env: { ...process.env, INBOXD_TEST_DATABASE: "sqlite" },
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  const decoder = new TextDecoder();
  const pump = async (s: ReadableStream<Uint8Array>) => {
    for await (const chunk of s) out += decoder.decode(chunk);
  };
  const done = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const left = async (): Promise<{ pid: number; dir: string }> => {
    const deadline = Date.now() + 45_000;
    for (;;) {
      const m = /^LEFT (.+)$/m.exec(out);
      if (m) return JSON.parse(m[1]!);
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no LEFT line from the test process:\n${out}`);
      await Bun.sleep(50);
    }
  };
  return { child, left, done };
}

describe("what a test leaves running is cleaned up", () => {
  test("a test process that ends normally stops the instance and removes its data directory", async () => {
    const { child, left, done } = runLeavingTest(writeLeavingTest("ends.test.ts", false));
    const l = await left();
    expect(await child.exited).toBe(0);
    await done;
    // afterAll ran before the process exited: nothing to wait for.
    expect({ running: alive(l.pid), dir: existsSync(l.dir) }).toEqual({ running: false, dir: false });
  }, 90_000);

  test("a test process killed with SIGKILL: the watchdog stops the instance and removes its data directory", async () => {
    const { child, left, done } = runLeavingTest(writeLeavingTest("killed.test.ts", true));
    const l = await left();
    expect(alive(l.pid)).toBe(true);
    child.kill("SIGKILL");
    await child.exited;
    await done;
    // The watchdog looks once a second; the server's own shutdown takes well under a second.
    expect(await gone(l, 20_000)).toEqual({ running: false, dir: false });
  }, 90_000);
});
