// The HTTP application: the conventions every route shares (request id, error envelope, rate
// limits, authentication and project binding, metrics, 404/405), then the route modules.
import { Elysia, t } from "elysia";
import { openapi } from "@elysiajs/openapi";
import type { AppContext } from "../runtime/context";
import type { Services } from "../services";
import { DomainError, isStorageFull, storageFull, validation } from "../lib/errors";
import { httpStatus } from "./errors";
import { initRequest, stateOf } from "./request";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "./json-depth";
import { strictQueryIntegers } from "./query-integers";
import { RateLimiter } from "./ratelimit";
import type { Metrics } from "../lib/metrics";
import { newId } from "../lib/ids";
import { log } from "../lib/log";
import { routeModules } from "./routes";
import { docsRoutes } from "./docs-page";
import { completeDocument } from "./openapi-doc";
import { completeValidationDetails, schemaFailure } from "./validation-details";

/** Routes that bind no project (API.md: user-plane). */
const USER_PLANE = /^\/v1\/(me|projects|devices|signin)(\/|$)/;
/**
 * Routes where X-Service-Agent-Session binds the call to an agent session: the contract's inbox and
 * message routes, plus scenarios and runs so that MCP's run_scenario/get_run are checked and recorded too.
 */
const SESSION_ROUTES = /^\/v1\/(inboxes|messages|scenarios|runs)(\/|$)/;
/** The one route that takes a message/rfc822 body (import). */
const IMPORT_ROUTE = /^\/v1\/inboxes\/[^/]+\/messages\/?$/;
const isImport = (req: Request) => req.method === "POST" && IMPORT_ROUTE.test(new URL(req.url).pathname);

/**
 * The raw body of an import, refused with 413 above the size limit and 503 server_busy when the
 * in-flight budget cannot take it (by Content-Length before reading, when sent).
 */
async function readRaw(request: Request, services: Services): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > 0) {
    services.imports.checkSize(declared);
    services.imports.checkBudget(declared);
  }
  const raw = new Uint8Array(await request.arrayBuffer());
  services.imports.checkSize(raw.byteLength);
  return raw;
}

/** Routes reachable without credentials. */
const isPublic = (method: string, path: string) => method === "POST" && (path === "/v1/devices" || path === "/v1/signin");

export interface HttpApp {
  app: Elysia<any, any, any, any, any, any, any>;
  metrics: Metrics;
  /** Called by the server once every listener is up: /readyz may then answer 200. */
  markReady(): void;
}

/** /healthz and /readyz: a status word, and per check "ok" or what failed. */
const Probe = t.Object(
  {
    status: t.Union([t.Literal("ok"), t.Literal("unavailable")]),
    checks: t.Record(t.String(), t.String(), { description: 'per check: "ok" or why it failed' }),
  },
  { examples: [{ status: "ok", checks: { database: "ok", listeners: "ok" } }] },
);
/** A check answers within this, or counts as failed (a database stuck behind a lock, say). */
const PROBE_TIMEOUT_MS = 2_000;

async function probe(name: string, run: () => Promise<unknown>): Promise<[string, string]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      run(),
      new Promise(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS)),
      ),
    ]);
    return [name, "ok"];
  } catch (e) {
    log.warn({ check: name, err: e }, "health check failed");
    return [name, String((e as Error)?.message ?? e).slice(0, 200)];
  } finally {
    clearTimeout(timer);
  }
}

