// The test command (`npm test`): the whole suite on both storage engines (issue 20), ending with the
// one line CI reads: "N passed, M failed".
//
// Two `bun test` processes run side by side:
// - the SQLite pass runs every test file;
// - the PostgreSQL pass (INBOXD_TEST_DATABASE=postgres: every inboxd a test starts runs on a fresh
//   database of a PostgreSQL server that pass starts, test/support/test-database.ts) runs the files
//   that engine switch changes, those importing test-database.ts directly or through a helper, less
//   the browser tests (those importing test/support/browser.ts).
//   The rest would run identically twice: they test no storage, or open both engines themselves
//   (storage-engines.ts, the postgres-*.test.ts files).
// The SQLite pass prints as it goes; the PostgreSQL pass's output follows once it is done.
//
// Both passes run inboxd as the executable `npm run build` makes, built once here before they start
// (test/support/command.ts): what ships is what is tested, and each start costs less.
// `INBOXD_TEST_FROM_SOURCE=1 npm test` runs every inboxd from source instead.
//
// `INBOXD_TEST_DATABASE=sqlite|postgres npm test` runs one pass. Arguments are passed to `bun test`
// (a path filter limits both passes). `INBOXD_TEST_TIMINGS=<dir>` writes each pass's JUnit report
// (every test's seconds) to <dir>/<pass>.xml, for finding where the suite's time goes.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { buildExecutable } from "../test/support/command";
import { isRequired } from "../test/support/components";
import { postgresBinDir, postgresMissing } from "../test/support/postgres";

const root = resolve(import.meta.dir, "..");
const args = process.argv.slice(2);
const ENGINE_SWITCH = join(root, "test/support/test-database.ts");
const BROWSER = join(root, "test/support/browser.ts");

interface Pass {
  name: string;
  env: Record<string, string>;
  files: string[] | null;
}

interface Outcome {
  passed: number;
  failed: number;
  skipped: number;
  seconds: number;
  /** Each failed test with the lines bun printed for it (its error), to repeat at the end. */
  failures: string[];
}

const transpiler = new Bun.Transpiler({ loader: "ts" });

const importsOf = new Map<string, string[]>();

/** The repository files `file` imports, resolved (relative imports only: the rest is not ours); read once per file. */
function localImports(file: string): string[] {
  const known = importsOf.get(file);
  if (known) return known;
  const out: string[] = [];
  for (const { path } of transpiler.scanImports(readFileSync(file, "utf8"))) {
    if (!path.startsWith(".")) continue;
    const base = resolve(dirname(file), path);
    const found = [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find((p) => existsSync(p) && p.match(/\.tsx?$/));
    if (found) out.push(found);
  }
  importsOf.set(file, out);
  return out;
}

/** Whether `file` reaches `target` through its imports. */
function reaches(file: string, target: string, seen = new Set<string>()): boolean {
  if (file === target) return true;
  if (seen.has(file)) return false;
  seen.add(file);
  return localImports(file).some((f) => reaches(f, target, seen));
}

/** The test files the arguments' path filters select. */
function testFiles(): string[] {
  const filters = args.filter((a) => !a.startsWith("-"));
  return [...new Bun.Glob("**/*.test.ts").scanSync({ cwd: root })]
    .filter((f) => !f.includes("node_modules/"))
    .sort()
    .filter((f) => filters.length === 0 || filters.some((p) => f.includes(p)));
}

function engineFiles(): string[] {
  return (
    testFiles()
      // postgres-*.test.ts start their own PostgreSQL whatever the switch says.
      .filter((f) => !f.split("/").at(-1)!.startsWith("postgres-") && reaches(join(root, f), ENGINE_SWITCH))
      // The browser tests drive the page; every route it calls runs on PostgreSQL in this pass's API tests. Chromium
      // in both passes cost ~100 s of the 2 cores the passes share (docs/scaling.md); `npm run test:postgres` runs
      // them on PostgreSQL too.
      .filter((f) => !reaches(join(root, f), BROWSER))
      .map((f) => `./${f}`)
  );
}

const RESULT = /^\((pass|fail|skip|todo)\) /;
const FILE_HEADER = /^\S.*\.test\.ts:$/;
const MAX_FAILURE_LINES = 40;

/**
 * The failed tests of one pass, each with what bun printed before its "(fail)" line since the previous result or
 * file header (the error and its source excerpt), and the errors bun reports between tests. CI shows the end of the output, and the PostgreSQL pass's output
 * comes after the SQLite pass's, so a failure of the first pass would otherwise be out of sight.
 */
function failuresIn(output: string): string[] {
  const lines = output.split("\n");
  const out: string[] = [];
  let start = 0;
  let file = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // An error outside any test (bun counts it under "errors"): its block is framed by two dashed lines.
    if (line === "# Unhandled error between tests") {
      const block: string[] = [];
      let dashes = 0;
      for (i++; i < lines.length && dashes < 2; i++) {
        if (/^-{10,}$/.test(lines[i]!)) dashes++;
        else if (lines[i]!.trim() !== "") block.push(lines[i]!);
      }
      i--;
      out.push([`${file}: unhandled error between tests`, ...block.slice(-MAX_FAILURE_LINES).map((l) => `    ${l}`)].join("\n"));
      start = i + 1;
      continue;
    }
    if (FILE_HEADER.test(line)) {
      file = line.slice(0, -1);
      start = i + 1;
    } else if (RESULT.test(line)) {
      if (line.startsWith("(fail) ")) {
        const before = lines.slice(start, i).filter((l) => l.trim() !== "");
        const shown = before.length > MAX_FAILURE_LINES ? ["…", ...before.slice(-MAX_FAILURE_LINES)] : before;
        out.push([`${file}: ${line}`, ...shown.map((l) => `    ${l}`)].join("\n"));
      }
      start = i + 1;
    }
    // bun repeats the failed tests in a summary after the last file; those repeats are not new failures.
    if (/^\d+ tests? failed:$/.test(line)) break;
  }
  return out;
}

