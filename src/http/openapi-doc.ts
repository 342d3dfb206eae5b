// /openapi.json: the document @elysiajs/openapi generates from the route schemas (request bodies,
// parameters and the `response:` schemas of src/http/resources.ts), completed with what the
// generator cannot know: the shared conventions of every /v1 route (project and idempotency
// headers, rate-limit and request-id response headers, the error envelope per status), stable
// camelCase operationIds, integer query parameters as integers, named component schemas, tags
// and examples. Built once, when the document is first asked for.

interface RouteInfo {
  method: string;
  path: string;
  hooks?: { body?: unknown };
}

export const ERROR_SCHEMA = {
  title: "Error",
  type: "object",
  required: ["code", "message", "details", "request_id"],
  properties: {
    code: { type: "string", description: "machine-readable error code (docs/api.md)", examples: ["validation_error"] },
    message: { type: "string", examples: ["invalid query: /limit Expected integer"] },
    details: { type: "object", additionalProperties: true },
    request_id: { type: "string", description: "also in the X-Request-Id header", examples: ["01JH8Z6Q2V3W4X5Y6Z7A8B9C0D"] },
  },
};

/** Routes that bind no project (API.md: user-plane), as in app.ts. */
const USER_PLANE = /^\/v1\/(me|projects|devices)(\/|$)/;

const ACTIONS_200 = new Set(["revoke", "rotate", "verify", "test", "release", "approve", "reject", "mark-read", "cancel", "validate"]);
const ACTIONS_200_ALSO = new Set(["catch-all", "rotate-secret", "pause", "resume", "redeliver"]);

function successStatus(method: string, path: string): string {
  if (method === "delete") return "204";
  if (method !== "post") return "200";
  const last = path.split("/").pop()!;
  if (last === "publish") return "201";
  if (ACTIONS_200.has(last) || ACTIONS_200_ALSO.has(last)) return "200";
  return last.startsWith("{") ? "200" : "201";
}

/** operationIds the generic rule would name badly. */
const OPERATION_IDS: Record<string, string> = {
  "get /healthz": "getHealth",
  "get /readyz": "getReadiness",
  "get /metrics": "getMetrics",
  "post /mcp": "postMcp",
  "get /mcp": "streamMcp",
  "delete /mcp": "closeMcp",
  "get /v1/me": "getMe",
  "post /v1/devices": "logIn",
  "delete /v1/devices/{id}": "logOut",
  "post /v1/alerts/mark-read": "markAlertsRead",
  "get /v1/events": "streamEvents",
  "post /v1/inboxes/{id}/mark-read": "markInboxRead",
  "put /v1/inboxes/{id}/watch": "watchInbox",
  "delete /v1/inboxes/{id}/watch": "unwatchInbox",
  "get /v1/inboxes/{id}/chaos": "getInboxChaos",
  "put /v1/inboxes/{id}/chaos": "setInboxChaos",
  "delete /v1/inboxes/{id}/chaos": "clearInboxChaos",
  "get /v1/smtp/chaos": "getSmtpChaos",
  "put /v1/smtp/chaos": "setSmtpChaos",
  "delete /v1/smtp/chaos": "clearSmtpChaos",
  "get /v1/inboxes/{id}/credentials": "getInboxCredentials",
  "post /v1/inboxes/{id}/messages": "importInboxMessage",
  "delete /v1/inboxes/{id}/messages": "deleteInboxMessages",
  "get /v1/inboxes/{id}/messages/latest": "getLatestInboxMessage",
  "get /v1/messages/{id}/html": "getMessageHtml",
  "get /v1/messages/{id}/raw": "getMessageRaw",
  "get /v1/messages/{id}/attachments/{attachmentId}/agent": "getMessageAttachmentForAgent",
  "get /v1/usage": "getUsage",
  "post /v1/domains/{id}/catch-all": "setDomainCatchAll",
  "post /v1/webhooks/{id}/rotate-secret": "rotateWebhookSecret",
  "post /v1/webhooks/{id}/test": "testWebhook",
  "post /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver": "redeliverWebhookDelivery",
  "get /v1/scenarios/schema": "getScenarioDefinitionSchema",
  "post /v1/runs": "launchRun",
  "post /v1/agent-sessions": "openAgentSession",
};

