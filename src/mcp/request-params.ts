// Malformed params of an MCP request get JSON-RPC's -32602 Invalid params, with the field named.
// The SDK checks each request against its own schema inside the handler and reports a mismatch as
// -32603 Internal error with a raw Zod dump (modelcontextprotocol/typescript-sdk#2012, open): a
// client reads -32603 as "the server is broken". So the message is checked here, against the same
// SDK schemas, before the transport sees it.
//
// `tools/call` with `"arguments": null` is taken as no arguments: Go, Java and C# JSON libraries
// write an absent field as null, and a tool without required arguments should just run.
import { ClientRequestSchema, ErrorCode } from "@modelcontextprotocol/sdk/types.js";

interface Schema {
  safeParse(v: unknown): { success: true } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
}

const BY_METHOD = new Map<string, Schema>(
  (ClientRequestSchema.options as unknown as { shape: { method: { value: string } } }[]).map((s) => [
    s.shape.method.value,
    s as unknown as Schema,
  ]),
);

type Message = { id?: unknown; method?: unknown; params?: any };

const isRequest = (m: unknown): m is Message & { method: string } =>
  typeof m === "object" && m !== null && !Array.isArray(m) && "id" in m && typeof (m as Message).method === "string";

/** Drops `arguments: null` from tools/call requests (one message or a batch), in place. */
export function normaliseRequest(body: unknown): void {
  for (const m of Array.isArray(body) ? body : [body]) {
    if (isRequest(m) && m.method === "tools/call" && m.params?.arguments === null) delete m.params.arguments;
  }
}

/** The -32602 answer for a single request whose params its method's schema refuses; null when fine or not ours to judge. */
export function invalidParams(body: unknown): { jsonrpc: "2.0"; id: unknown; error: { code: number; message: string } } | null {
  if (!isRequest(body)) return null;
  const schema = BY_METHOD.get(body.method);
  if (!schema) return null; // unknown methods get the SDK's own -32601
  const checked = schema.safeParse(body);
  if (checked.success) return null;
  const what = checked.error.issues.map((i) => `${i.path.map(String).join(".") || "request"}: ${i.message}`).join("; ");
  return { jsonrpc: "2.0", id: body.id, error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${what}` } };
}
