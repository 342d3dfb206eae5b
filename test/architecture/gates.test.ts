// The gates of CONTRIBUTING.md run inside the suite, so `npm test` (and CI) fails on a type error,
// a lint finding or an unformatted file, with the tool's own report in the failure.
import { describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const BIN = join(ROOT, "node_modules/.bin");

function run(cmd: string[]): { code: number; output: string } {
  const p = Bun.spawnSync(cmd, { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
  return { code: p.exitCode ?? -1, output: `${p.stdout.toString()}${p.stderr.toString()}`.trim() };
}

describe("gates", () => {
  for (const project of [".", "web", "clients/typescript"]) {
    test(`tsc --noEmit -p ${project}`, () => {
      const r = run([join(BIN, "tsc"), "--noEmit", "-p", project]);
      expect(r.output).toBe("");
      expect(r.code).toBe(0);
    });
  }

  test("biome ci (lint and format, warnings count)", () => {
    const r = run([join(BIN, "biome"), "ci", "--error-on-warnings", "--colors=off", "."]);
    if (r.code !== 0) throw new Error(r.output);
    expect(r.output).toContain("Checked");
  });
});