const TAGS: Record<string, string> = {
  account: "The caller, its projects and device sessions (user plane: no X-Service-Project)",
  inboxes: "Disposable and persistent inboxes, their credentials, watches and fault injection",
  messages: "Received messages: list, search, long-poll, bodies, raw bytes and attachments",
  domains: "Custom domains, their DNS records and catch-all inboxes",
  webhooks: "Webhook registrations and their deliveries",
  events: "Server-Sent Events of the bound project",
  alerts: "Per-user notifications (device sessions only)",
  "api-keys": "API keys of the bound project",
  usage: "Plan, quotas and usage",
  agents: "Named permission sets that runs act as",
  "agent-sessions": "MCP agent sessions",
  approvals: "Human decisions on parked sensitive run steps",
  "http-origins": "Origins a scenario step or webhook may call",
  "scenario-secrets": "Secrets scenarios may reference (values never returned)",
  scenarios: "Scenario drafts and published versions",
  runs: "Scenario runs and their events",
  mcp: "The Model Context Protocol endpoint for AI agents",
  operations: "Liveness and metrics",
  smtp: "The instance's SMTP listeners: connect-time fault injection (the instance's operator only)",
};

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const camel = (seg: string) => seg.split(/[-_]/).map(cap).join("");
function singular(w: string): string {
  if (/ies$/.test(w)) return w.slice(0, -3) + "y";
  if (/(xes|sses)$/.test(w)) return w.slice(0, -2);
  if (/s$/.test(w) && !/ss$/.test(w)) return w.slice(0, -1);
  return w;
}

/** listInboxes, createInbox, getInbox, updateInbox, deleteInbox, listInboxMessages, revokeApiKey… */
export function operationIdOf(method: string, path: string): string {
  const fixed = OPERATION_IDS[`${method} ${path}`];
  if (fixed) return fixed;
  const segs = path.split("/").filter((s) => s && s !== "v1");
  const isParam = (s: string) => s.startsWith("{");
  const last = segs[segs.length - 1]!;
  const nouns = segs.filter((s) => !isParam(s));
  const head = nouns.slice(0, -1).map((n) => camel(singular(n)));
  if (isParam(last)) {
    const verb = { get: "get", patch: "update", put: "replace", delete: "delete" }[method] ?? method;
    return verb + [...head, camel(singular(nouns[nouns.length - 1]!))].join("");
  }
  const prev = segs[segs.length - 2];
  const isAction = method === "post" && prev !== undefined && isParam(prev) && successStatus(method, path) !== "201";
  if (isAction || last === "publish") return camel(last).charAt(0).toLowerCase() + camel(last).slice(1) + head.join("");
  if (method === "get") return "list" + [...head, camel(last)].join("");
  if (method === "post") return "create" + [...head, camel(singular(last))].join("");
  if (method === "delete") return "delete" + [...head, camel(last)].join("");
  return method + [...head, camel(last)].join("");
}

/**
 * Elysia coerces query and body integers from strings and describes them as
 * anyOf [{type: string, format: integer}, {type: integer}]; the contract's type is the integer.
 */
function deCoerce(node: any): any {
  if (Array.isArray(node)) return node.map(deCoerce);
  if (!node || typeof node !== "object") return node;
  if (Array.isArray(node.anyOf) && node.anyOf.length === 2) {
    const [a, b] = node.anyOf;
    if (
      a?.type === "string" &&
      ["integer", "numeric", "boolean"].includes(a.format) &&
      ["integer", "number", "boolean"].includes(b?.type)
    ) {
      const { anyOf: _a, ...rest } = node;
      return deCoerce({ ...rest, ...b });
    }
  }
  const out: any = {};
  for (const [k, v] of Object.entries(node)) out[k] = deCoerce(v);
  return out;
}

/** Titled object schemas become named components (#/components/schemas/Inbox …), referenced by $ref. */
function hoist(node: any, schemas: Record<string, any>, top = true): any {
  if (Array.isArray(node)) return node.map((n) => hoist(n, schemas, false));
  if (!node || typeof node !== "object") return node;
  const out: any = {};
  for (const [k, v] of Object.entries(node)) out[k] = hoist(v, schemas, false);
  if (!top && typeof out.title === "string" && out.type === "object" && /^[A-Za-z][A-Za-z0-9]*$/.test(out.title)) {
    let name = out.title;
    const text = JSON.stringify(out);
    for (let n = 2; schemas[name] && JSON.stringify(schemas[name]) !== text; n++) name = `${out.title}${n}`;
    schemas[name] = out;
    return { $ref: `#/components/schemas/${name}` };
  }
  return out;
}

const HEADER_NAMES: Record<string, string> = {
  "x-service-agent-session": "X-Service-Agent-Session",
  "if-match": "If-Match",
  "last-event-id": "Last-Event-ID",
};

const RATE_HEADERS = {
  "X-RateLimit-Limit": { $ref: "#/components/headers/X-RateLimit-Limit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/X-RateLimit-Remaining" },
  "X-RateLimit-Reset": { $ref: "#/components/headers/X-RateLimit-Reset" },
  "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" },
};

