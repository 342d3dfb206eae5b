// /openapi.json: the document @elysiajs/openapi generates from the route schemas, completed where
// the generator leaves gaps. Our strict JSON body parser is a function, which the generator cannot
// name a media type for, so it emits empty request bodies; and routes declare no response schemas.
// Both are filled in here from the same route schemas, once, when the document is first asked for.

const ACTIONS_200 = new Set([
  "revoke",
  "rotate",
  "verify",
  "test",
  "release",
  "approve",
  "reject",
  "mark-read",
  "cancel",
  "validate",
  "catch-all",
  "rotate-secret",
]);

interface RouteInfo {
  method: string;
  path: string;
  hooks?: { body?: unknown };
}

export const ERROR_SCHEMA = {
  type: "object",
  required: ["code", "message", "details", "request_id"],
  properties: {
    code: { type: "string", description: "machine-readable error code (docs/api.md)" },
    message: { type: "string" },
    details: { type: "object", additionalProperties: true },
    request_id: { type: "string", description: "also in the X-Request-Id header" },
  },
};

function successStatus(method: string, path: string): string {
  if (method === "delete") return "204";
  if (method !== "post") return "200";
  const last = path.split("/").pop()!;
  if (last === "publish") return "201";
  if (ACTIONS_200.has(last)) return "200";
  return last.startsWith("{") ? "200" : "201";
}

/** JSON Schema of a TypeBox schema (TypeBox schemas are JSON Schema plus symbol-keyed metadata). */
function jsonSchema(s: unknown): unknown {
  return JSON.parse(JSON.stringify(s));
}

export function completeDocument(doc: any, routes: RouteInfo[]): any {
  doc.components ??= {};
  doc.components.schemas ??= {};
  doc.components.schemas.Error = ERROR_SCHEMA;
  const bodies = new Map<string, unknown>();
  for (const r of routes) {
    if (r.hooks?.body) bodies.set(`${r.method.toLowerCase()} ${r.path.replace(/:([^/]+)/g, "{$1}")}`, r.hooks.body);
  }
  for (const [path, ops] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(ops)) {
      const body = bodies.get(`${method} ${path}`);
      if (body && (!op.requestBody || Object.keys(op.requestBody.content ?? {}).length === 0)) {
        const optional = (body as any)[Symbol.for("TypeBox.Optional")] === "Optional";
        op.requestBody = { required: !optional, content: { "application/json": { schema: jsonSchema(body) } } };
      }
      if (!op.responses || Object.keys(op.responses).length === 0) {
        const status = successStatus(method, path);
        op.responses = {
          [status]: { description: status === "204" ? "No content" : "Success: {data: …} or a collection {data, meta, links}" },
          default: { description: "Error envelope", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
        };
      }
    }
  }
  return doc;
}
