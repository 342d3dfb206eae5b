// Architecture rules over the real import graph of src/ (see CONTRIBUTING.md, "Where things live").
//
//  1. The database is reached only through src/storage/: nothing else imports bun:sqlite or drizzle-orm,
//     or holds SQL text. In test/, only test/support/sqlite-file.ts opens the database file (an outside
//     inspector of the file at rest, like the sqlite3 CLI).
//  2. Imports point down the layers: a file imports only from folders of rank <= its own.
//  3. No two folders depend on each other, directly or through others (the folder graph has no cycles).
//
// Type-only imports (`import type`) count: they couple the code just the same.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");

/** Each folder of src/ and its rank. "app" is the composition: the top-level files of src/ and src/cli/. */
const RANKS: Record<string, number> = {
  lib: 0,
  storage: 1,
  mime: 1,
  runtime: 2,
  tenancy: 3,
  mail: 4,
  domains: 5,
  events: 6,
  automation: 7,
  services: 8,
  protocols: 9,
  http: 9,
  mcp: 9,
  scheduler: 9,
  app: 10,
};

const GENERATED = new Set(["src/http/ui-assets.generated.ts"]);

function walk(dir: string): string[] {
  const abs = join(ROOT, dir);
  if (!existsSync(abs)) return [];
  const out: string[] = [];
  for (const name of readdirSync(abs)) {
    if (name === "node_modules") continue;
    const rel = `${dir}/${name}`;
    if (statSync(join(ROOT, rel)).isDirectory()) out.push(...walk(rel));
    else if (/\.(ts|tsx|js|mjs)$/.test(name) && !name.endsWith(".d.ts") && !GENERATED.has(rel)) out.push(rel);
  }
  return out.sort();
}

const KEYWORDS_BEFORE_REGEX = new Set([
  "return",
  "typeof",
  "case",
  "do",
  "else",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "yield",
  "await",
  "instanceof",
]);

/**
 * The source with comments blanked out (newlines kept, so line numbers stay right). Strings, template
 * literals and regular expression literals are kept as they are: SQL lives in strings.
 */