const errorResponse = (
  description: string,
  example: { code: string; message: string; details?: Record<string, unknown> },
  extraHeaders: Record<string, unknown> = {},
) => ({
  description,
  headers: { ...RATE_HEADERS, ...extraHeaders },
  content: {
    "application/json": {
      schema: { $ref: "#/components/schemas/Error" },
      example: { details: {}, ...example, request_id: "01JH8Z6Q2V3W4X5Y6Z7A8B9C0D" },
    },
  },
});

const COMPONENTS = {
  parameters: {
    ProjectHeader: {
      name: "X-Service-Project",
      in: "header",
      required: false,
      description:
        "project ULID. Required with a device session (400 project_required without it); an API key may omit it (its own project), a different value is 400 project_mismatch",
      schema: { type: "string", pattern: "^[0-9A-HJKMNP-TV-Z]{26}$" },
    },
    IdempotencyKey: {
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description:
        "1..255 characters. The same key, route and credential within 24 h replays the stored status and body (with Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused",
      schema: { type: "string", minLength: 1, maxLength: 255 },
    },
  },
  headers: {
    "X-RateLimit-Limit": { description: "size of the caller's request bucket", schema: { type: "integer" } },
    "X-RateLimit-Remaining": { description: "requests left in the bucket", schema: { type: "integer" } },
    "X-RateLimit-Reset": { description: "seconds until the bucket is full again", schema: { type: "integer" } },
    "X-Request-Id": { description: "id of this request (also request_id of an error)", schema: { type: "string" } },
    "Retry-After": { description: "seconds to wait before retrying", schema: { type: "integer" } },
  },
  responses: {
    BadRequest: errorResponse("The request is malformed (invalid_body, project_required, project_mismatch, …)", {
      code: "project_required",
      message: "a device session must send X-Service-Project",
    }),
    Unauthorized: errorResponse("No or bad credentials", { code: "unauthorized", message: "missing or invalid credentials" }),
    Forbidden: errorResponse("The credential may not do this (insufficient_scope, principal_not_permitted, scope_escalation)", {
      code: "insufficient_scope",
      message: "this API key lacks the scope inboxes:write",
    }),
    NotFound: errorResponse("No such resource in the bound project (cross-project access is 404 too)", {
      code: "not_found",
      message: "inbox not found",
    }),
    ValidationError: errorResponse(
      "Invalid input (validation_error and other 422 codes); for validation_error, details.field names the first offending field and details.errors lists the problems as {path (JSON pointer), message}",
      {
        code: "validation_error",
        message: "invalid query: /limit must be an integer",
        details: { in: "query", errors: [{ path: "/limit", message: "must be an integer" }], field: "limit" },
      },
    ),
    AnalysisUnavailable: errorResponse("The checker this analysis needs is not configured or not answering (analysis_unavailable)", {
      code: "analysis_unavailable",
      message: "no spam checker is configured (set INBOXD_SPAMD to spamd's host:port)",
    }),
    RateLimited: errorResponse(
      "Too many requests",
      { code: "rate_limited", message: "too many requests; retry after the delay in Retry-After" },
      { "Retry-After": { $ref: "#/components/headers/Retry-After" } },
    ),
  },
};

function binaryOrSpecial(method: string, path: string): Record<string, unknown> | null {
  if (path === "/v1/messages/{id}/raw") {
    return { "message/rfc822": { schema: { type: "string", format: "binary", description: "the exact received bytes" } } };
  }
  if (path === "/v1/messages/{id}/attachments/{attachmentId}") {
    return { "application/octet-stream": { schema: { type: "string", format: "binary", description: "the attachment's exact bytes" } } };
  }
  if (path === "/v1/events") return { "text/event-stream": { schema: { type: "string", description: "Server-Sent Events" } } };
  if (path === "/metrics") return { "text/plain": { schema: { type: "string", description: "Prometheus text format" } } };
  if (path === "/mcp" && method !== "delete") {
    return {
      "application/json": { schema: { type: "object", description: "JSON-RPC (MCP Streamable HTTP)", additionalProperties: true } },
    };
  }
  return null;
}

const REQUEST_EXAMPLES: Record<string, unknown> = {
  "post /v1/inboxes": { name: "signup test", ttl_seconds: 3600 },
  "post /v1/api-keys": { name: "ci", scopes: ["inboxes:write", "messages:read"] },
  "post /v1/webhooks": { url: "https://ci.example.com/hooks/inboxd", event_types: ["message.received"] },
  "post /v1/domains": { domain: "mail.example.com" },
  "post /v1/devices": { email: "admin@localhost", password: "<PASSWORD>", name: "laptop" },
};