export function buildHttpApp(ctx: AppContext, services: Services): HttpApp {
  const metrics = services.metrics;
  let ready = false;
  const probeAnswer = (checks: [string, string][], set: { status?: unknown }) => {
    const ok = checks.every(([, v]) => v === "ok");
    set.status = ok ? 200 : 503;
    return { status: ok ? ("ok" as const) : ("unavailable" as const), checks: Object.fromEntries(checks) };
  };
  const limiter = new RateLimiter(ctx.config.rateLimitRps, ctx.config.rateLimitBurst);
  let knownRoutes: { re: RegExp; method: string }[] = [];
  let openapiDoc: Promise<string> | null = null;

  const envelope = (req: Request, e: DomainError, extraHeaders: Record<string, string> = {}, status = httpStatus(e)) => {
    const s = stateOf(req);
    if (s) s.errorStatus = status;
    const requestId = s?.id ?? newId();
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "x-request-id": requestId,
      ...(s?.rateHeaders ?? {}),
      ...e.hints,
      ...extraHeaders,
    };
    if (!s?.rateHeaders && new URL(req.url).pathname.startsWith("/v1")) {
      Object.assign(headers, limiter.take(`ip:${clientIp(req)}`).headers);
    }
    const details = e.code === "validation_error" ? completeValidationDetails(e.details, e.message) : e.details;
    return new Response(JSON.stringify({ code: e.code, message: e.message, details, request_id: requestId }), {
      status,
      headers,
    });
  };

  // Precompiled, the first request to a route does not stop the loop while Elysia builds its
  // handler and validators (20-150 ms a route); the price is ~1-3 s of start-up (docs/decisions.md).
  const app = new Elysia({ normalize: true, precompile: ctx.config.httpPrecompile === "on" })
    .use(
      openapi({
        path: "/openapi-ui",
        specPath: "/openapi-generated.json",
        provider: null,
        exclude: { paths: [/^\/docs/, "/openapi.json", "/openapi-generated.json"] },
        documentation: {
          info: {
            title: "inboxd",
            version: "1.0.0",
            description: "Self-hosted inbox testing service. HTTP contract v1.",
          },
          components: {
            securitySchemes: {
              ApiKeyAuth: { type: "http", scheme: "bearer", description: "API key (isk_live_…)" },
              DeviceSession: { type: "http", scheme: "bearer", description: "device session token (isd_…)" },
            },
          },
          security: [{ ApiKeyAuth: [] }, { DeviceSession: [] }],
        },
      }),
    )
    .onRequest(({ request, set, server }) => {
      const s = initRequest(request, newId(), server?.requestIP(request)?.address ?? "local");
      set.headers["x-request-id"] = s.id;
    })
    .onParse({ as: "global" }, async ({ request, path }, given) => {
      // Media types are case-insensitive (RFC 9110 §8.3.1): `Application/JSON` is JSON.
      const contentType = given?.toLowerCase();
      // Import (POST /v1/inboxes/{id}/messages) alone takes raw mail: the exact bytes, never decoded.
      if (contentType?.startsWith("message/rfc822") && isImport(request)) return readRaw(request, services);
      // Strict JSON: a body that does not parse is a 400 in the envelope, never silently empty.
      if (!contentType || contentType.startsWith("application/json") || contentType.startsWith("text/plain")) {
        const text = await request.text();
        if (text.trim() === "") return undefined;
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          throw new DomainError("bad_request", "invalid_body", "the request body is not valid JSON");
        }
        if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
          throw new DomainError(
            "bad_request",
            "invalid_body",
            `the request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
          );
        }
        // Every /v1 body is an object (CONTRACT.md); an optional one may be left out, not be [], null or 42.
        if (path.startsWith("/v1/") && (body === null || typeof body !== "object" || Array.isArray(body))) {
          throw validation("the request body must be a JSON object", { errors: [{ path: "", message: "must be an object" }] });
        }
        return body;
      }
      if (!contentType.startsWith("application/x-www-form-urlencoded") && !contentType.startsWith("multipart/form-data")) {
        throw new DomainError(
          "unsupported",
          "unsupported_media_type",
          isImport(request)
            ? `content type ${given} is not accepted; send application/json (compose) or message/rfc822 (import)`
            : `content type ${given} is not accepted; send application/json`,
        );
      }
    })
    .onTransform({ as: "global" }, async ({ request, path, set }) => {
      if (!path.startsWith("/v1/")) return;
      const s = stateOf(request)!;
      let rateKey = `ip:${clientIp(request)}`;
      // Every request is counted, a refused credential too (against its IP), and an exhausted
      // budget answers 429 before anything else, so guessing keys is throttled like any traffic.
      let refused: unknown = null;
      try {
        if (!isPublic(request.method, path)) {
          s.authorization = request.headers.get("authorization") ?? streamQuery(request, path, "access_token", "Bearer ");
          s.principal = await services.auth.authenticate(s.authorization);
          rateKey = `${s.principal.kind}:${s.principal.id}`;
        }
      } catch (e) {
        refused = e;
      }
      const r = limiter.take(rateKey);
      s.rateHeaders = r.headers;
      Object.assign(set.headers, r.headers);
      if (!r.allowed) {
        throw new DomainError(
          "rate_limited",
          "rate_limited",
          "too many requests; retry after the delay in Retry-After",
          { retry_after: r.retryAfter },
          { "retry-after": String(r.retryAfter) },
        );
      }
      if (refused) throw refused;
      if (s.principal && !USER_PLANE.test(path)) {
        s.project = await services.auth.resolveProject(
          s.principal,
          request.headers.get("x-service-project") ?? streamQuery(request, path, "project"),
        );
        const session = request.headers.get("x-service-agent-session");
        if (session !== null && SESSION_ROUTES.test(path)) {
          const bound = await services.agentSessions.bind(s.principal, s.project, session);
          s.principal = bound.principal;
          s.agentSession = bound.binding;
        }
      }
      strictQueryIntegers(request.url);
    })
    .onAfterResponse({ as: "global" }, ({ request, route, set, path }) => {
      const s = stateOf(request);
      if (!s) return;
      const status = s.errorStatus ?? (typeof set.status === "number" ? set.status : 200);
      const ms = performance.now() - s.startedAt;
      metrics.observe(request.method, route || "unmatched", status, ms / 1000);
      // The path only: a query may carry a credential (EventSource's access_token).
      if (log.isLevelEnabled("debug"))
        log.debug({ method: request.method, path, status, ms: Math.round(ms), request_id: s.id }, "http request");
      if (s.agentSession) {
        void services.agentSessions
          .recordCall(s.agentSession, { method: request.method, route: route || path, path, status, request_id: s.id })
          .catch((e) => log.error({ err: e }, "recording an agent-session call failed"));
      }
    })
    .onError({ as: "global" }, ({ code, error, request, path }) => {
      // /mcp speaks JSON-RPC: a body that is no JSON is its Parse error (-32700), as an empty one already is.
      // (Elysia wraps what the parse hook throws: code PARSE, our DomainError as the cause.)
      const parseFailure = code === "PARSE" ? ((error as { cause?: unknown }).cause ?? error) : error;
      if (parseFailure instanceof DomainError && parseFailure.code === "invalid_body" && new URL(request.url).pathname === "/mcp") {
        return Response.json(
          { jsonrpc: "2.0", error: { code: -32700, message: `Parse error: ${parseFailure.message}` }, id: null },
          { status: 400 },
        );
      }
      if (error instanceof DomainError) return envelope(request, error);
      switch (code) {
        case "VALIDATION": {
          const { in: where, errors } = schemaFailure(error, request.url);
          const message = `invalid ${where}: ${errors[0]?.path || "/"} ${errors[0]?.message ?? ""}`.trim();
          return envelope(request, new DomainError("invalid", "validation_error", message, { in: where, errors }));
        }
        case "PARSE":
          // Elysia wraps what our parse hook throws (415, 413): answer with that error.
          if ((error as any)?.cause instanceof DomainError) return envelope(request, (error as any).cause);
          return envelope(request, new DomainError("bad_request", "invalid_body", "the request body could not be parsed (expected JSON)"));
        case "NOT_FOUND": {
          const allowed = knownRoutes.filter((r) => r.re.test(path)).map((r) => r.method);
          if (allowed.length > 0) {
            return envelope(
              request,
              new DomainError("not_allowed", "method_not_allowed", `${request.method} is not allowed on ${path}`, { allowed }),
              { allow: [...new Set(allowed)].join(", ") },
            );
          }
          return envelope(request, new DomainError("not_found", "not_found", `no route ${request.method} ${path}`));
        }
        default: {
          const status = (error as any)?.status;
          if (typeof status === "number" && status >= 400 && status < 500) {
            return envelope(
              request,
              new DomainError("bad_request", "bad_request", String((error as any)?.message ?? "bad request")),
              {},
              status,
            );
          }
          if (isStorageFull(error)) {
            log.error({ err: error, method: request.method, path, request_id: stateOf(request)?.id }, "storage full");
            return envelope(request, storageFull());
          }
          log.error({ err: error, method: request.method, path, request_id: stateOf(request)?.id }, "unhandled error");
          return envelope(request, new DomainError("internal", "internal", "internal error; see the server log for the request id"));
        }
      }
    })
    .get("/healthz", async ({ set }) => probeAnswer([await probe("database", () => ctx.storage.check(false))], set), {
      response: { 200: Probe, 503: Probe },
      detail: {
        summary: "Liveness: the process answers and its database answers a read (503 otherwise)",
        tags: ["operations"],
        security: [],
      },
    })
    .get(
      "/readyz",
      async ({ set }) =>
        probeAnswer(
          [
            ["listeners", ready ? "ok" : "starting"],
            ready ? await probe("database", () => ctx.storage.check(true)) : ["database", "not checked yet"],
          ],
          set,
        ),
      {
        response: { 200: Probe, 503: Probe },
        detail: {
          summary: "Readiness: 503 until every listener is up and the database takes writes, then 200",
          tags: ["operations"],
          security: [],
        },
      },
    )
    .get("/metrics", async () => new Response(await metrics.render(), { headers: { "content-type": metrics.contentType } }), {
      response: { 200: t.String({ description: "Prometheus text exposition format 0.0.4" }) },
      detail: { summary: "Prometheus metrics (docs/operations.md lists the series)", tags: ["operations"], security: [] },
    })
    .get(
      "/openapi.json",
      async (): Promise<Response> => {
        openapiDoc ??= (async (): Promise<string> => {
          const generated: Response = await app.handle(new Request("http://inboxd.internal/openapi-generated.json"));
          const raw: any = await generated.json();
          return JSON.stringify(completeDocument(raw, app.routes as any));
        })();
        return new Response(await openapiDoc, { headers: { "content-type": "application/json" } });
      },
      { detail: { hide: true } },
    )
    .use(docsRoutes());

  for (const mod of routeModules) app.use(mod(ctx, services));

  ctx.internalFetch = (req) => app.handle(req);

  knownRoutes = app.routes.map((r: any) => ({
    method: String(r.method).toUpperCase(),
    re: new RegExp(
      "^" +
        String(r.path)
          .replace(/:[^/]+/g, "[^/]+")
          .replace(/\*/g, ".*") +
        "/?$",
    ),
  }));

  return { app, metrics, markReady: () => void (ready = true) };
}

/**
 * EventSource (the browser's SSE client, used by the web UI) cannot send headers, so GET /v1/events
 * alone also takes the credential and the project as ?access_token=…&project=… (docs/ui.md).
 */
function streamQuery(req: Request, path: string, name: string, prefix = ""): string | null {
  if (req.method !== "GET" || path !== "/v1/events") return null;
  const v = new URL(req.url).searchParams.get(name);
  return v ? prefix + v : null;
}

export function clientIp(req: Request): string {
  return stateOf(req)?.ip ?? "local";
}
