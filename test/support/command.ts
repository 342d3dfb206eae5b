// How the tests run inboxd: from source (`bun src/main.ts`, as `npm start` does), or the executable
// `npm run build` makes when INBOXD_TEST_EXECUTABLE names one. The test command (scripts/test.ts) builds
// it once per run and runs the whole suite on it: what ships is what is tested, and each of the
// suite's several hundred starts costs ~0.5 s less wall time and ~0.7 s less CPU (no transpiling, the
// modules' bytecode precompiled: docs/decisions.md, "The suite on the executable"). `bun test FILE`
// on its own runs from source.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");

/** `bun src/main.ts`: what `npm start` runs. */
export const FROM_SOURCE: readonly string[] = [process.execPath, join(ROOT, "src/main.ts")];

/** The command that runs `inboxd` in this test process (append the subcommand and its flags). */
export function inboxdCommand(): string[] {
  const exe = process.env.INBOXD_TEST_EXECUTABLE;
  return exe ? [exe] : [...FROM_SOURCE];
}

/** package.json's build command for the executable, writing to `outfile` instead of dist/inboxd. */
export function buildCommand(outfile: string): string[] {
  const script: string = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts.build;
  const compile = script
    .split("&&")
    .map((s) => s.trim())
    .find((s) => s.startsWith("bun build --compile"));
  if (!compile) throw new Error(`no 'bun build --compile' in the build script: ${script}`);
  const args = compile.split(/\s+/).slice(1);
  const at = args.indexOf("--outfile");
  if (args[at + 1] !== "dist/inboxd") throw new Error(`the build script writes ${args[at + 1]}, not dist/inboxd`);
  args[at + 1] = outfile;
  return [process.execPath, ...args];
}

/** Builds the executable at `outfile` with package.json's command; throws with the build's output on failure. */
export function buildExecutable(outfile: string): void {
  const build = Bun.spawnSync(buildCommand(outfile), { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build failed:\n${build.stdout}\n${build.stderr}`);
}
