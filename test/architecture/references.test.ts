// Every repository file that the docs, the README, CONTRIBUTING.md or a comment in the code names by
// its path (`src/mail/removal.ts`, `test/protocols/imap/parity.test.ts`) exists. A newcomer follows
// these paths to find where a rule lives; after files moved into folders, twenty of them pointed nowhere.
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const FOLDERS = ["docs", "src", "test", "bench", "scripts", "web", "clients", "deploy", ".ci"];
const TOP_FILES = ["README.md", "CONTRIBUTING.md", "Dockerfile", "package.json"];
/** Not prose: generated bundles and mail fixtures (whose text may name any path). */
const SKIP = [/node_modules/, /\.generated\.ts$/, /^test\/fixtures\//, /^test-output\//, /^dist\//];
/** Written as templates, not as files. */
const PLACEHOLDERS = new Set(["src/storage/sqlite/migrations/00NN_name.ts"]);
// Not a URL's path (/docs/swagger-ui.css) nor the tail of a longer one.
const PATH =
  /(?<![\w./-])(?:src|test|bench|scripts|web|docs|clients|deploy)\/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.(?:ts|tsx|md|py|json|sh|css|html|yml|yaml|toml|sql)\b/g;

function files(dir: string): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const rel = `${dir}/${name}`;
    if (SKIP.some((s) => s.test(rel))) return [];
    return statSync(join(ROOT, rel)).isDirectory() ? files(rel) : /\.(ts|tsx|md|py|sh|toml|ya?ml)$|^run$/.test(name) ? [rel] : [];
  });
}

/** The path from the root, or from a folder above the naming file (a workspace's README names its own src/). */
function resolves(path: string, namedIn: string): boolean {
  for (let dir = dirname(namedIn); ; dir = dirname(dir)) {
    if (existsSync(join(ROOT, dir, path))) return true;
    if (dir === ".") return false;
  }
}

test("every file path named in the docs and in comments exists (from the root, or from a folder above the naming file)", () => {
  const sources = [...TOP_FILES.filter((f) => existsSync(join(ROOT, f))), ...FOLDERS.flatMap(files)];
  const dangling: string[] = [];
  let named = 0;
  for (const file of sources) {
    readFileSync(join(ROOT, file), "utf8")
      .split("\n")
      .forEach((line, i) => {
        for (const [path] of line.matchAll(PATH)) {
          named++;
          if (PLACEHOLDERS.has(path)) continue;
          if (!resolves(path, file)) dangling.push(`${file}:${i + 1} ${path}`);
        }
      });
  }
  expect(named).toBeGreaterThan(200);
  expect(dangling).toEqual([]);
});
