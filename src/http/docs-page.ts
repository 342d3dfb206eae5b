// /docs: the API reference with try-it (Swagger UI from swagger-ui-dist), rendered from /openapi.json.
// The bundle and stylesheet are imported as text, so `bun build --compile` embeds them in the
// executable: /docs works air-gapped, with no CDN. They load with the first request for them, not at
// start-up (the 1.5 MB bundle cost every start ~0.13 s). Try-it sends the API key as a bearer token
// (Authorize → ApiKeyAuth); the key is kept in the browser's storage across reloads.
import { Elysia } from "elysia";

let bundle: Promise<string> | undefined;
let css: Promise<string> | undefined;
const swaggerBundle = () => (bundle ??= import("swagger-ui-dist/swagger-ui-bundle.js", { with: { type: "text" } }).then((m) => m.default));
const swaggerCss = () => (css ??= import("swagger-ui-dist/swagger-ui.css", { with: { type: "text" } }).then((m) => m.default));

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>inboxd API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<style>body{margin:0}.swagger-ui .topbar{display:none}</style>
</head><body><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body></html>`;

const INIT = `window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  persistAuthorization: true,
  displayOperationId: true,
  tryItOutEnabled: true,
  filter: true,
  docExpansion: "list",
  defaultModelsExpandDepth: 0,
  validatorUrl: null,
});`;

// Swagger UI injects inline styles; everything else comes from this origin.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const asset = (body: string, type: string, cache = "public, max-age=3600") =>
  new Response(body, {
    headers: { "content-type": type, "cache-control": cache, "content-security-policy": CSP, "x-content-type-options": "nosniff" },
  });

const hide = { detail: { hide: true } };

export const docsRoutes = () =>
  new Elysia()
    .get("/docs", () => asset(PAGE, "text/html; charset=utf-8", "no-cache"), hide)
    .get("/docs/", () => asset(PAGE, "text/html; charset=utf-8", "no-cache"), hide)
    .get("/docs/swagger-ui-bundle.js", async () => asset(await swaggerBundle(), "text/javascript; charset=utf-8"), hide)
    .get("/docs/swagger-ui.css", async () => asset(await swaggerCss(), "text/css; charset=utf-8"), hide)
    .get("/docs/init.js", () => asset(INIT, "text/javascript; charset=utf-8", "no-cache"), hide);