function stripComments(src: string): string {
  let out = "";
  let i = 0;
  const n = src.length;
  let last = ""; // the last significant code character or word, to tell a regex literal from division
  const braces: number[] = []; // brace depth at each open `${` of a template literal
  let depth = 0;
  const blank = (s: string) => s.replace(/[^\n]/g, " ");
  const template = () => {
    // at the opening backtick or at the `}` closing a substitution: copy up to the closing backtick or next `${`
    out += src[i++];
    while (i < n) {
      const c = src[i];
      if (c === "\\") {
        out += src.slice(i, i + 2);
        i += 2;
      } else if (c === "`") {
        out += c;
        i++;
        last = "`";
        return;
      } else if (c === "$" && src[i + 1] === "{") {
        out += "${";
        i += 2;
        braces.push(depth);
        depth++;
        last = "{";
        return;
      } else {
        out += c;
        i++;
      }
    }
  };
  while (i < n) {
    const c = src[i];
    const d = src[i + 1];
    if (c === "/" && d === "/") {
      const end = src.indexOf("\n", i);
      const stop = end < 0 ? n : end;
      out += blank(src.slice(i, stop));
      i = stop;
    } else if (c === "/" && d === "*") {
      const end = src.indexOf("*/", i + 2);
      const stop = end < 0 ? n : end + 2;
      out += blank(src.slice(i, stop));
      i = stop;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < n && src[j] !== c && src[j] !== "\n") j += src[j] === "\\" ? 2 : 1;
      out += src.slice(i, j + 1);
      i = j + 1;
      last = c;
    } else if (c === "`") {
      template();
    } else if (c === "/" && (last === "" || /[(,=:[!&|?{};+\-*%<>~^]/.test(last) || KEYWORDS_BEFORE_REGEX.has(last))) {
      let j = i + 1;
      let inClass = false;
      while (j < n && src[j] !== "\n") {
        if (src[j] === "\\") j++;
        else if (src[j] === "[") inClass = true;
        else if (src[j] === "]") inClass = false;
        else if (src[j] === "/" && !inClass) break;
        j++;
      }
      j++;
      while (j < n && /[a-z]/i.test(src[j])) j++;
      out += src.slice(i, j);
      i = j;
      last = "/regex/";
    } else if (c === "{") {
      depth++;
      out += c;
      i++;
      last = c;
    } else if (c === "}") {
      depth--;
      if (braces.length && braces[braces.length - 1] === depth) {
        braces.pop();
        template();
      } else {
        out += c;
        i++;
        last = c;
      }
    } else if (/[A-Za-z_$]/.test(c)) {
      let j = i + 1;
      while (j < n && /[\w$]/.test(src[j])) j++;
      last = src.slice(i, j);
      out += last;
      i = j;
    } else {
      if (!/\s/.test(c)) last = c;
      out += c;
      i++;
    }
  }
  return out;
}

interface Import {
  from: string; // repository-relative path of the importing file
  spec: string; // the specifier as written
  target: string | null; // repository-relative path of the imported file, for relative specifiers
  line: number;
  /** Loaded with the importing file: a static import that is not `import type` (erased at build). */
  atLoad: boolean;
}

const STATIC = /(?:^|[;}\n])[ \t]*(?:import|export)\s+(?:type\s+)?(?:[\w$*{}\s,]+?\s+from\s*)?["']([^"'\n]+)["']/g;
const DYNAMIC = /\b(?:import|require)\s*\(\s*["'`]([^"'`\n]+)["'`]\s*\)/g;

function resolveSpec(from: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  const base = relative(ROOT, resolve(ROOT, dirname(from), spec));
  for (const cand of [base, `${base}.ts`, `${base}.tsx`, `${base}.js`, `${base}/index.ts`]) {
    const abs = join(ROOT, cand);
    if (existsSync(abs) && statSync(abs).isFile()) return cand;
  }
  return base; // unresolved: keep the path so the edge is still attributed to a folder
}

const sources = new Map<string, string>();
function code(file: string): string {
  let s = sources.get(file);
  if (s === undefined) {
    s = stripComments(readFileSync(join(ROOT, file), "utf8"));
    sources.set(file, s);
  }
  return s;
}

function importsOf(file: string): Import[] {
  const s = code(file);
  const out: Import[] = [];
  for (const re of [STATIC, DYNAMIC]) {
    for (const m of s.matchAll(re)) {
      const at = m.index! + m[0].lastIndexOf(m[1]);
      const atLoad = re === STATIC && !/(?:import|export)\s+type\s/.test(m[0]);
      out.push({ from: file, spec: m[1], target: resolveSpec(file, m[1]), line: s.slice(0, at).split("\n").length, atLoad });
    }
  }
  return out;
}

/** The folder of a src/ file: "lib", "storage", …; top-level files and src/cli are "app". */
function folderOf(file: string): string | null {
  if (!file.startsWith("src/")) return null;
  const parts = file.split("/");
  if (parts.length === 2 || parts[1] === "cli") return "app";
  return parts[1];
}

const DB_MODULE = /^(bun:sqlite|drizzle-orm)(\/|$)/;
// SQL statement shapes, tested line by line on code with comments removed. SQL here is written in capitals; the keywords must be capitals so that English
// prose in messages ("select a mailbox from the list") does not count.
const SQL =
  /\b(SELECT\s+(DISTINCT\s+)?[\w*.(]+[^\n]*?\bFROM\s+[\w"(]|INSERT\s+(OR\s+[A-Z]+\s+)?INTO\s+[\w"]|UPDATE\s+[\w"]+\s+SET\s+\w|DELETE\s+FROM\s+[\w"]|CREATE\s+(UNIQUE\s+)?(TABLE|INDEX|TRIGGER|VIEW)\b|DROP\s+(TABLE|INDEX|TRIGGER|VIEW)\b|ALTER\s+TABLE\s+\w|PRAGMA\s+\w+)/;

/** The src/ files loaded with `entry` (static imports, not `import type`), each mapped to the file that loads it. */
function loadedWith(entry: string): Map<string, string> {
  const chain = new Map<string, string>([[entry, ""]]);
  const queue = [entry];
  while (queue.length) {
    const file = queue.shift()!;
    for (const { target, atLoad } of importsOf(file)) {
      if (!atLoad || !target?.startsWith("src/") || chain.has(target) || !existsSync(join(ROOT, target))) continue;
      chain.set(target, file);
      queue.push(target);
    }
  }
  return chain;
}

/** How `loadedWith`'s entry reaches `file`: "a.ts -> b.ts -> file". */
function pathTo(chain: Map<string, string>, file: string): string {
  const path = [file];
  while (chain.get(path[0]!)) path.unshift(chain.get(path[0]!)!);
  return path.join(" -> ");
}

const SRC = walk("src");
const OUTSIDE_STORAGE = [...SRC.filter((f) => !f.startsWith("src/storage/")), ...walk("scripts"), ...walk("bench")];
const TESTS = walk("test");
const SQLITE_INSPECTOR = "test/support/sqlite-file.ts";

const fmt = (i: Import) => `  ${i.from}:${i.line} imports "${i.spec}"`;

describe("architecture", () => {
  test("the import scanner sees the graph (sanity)", () => {
    const edges = SRC.flatMap(importsOf).filter((i) => i.target);
    expect(SRC.length).toBeGreaterThan(50);
    expect(edges.length).toBeGreaterThan(200);
    const unresolved = edges.filter((i) => !existsSync(join(ROOT, i.target!)) || !statSync(join(ROOT, i.target!)).isFile());
    if (unresolved.length) throw new Error(`relative imports that resolve to no file:\n${unresolved.map(fmt).join("\n")}`);
  });

  test("every folder of src/ has a rank", () => {
    const unknown = [...new Set(SRC.map(folderOf).filter((f) => f !== null && !(f in RANKS)))];
    if (unknown.length) {
      throw new Error(
        `folders of src/ without a rank (add them to RANKS in ${relative(ROOT, import.meta.path)} and CONTRIBUTING.md): ${unknown.join(", ")}`,
      );
    }
  });

  test("only src/storage/ imports bun:sqlite or drizzle-orm (src/, scripts/, bench/)", () => {
    const bad = OUTSIDE_STORAGE.flatMap(importsOf).filter((i) => DB_MODULE.test(i.spec));
    if (bad.length) {
      throw new Error(
        `${bad.length} database import(s) outside src/storage/. Move the query into a repository ` +
          `(src/storage/<capability>.ts + src/storage/sqlite/<capability>.ts) and call that:\n${bad.map(fmt).join("\n")}`,
      );
    }
  });

  test("only src/storage/ holds SQL (src/, scripts/, bench/)", () => {
    const bad: string[] = [];
    for (const f of OUTSIDE_STORAGE) {
      code(f)
        .split("\n")
        .forEach((line, k, lines) => {
          // a SELECT's FROM may sit on the next line of a multi-line template literal
          const m = SQL.test(line) || (/\bSELECT\s/.test(line) && SQL.test(`${line} ${lines[k + 1] ?? ""}`));
          if (m) bad.push(`  ${f}:${k + 1}: ${line.trim().slice(0, 150)}`);
        });
    }
    if (bad.length) {
      const files = new Set(bad.map((b) => b.trim().split(":")[0]));
      throw new Error(
        `SQL outside src/storage/ (${bad.length} line(s) in ${files.size} file(s)). Move it into a repository:\n${bad.join("\n")}`,
      );
    }
  });

  test(`in test/, only ${SQLITE_INSPECTOR} imports bun:sqlite`, () => {
    const bad = TESTS.filter((f) => f !== SQLITE_INSPECTOR)
      .flatMap(importsOf)
      .filter((i) => /^bun:sqlite$/.test(i.spec));
    if (bad.length) {
      throw new Error(
        `tests that open the database directly; drive inboxd through its API/protocols, or inspect the file at rest via ${SQLITE_INSPECTOR}:\n${bad.map(fmt).join("\n")}`,
      );
    }
  });

  test("imports point down the layers (rank of the imported folder <= rank of the importer)", () => {
    const bad: string[] = [];
    for (const i of SRC.flatMap(importsOf)) {
      const a = folderOf(i.from);
      const b = i.target ? folderOf(i.target) : null;
      if (!a || !b || a === b || !(a in RANKS) || !(b in RANKS)) continue;
      if (RANKS[b] > RANKS[a]) bad.push(`${fmt(i)}  [${a}(${RANKS[a]}) -> ${b}(${RANKS[b]})]`);
    }
    if (bad.length) {
      const ranks = Object.entries(RANKS)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ");
      throw new Error(
        `${bad.length} import(s) point up the layers (ranks: ${ranks}). Move the shared code down, or pass it in from ` +
          `the composition (src/services/index.ts):\n${bad.join("\n")}`,
      );
    }
  });

  test("the entry point loads the services only for the commands that need them (dynamic imports)", () => {
    // `inboxd --help`, `version` and a refused flag answer from src/main.ts and what it imports at load;
    // with the services in that set every such answer took ~1.2 s of module loading instead of ~0.2 s.
    const chain = loadedWith("src/main.ts");
    expect(chain.size).toBeGreaterThan(3);
    for (const heavy of ["src/services/index.ts", "src/server.ts", "src/http/app.ts"]) {
      if (chain.has(heavy))
        throw new Error(`src/main.ts loads ${heavy} at start: ${pathTo(chain, heavy)}; import it where a command runs instead`);
    }
  });

  test("the server loads at start only what serving needs; features load at their first use", () => {
    // Each of these packages cost every start 0.1-0.3 s of module loading (docs/decisions.md, "Start-up");
    // each serves one feature, which imports it where it runs.
    const chain = loadedWith("src/server.ts");
    expect(chain.size).toBeGreaterThan(100);
    const packages = new Map<string, string>();
    for (const file of chain.keys()) {
      for (const { spec, atLoad } of importsOf(file)) if (atLoad && !spec.startsWith(".")) packages.set(spec, file);
    }
    expect(packages.has("elysia")).toBe(true);
    const LAZY = /^(mailauth|selfsigned|@modelcontextprotocol\/sdk|swagger-ui-dist)(\/|$)/;
    const eager = [...packages].filter(([spec]) => LAZY.test(spec)).map(([spec, file]) => `${spec}: ${pathTo(chain, file)}`);
    expect(eager).toEqual([]);
  });

  test("no module of src awaits at its top level (that holds the loading of every module importing it)", () => {
    const found = SRC.filter((f) => /\.ts$/.test(f)).flatMap((f) =>
      code(f)
        .split("\n")
        .flatMap((line, i) =>
          /^(?:export\s+)?(?:(?:const|let|var)\s[^=]*=\s*)?await\s/.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(found).toEqual([]);
  });

  test("no cycles between folders", () => {
    // folder -> folder -> the file-level imports making up that edge
    const graph = new Map<string, Map<string, Import[]>>();
    for (const i of SRC.flatMap(importsOf)) {
      const a = folderOf(i.from);
      const b = i.target ? folderOf(i.target) : null;
      if (!a || !b || a === b) continue;
      if (!graph.has(a)) graph.set(a, new Map());
      const to = graph.get(a)!;
      if (!to.has(b)) to.set(b, []);
      to.get(b)!.push(i);
    }
    // Tarjan's strongly connected components: any component with more than one folder is a cycle.
    let index = 0;
    const idx = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const on = new Set<string>();
    const sccs: string[][] = [];
    const visit = (v: string) => {
      idx.set(v, index);
      low.set(v, index++);
      stack.push(v);
      on.add(v);
      for (const w of graph.get(v)?.keys() ?? []) {
        if (!idx.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
      }
      if (low.get(v) === idx.get(v)) {
        const comp: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          on.delete(w);
          comp.push(w);
        } while (w !== v);
        if (comp.length > 1) sccs.push(comp.sort());
      }
    };
    for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
    if (sccs.length) {
      const list = (a: string, b: string) => {
        const edges = graph.get(a)?.get(b) ?? [];
        const lines = [`  ${a} -> ${b} (${edges.length} import(s)):`, ...edges.slice(0, 8).map((e) => `  ${fmt(e)}`)];
        if (edges.length > 8) lines.push(`    … and ${edges.length - 8} more`);
        return lines;
      };
      const parts = sccs.map((comp) => {
        const lines = [`cycle among folders: ${comp.join(", ")}`];
        // Folders importing each other directly are the first thing to fix; list their file-level imports.
        for (const a of comp) {
          for (const b of comp) {
            if (a < b && graph.get(a)?.has(b) && graph.get(b)?.has(a)) lines.push(` ${a} <-> ${b}:`, ...list(a, b), ...list(b, a));
          }
        }
        const rest = comp.flatMap((a) =>
          [...(graph.get(a)?.keys() ?? [])].filter((b) => comp.includes(b) && !graph.get(b)?.has(a)).map((b) => `${a} -> ${b}`),
        );
        if (rest.length) lines.push(` other folder edges inside this cycle: ${rest.join(", ")}`);
        return lines.join("\n");
      });
      throw new Error(`folders that depend on each other; break one direction of each cycle:\n${parts.join("\n")}`);
    }
  });
});