export function completeDocument(doc: any, routes: RouteInfo[]): any {
  const bodies = new Map<string, unknown>();
  for (const r of routes) {
    if (r.hooks?.body) bodies.set(`${r.method.toLowerCase()} ${r.path.replace(/:([^/]+)/g, "{$1}")}`, r.hooks.body);
  }
  const schemas: Record<string, any> = {};
  const usedTags = new Set<string>();
  const seenIds = new Map<string, string>();
  for (const [path, ops] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(ops)) {
      const key = `${method} ${path}`;
      const v1 = path.startsWith("/v1/");
      const isPublic = key === "post /v1/devices" || (Array.isArray(op.security) && op.security.length === 0);
      // Request body: our strict JSON parser is a function the generator cannot name a media type for.
      const body = bodies.get(key);
      if (body && (!op.requestBody || Object.keys(op.requestBody.content ?? {}).length === 0)) {
        const optional = (body as any)[Symbol.for("TypeBox.Optional")] === "Optional";
        op.requestBody = { required: !optional, content: { "application/json": { schema: JSON.parse(JSON.stringify(body)) } } };
      }
      const example = REQUEST_EXAMPLES[key];
      if (example && op.requestBody?.content?.["application/json"]) op.requestBody.content["application/json"].example = example;

      op.operationId = operationIdOf(method, path);
      if (seenIds.has(op.operationId)) throw new Error(`operationId ${op.operationId} of ${key} repeats ${seenIds.get(op.operationId)}`);
      seenIds.set(op.operationId, key);
      for (const tag of op.tags ?? []) usedTags.add(tag);

      // Parameters: canonical header names, then the conventions' headers.
      const params: any[] = (op.parameters ?? []).map((p: any) => (p.in === "header" ? { ...p, name: HEADER_NAMES[p.name] ?? p.name } : p));
      if (v1 && !USER_PLANE.test(path)) params.push({ $ref: "#/components/parameters/ProjectHeader" });
      const status = successStatus(method, path);
      if (v1 && ((method === "post" && status === "201") || key === "put /v1/inboxes/{id}/chaos" || key === "put /v1/smtp/chaos")) {
        params.push({ $ref: "#/components/parameters/IdempotencyKey" });
      }
      if (params.length) op.parameters = params;

      // Responses: the success answer (schema from `response:`), then every error the conventions give.
      const generated = op.responses ?? {};
      const responses: Record<string, any> = {};
      const success = generated[status] ?? Object.entries<any>(generated).find(([k]) => k.startsWith("2"))?.[1];
      const special = binaryOrSpecial(method, path);
      if (status === "204") responses["204"] = { description: "Deleted (no content)" };
      else if (special) responses[status] = { description: "Success", content: special };
      else if (success?.content) responses[status] = { ...success, description: "Success" };
      else responses[status] = { description: "Success" };
      if (v1) {
        responses[status].headers = { ...RATE_HEADERS, ...(responses[status].headers ?? {}) };
        if (op.requestBody || !USER_PLANE.test(path)) responses["400"] = { $ref: "#/components/responses/BadRequest" };
        if (!isPublic) responses["401"] = { $ref: "#/components/responses/Unauthorized" };
        if (!isPublic) responses["403"] = { $ref: "#/components/responses/Forbidden" };
        if (path.includes("{") || !USER_PLANE.test(path)) responses["404"] = { $ref: "#/components/responses/NotFound" };
        responses["422"] = { $ref: "#/components/responses/ValidationError" };
        responses["429"] = { $ref: "#/components/responses/RateLimited" };
        if (path.includes("/analysis/")) responses["503"] = { $ref: "#/components/responses/AnalysisUnavailable" };
      } else if (path === "/mcp") {
        responses["401"] = { $ref: "#/components/responses/Unauthorized" };
      } else if (generated["503"]?.content) {
        // Probes (/healthz, /readyz) declare their own 503 with the same body.
        responses["503"] = { ...generated["503"], description: "Unavailable: a check failed (see checks)" };
      }
      op.responses = responses;
    }
  }
  const out = hoist(deCoerce(doc), schemas);
  out.servers = [{ url: "/", description: "this inboxd" }];
  out.tags = [...usedTags].sort().map((name) => ({ name, description: TAGS[name] ?? name }));
  out.components ??= {};
  out.components.schemas = { ...(out.components.schemas ?? {}), ...schemas, Error: ERROR_SCHEMA };
  Object.assign(out.components, COMPONENTS);
  return out;
}