function count(output: string, word: string): number {
  return Number(new RegExp(`^\\s*(\\d+) ${word}$`, "m").exec(output)?.[1] ?? 0);
}

async function run(pass: Pass, live: { on: boolean; held: string[] }): Promise<Outcome> {
  const started = performance.now();
  const flags = args.filter((a) => a.startsWith("-"));
  const targets = pass.files ?? args.filter((a) => !a.startsWith("-"));
  const timings = process.env.INBOXD_TEST_TIMINGS;
  if (timings) mkdirSync(resolve(timings), { recursive: true });
  if (timings) flags.push("--reporter=junit", `--reporter-outfile=${join(resolve(timings), `${pass.name}.xml`)}`);
  const proc = Bun.spawn([process.execPath, "test", "--timeout", "60000", ...flags, ...targets], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, FORCE_COLOR: "0", ...pass.env },
  });
  let all = "";
  const dec = new TextDecoder();
  const pump = async (s: ReadableStream<Uint8Array>, w: NodeJS.WriteStream) => {
    for await (const c of s) {
      const t = dec.decode(c, { stream: true });
      all += t;
      if (live.on) w.write(t);
      else live.held.push(t);
    }
  };
  await Promise.all([pump(proc.stdout, process.stdout), pump(proc.stderr, process.stderr)]);
  const code = await proc.exited;
  const fail = count(all, "fail") + count(all, "errors?");
  return {
    passed: count(all, "pass"),
    // A run that failed without counting a failure (a crash, no files) still fails.
    failed: fail + (code !== 0 && fail === 0 ? 1 : 0),
    skipped: count(all, "skip"),
    seconds: (performance.now() - started) / 1000,
    failures: failuresIn(all),
  };
}

const only = process.env.INBOXD_TEST_DATABASE;
const sqlite: Pass = { name: "SQLite", env: { INBOXD_TEST_DATABASE: "sqlite" }, files: null };
const postgres: Pass = { name: "PostgreSQL", env: { INBOXD_TEST_DATABASE: "postgres" }, files: only === "postgres" ? null : engineFiles() };
const passes = only === "postgres" ? [postgres] : only === "sqlite" ? [sqlite] : [sqlite, postgres];

const notes: string[] = [];
let extraSkips = 0;
if (passes.includes(postgres) && !postgresBinDir() && !isRequired("postgres")) {
  passes.splice(passes.indexOf(postgres), 1);
  notes.push(`PostgreSQL pass skipped: ${postgresMissing}`);
  extraSkips++;
}
if (passes.includes(postgres) && postgres.files?.length === 0) passes.splice(passes.indexOf(postgres), 1);

const buildDir =
  process.env.INBOXD_TEST_FROM_SOURCE === "1" || process.env.INBOXD_TEST_EXECUTABLE ? null : mkdtempSync(join(tmpdir(), "inboxd-suite-"));
if (buildDir) {
  const executable = join(buildDir, "inboxd");
  const started = performance.now();
  try {
    buildExecutable(executable);
  } catch (e) {
    console.log(String((e as Error).message));
    console.log("0 passed, 1 failed");
    process.exit(1);
  }
  console.log(
    `built the executable for the suite in ${((performance.now() - started) / 1000).toFixed(1)} s (INBOXD_TEST_FROM_SOURCE=1: from source)`,
  );
  for (const pass of passes) pass.env.INBOXD_TEST_EXECUTABLE = executable;
}

// The first pass prints live; the others hold their output until it is done.
const outputs = passes.map((_, i) => ({ on: i === 0, held: [] as string[] }));
const outcomes = await Promise.all(
  passes.map(async (pass, i) => {
    const outcome = await run(pass, outputs[i]!);
    if (i === 0) {
      for (const o of outputs.slice(1)) {
        process.stdout.write(o.held.join(""));
        o.held = [];
        o.on = true;
      }
    }
    return outcome;
  }),
);

for (const [i, o] of outcomes.entries()) {
  if (o.failures.length === 0) continue;
  console.log(`\nFailed in the ${passes[i]!.name} pass:`);
  for (const f of o.failures) console.log(f);
}
const total = { passed: 0, failed: 0, skipped: extraSkips };
for (const [i, o] of outcomes.entries()) {
  const files = passes[i]!.files;
  const scope = files
    ? `${files.length} file${files.length === 1 ? "" : "s"}`
    : args.some((a) => !a.startsWith("-"))
      ? "the files matching the filter"
      : "every file";
  console.log(
    `${passes[i]!.name} pass (${scope}): ${o.passed} passed, ${o.failed} failed, ${o.skipped} skipped in ${o.seconds.toFixed(0)} s`,
  );
  total.passed += o.passed;
  total.failed += o.failed;
  total.skipped += o.skipped;
}
for (const n of notes) console.log(n);
// Skips (SQLite-only tests in the PostgreSQL pass, each named with its reason) on a line of their own: the last line
// is exactly what CI reads.
if (total.skipped) console.log(`${total.skipped} skipped`);
if (buildDir) rmSync(buildDir, { recursive: true, force: true });
console.log(`${total.passed} passed, ${total.failed} failed`);
process.exit(total.failed > 0 ? 1 : 0);
