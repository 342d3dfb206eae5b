// Verification-code benchmark (issue 16): precision and recall of extractCodes over the tuning corpus
// (test/fixtures/mail/codes, the rules were tuned on it) and the held-out corpus
// (test/fixtures/mail/codes-holdout, written before the tuning and never tuned on), per corpus and per
// language, for today's extractor and for a baseline revision read from git at run time (nothing of the
// old extractor is copied into the tree).
//   bun bench/codes.ts [--baseline REV] [--misses tuning|holdout|all]
// Precision = correct codes returned / codes returned; recall = expected codes found / expected codes
// (codes compared exactly, as returned). Prints figures; asserts nothing. Goal: both >= 0.95 held out.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { extractCodes } from "../src/mime/codes";
import { machineLine } from "./support";

const ROOT = resolve(import.meta.dir, "..");
const opt = (name: string, def: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? def) : def;
};
/** The last commit before the issue-16 extraction work. */
const BASELINE = opt("baseline", "2e051f1");
const MISSES = opt("misses", "");

export interface CodeCase {
  name: string;
  lang?: string;
  subject: string;
  text: string | null;
  html: string | null;
  expected: string[];
}
type Extract = (subject: string, text: string | null, html: string | null) => string[];

/** Every case of a corpus folder, with its file; `lang` defaults to the file name's language hint. */
export function loadCorpus(dir: string): Array<CodeCase & { file: string; lang: string }> {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .flatMap((file) =>
      (JSON.parse(readFileSync(join(dir, file), "utf8")) as CodeCase[]).map((c) => ({ ...c, file, lang: c.lang ?? "en" })),
    );
}

export interface Score {
  messages: number;
  expected: number;
  returned: number;
  correct: number;
  found: number;
  exact: number;
}

export const precision = (s: Score) => (s.returned === 0 ? 1 : s.correct / s.returned);
export const recall = (s: Score) => (s.expected === 0 ? 1 : s.found / s.expected);

export function score(cases: CodeCase[], extract: Extract, onCase?: (c: CodeCase, got: string[]) => void): Score {
  const s: Score = { messages: 0, expected: 0, returned: 0, correct: 0, found: 0, exact: 0 };
  for (const c of cases) {
    const got = extract(c.subject, c.text, c.html);
    s.messages++;
    s.expected += c.expected.length;
    s.returned += got.length;
    s.correct += got.filter((g) => c.expected.includes(g)).length;
    s.found += c.expected.filter((e) => got.includes(e)).length;
    if (JSON.stringify(got) === JSON.stringify(c.expected)) s.exact++;
    onCase?.(c, got);
  }
  return s;
}

/** The extractor of revision `rev`, written to a temporary folder (its "entities" import resolved from here). */
async function baselineExtractor(rev: string): Promise<{ extract: Extract; cleanup: () => void } | null> {
  const dir = mkdtempSync(join(tmpdir(), "inboxd-codes-baseline-"));
  try {
    for (const file of ["codes.ts", "html-text.ts"]) {
      const src = execFileSync("git", ["show", `${rev}:src/mime/${file}`], { cwd: ROOT, encoding: "utf8", stdio: "pipe" });
      writeFileSync(join(dir, file), src.replace(/from "entities"/g, `from ${JSON.stringify(Bun.resolveSync("entities", ROOT))}`));
    }
    const mod = await import(join(dir, "codes.ts"));
    return { extract: mod.extractCodes as Extract, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    console.log(`baseline ${rev}: not available (${String((e as Error).message).split("\n")[0]})`);
    return null;
  }
}

const f2 = (x: number) => x.toFixed(2);
const line = (label: string, s: Score) =>
  `${label.padEnd(14)} ${String(s.messages).padStart(4)} msgs ${String(s.expected).padStart(4)} codes   precision ${f2(precision(s))} (${s.correct}/${s.returned})   recall ${f2(recall(s))} (${s.found}/${s.expected})   exact ${s.exact}/${s.messages}`;

if (import.meta.main) {
  const corpora = {
    tuning: loadCorpus(join(ROOT, "test/fixtures/mail/codes")),
    holdout: loadCorpus(join(ROOT, "test/fixtures/mail/codes-holdout")),
  };
  const base = await baselineExtractor(BASELINE);
  console.log(machineLine());
  for (const [name, cases] of Object.entries(corpora)) {
    console.log(`\n== ${name} corpus: ${cases.length} messages, ${cases.filter((c) => c.expected.length > 0).length} with codes`);
    const misses: string[] = [];
    const showMisses = MISSES === name || MISSES === "all";
    const t0 = performance.now();
    const now = score(cases, extractCodes, (c, got) => {
      if (showMisses && JSON.stringify(got) !== JSON.stringify(c.expected)) {
        misses.push(`  ${(c as { file?: string }).file}: ${c.name}: expected ${JSON.stringify(c.expected)}, got ${JSON.stringify(got)}`);
      }
    });
    const us = ((performance.now() - t0) * 1000) / cases.length;
    console.log(line("today", now), `  ${us.toFixed(0)} µs/message`);
    if (base) console.log(line(`baseline ${BASELINE}`, score(cases, base.extract)));
    const langs = [...new Set(cases.map((c) => c.lang))].sort();
    for (const lang of langs) {
      const sub = cases.filter((c) => c.lang === lang);
      const t = score(sub, extractCodes);
      const b = base ? score(sub, base.extract) : null;
      console.log(`  ${line(lang, t)}${b ? `   (baseline P ${f2(precision(b))} R ${f2(recall(b))})` : ""}`);
    }
    if (misses.length) console.log(`misses (${misses.length}):\n${misses.join("\n")}`);
  }
  base?.cleanup();
}
