// Bundles the web UI (web/) into three strings: the HTML shell, one JS file and one CSS file.
// Used by scripts/build-ui.ts (which writes src/http/ui-assets.generated.ts for the compiled
// executable) and by the UI route when the server runs from source, so that editing web/ needs
// no separate build step.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { createHash } from "node:crypto";

export interface UiAssets {
  /** sha256 over every file under web/ and the shared modules it imports (paths and bytes): tells whether a
   * generated module is stale. */
  sourceHash: string;
  html: string;
  js: string;
  css: string;
  favicon: string;
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}

/** The repository files outside `webDir` that web/src imports, directly or through each other (the UI
 * shares pure modules with the server, such as the scope vocabulary): a change there changes the bundle too. */
function sharedSources(webDir: string): string[] {
  const transpiler = new Bun.Transpiler({ loader: "ts" });
  const seen = new Set<string>();
  const visit = (file: string) => {
    for (const { path } of transpiler.scanImports(readFileSync(file, "utf8"))) {
      if (!path.startsWith(".")) continue;
      const base = resolve(dirname(file), path);
      const found = [base, `${base}.ts`, join(base, "index.ts")].find((p) => existsSync(p) && statSync(p).isFile());
      if (!found || seen.has(found)) continue;
      seen.add(found);
      visit(found);
    }
  };
  for (const file of walk(join(webDir, "src"))) if (file.endsWith(".ts")) visit(file);
  return [...seen].filter((f) => relative(webDir, f).startsWith("..")).sort();
}

export function webSourceHash(webDir: string): string {
  const h = createHash("sha256");
  for (const file of [...walk(webDir), ...sharedSources(webDir)]) {
    h.update(relative(webDir, file).replaceAll("\\", "/"));
    h.update("\0");
    h.update(readFileSync(file));
    h.update("\0");
  }
  return h.digest("hex");
}

export async function buildUi(webDir: string): Promise<UiAssets> {
  const result = await Bun.build({
    entrypoints: [join(webDir, "src/main.ts")],
    target: "browser",
    format: "esm",
    minify: true,
    sourcemap: "none",
  });
  if (!result.success || result.outputs.length === 0) {
    throw new Error(`web UI build failed:\n${result.logs.map((l) => String(l)).join("\n")}`);
  }
  const js = await result.outputs[0]!.text();
  const css = readFileSync(join(webDir, "app.css"), "utf8");
  const favicon = readFileSync(join(webDir, "favicon.svg"), "utf8");
  const version = createHash("sha256").update(js).update(css).digest("hex").slice(0, 12);
  const html = readFileSync(join(webDir, "index.html"), "utf8").replaceAll("%VERSION%", version);
  return { sourceHash: webSourceHash(webDir), html, js, css, favicon };
}
