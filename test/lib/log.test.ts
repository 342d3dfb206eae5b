// The operational log's batching (src/lib/log.ts): lines gather before they are written, yet none
// is lost when the process exits, exits on an uncaught error, or goes quiet.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";

const LOG = join(import.meta.dir, "../../src/lib/log.ts");

/** Runs a script that has `log` (a text logger on stdout) in scope; returns its stdout lines. */
async function run(body: string): Promise<{ lines: string[]; code: number }> {
  const script = `import { createLogger } from ${JSON.stringify(LOG)};\nconst log = createLogger("info", "text");\n${body}`;
  const p = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  const out = await new Response(p.stdout).text();
  const code = await p.exited;
  return { lines: out.split("\n").filter(Boolean), code };
}

describe("log batching", () => {
  test("every line of a burst is written, in order, when the process exits at once", async () => {
    const r = await run(`for (let i = 0; i < 500; i++) log.info({ i }, "burst"); process.exit(0);`);
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(500);
    expect(r.lines.map((l) => Number(/ i=(\d+)/.exec(l)?.[1]))).toEqual([...Array(500).keys()]);
  });

  test("lines logged just before an uncaught error are written, an error object's line too", async () => {
    const r = await run(
      `log.info({ step: 1 }, "before"); log.error({ err: new Error("disk gone"), step: 2 }, "failing"); setTimeout(() => { throw new Error("boom"); }, 1);`,
    );
    expect(r.code).not.toBe(0);
    expect(r.lines.some((l) => /INFO\s+before step=1/.test(l))).toBe(true);
    expect(r.lines.some((l) => /ERROR\s+failing err="disk gone" step=2/.test(l))).toBe(true);
  });

  test("a lone line is written while the process stays up (the flush timer), not only at exit", async () => {
    // Without the timer the line would wait in the batch until exit; the child never exits by itself.
    const script = `import { createLogger } from ${JSON.stringify(LOG)};\nconst log = createLogger("info", "text");\nlog.info({ alone: true }, "quiet");\nsetInterval(() => {}, 1000);`;
    const p = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe" });
    try {
      const reader = p.stdout.getReader();
      let text = "";
      const deadline = Bun.sleep(10_000).then(() => null);
      while (!text.includes("\n")) {
        const chunk = await Promise.race([reader.read(), deadline]);
        if (!chunk || chunk.done) break;
        text += new TextDecoder().decode(chunk.value);
      }
      expect(text).toMatch(/INFO\s+quiet alone=true/);
    } finally {
      p.kill("SIGKILL");
    }
  }, 15_000);

  test("a JSON logger batches the same way and keeps one record per line", async () => {
    const script = `import { createLogger } from ${JSON.stringify(LOG)};\nconst log = createLogger("info", "json");\nfor (let i = 0; i < 50; i++) log.info({ i }, "j"); log.warn({ w: 1 }, "careful"); process.exit(0);`;
    const p = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe" });
    const lines = (await new Response(p.stdout).text()).split("\n").filter(Boolean);
    await p.exited;
    expect(lines).toHaveLength(51);
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual([...Array(50).fill("j"), "careful"]);
    expect(JSON.parse(lines[50]!).level).toBe(40);
  });
});
