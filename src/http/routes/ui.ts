// The web UI at `/` (a single page; hash routes) and its assets under /ui/. From source the UI is
// bundled from web/ on first request; the compiled executable serves the embedded generated module.
import { Elysia } from "elysia";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { RouteModule } from ".";
import type { UiAssets } from "../ui-build";
import { UI_ASSETS } from "../ui-assets.generated";

const WEB_DIR = resolve(import.meta.dir, "../../../web");

let assets: Promise<UiAssets> | null = null;
function loadAssets(): Promise<UiAssets> {
  return (assets ??= (async () => {
    if (process.env.INBOXD_UI_FROM_SOURCE !== "0" && existsSync(join(WEB_DIR, "src/main.ts"))) {
      try {
        const { buildUi } = await import("../ui-build");
        return await buildUi(WEB_DIR);
      } catch (e) {
        console.error("web UI: building from web/ failed; serving the embedded bundle", e);
      }
    }
    return UI_ASSETS;
  })());
}

// The page's own scripts come only from /ui/; message HTML is shown in a sandboxed srcdoc iframe,
// which inherits this policy too (so no script runs there even if the sanitizer missed one).
// img-src allows remote images because "load remote content" is an explicit user choice.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src * data: blob:",
  "font-src 'self' data:",
  "media-src 'none'",
  "object-src 'none'",
  "connect-src 'self'",
  "frame-src 'self' blob: data:",
  "base-uri 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const page = (body: string, type: string, cache: string) =>
  new Response(body, {
    headers: {
      "content-type": type,
      "cache-control": cache,
      "content-security-policy": CSP,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
    },
  });

const hide = { detail: { hide: true } };
// Assets are requested with ?v=<content hash>, so they may be cached for good.
const IMMUTABLE = "public, max-age=31536000, immutable";

const mod: RouteModule = () =>
  new Elysia()
    .get("/", async () => page((await loadAssets()).html, "text/html; charset=utf-8", "no-cache"), hide)
    .get("/ui/app.js", async () => page((await loadAssets()).js, "text/javascript; charset=utf-8", IMMUTABLE), hide)
    .get("/ui/app.css", async () => page((await loadAssets()).css, "text/css; charset=utf-8", IMMUTABLE), hide)
    .get("/ui/favicon.svg", async () => page((await loadAssets()).favicon, "image/svg+xml", "public, max-age=86400"), hide)
    .get("/favicon.ico", async () => page((await loadAssets()).favicon, "image/svg+xml", "public, max-age=86400"), hide);

export default mod;
