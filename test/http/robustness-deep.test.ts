// Bad input deep inside a request never yields a 500 or a hang. robustness.test.ts sends malformed
// bodies to ids that do not exist, so most handlers stop at the lookup; here every path parameter
// names a real object (an inbox with a message and an attachment, a webhook with a delivery, an
// agent, a published scenario with a run, ...), each request body starts as a valid one built from
// the route's own schema in /openapi.json, and one member at a time, at any depth (a scenario
// step's field, a chaos rule's code), is replaced by a hostile value.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { envelopeFault } from "../support/envelope";
import { json, startInboxd, type Instance } from "../support/harness";
import { createInbox, sendRaw } from "../support/mail";

let inst: Instance;
beforeAll(async () => {
  // The self-hosted plan (INBOXD_PLAN empty) allows custom domains, so one can be a real id too.
  inst = await startInboxd({ INBOXD_PLAN: "" });
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const HOSTILE: unknown[] = [
  null,
  "",
  "x".repeat(70_000),
  "\u0000",
  "\ud800",
  -1,
  1.5,
  2 ** 53,
  1e308,
  true,
  [],
  [null],
  {},
  { a: { b: [1] } },
  "../../etc/passwd",
  "http://[::1",
];

/** A definition using every kind of step, so each step's fields get their turn (docs/scenarios.md). */
const DEFINITION = {
  schema_version: 1,
  description: "d",
  timeout_seconds: 5,
  inputs: { plan: { type: "string", default: "free" } },
  steps: [
    { id: "inbox", type: "inbox.create" },
    { id: "signup", type: "http.request", method: "POST", url: "http://127.0.0.1:9/signup", json: { email: "${steps.inbox.address}" } },
    { id: "mail", type: "message.wait", inbox: "${steps.inbox.id}", subject: "verification", timeout_seconds: 1 },
    { id: "code", type: "message.extract", message: "${steps.mail.id}", extract: "code" },
    {
      id: "verify",
      type: "http.request",
      method: "POST",
      url: "http://127.0.0.1:9/v",
      headers: { "x-t": "${secrets.S1}" },
      approval: true,
    },
    { type: "assert", value: "${steps.verify.status}", equals: 200 },
  ],
};

const ULID_PATTERN = "0-9A-HJKMNP";

/** A valid value for a schema: its example, else built from its type; ids are the real ones by name. */
function valid(schema: any, ids: Record<string, string>, name = "", depth = 0): unknown {
  if (name === "draft_definition" || name === "definition") return DEFINITION;
  if (!schema || depth > 6) return null;
  if (schema.example !== undefined) return schema.example;
  if (schema.anyOf) return valid(schema.anyOf[0], ids, name, depth + 1);
  if (schema.enum) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  switch (schema.type) {
    case "object":
      return Object.fromEntries(Object.entries<any>(schema.properties ?? {}).map(([k, v]) => [k, valid(v, ids, k, depth + 1)]));
    case "array":
      return [valid(schema.items, ids, name, depth + 1)];
    case "string":
      return schema.pattern?.includes(ULID_PATTERN) ? (ids[name] ?? ids.inbox_id) : "abc";
    case "integer":
    case "number":
      return schema.minimum ?? 1;
    case "boolean":
      return true;
  }
  return null;
}

/** Every member path of a JSON value, objects and arrays alike, to a bounded depth. */
function memberPaths(v: unknown, depth = 0, prefix: (string | number)[] = []): (string | number)[][] {
  if (depth > 5 || v === null || typeof v !== "object") return [];
  const keys: (string | number)[] = Array.isArray(v) ? v.map((_, i) => i) : Object.keys(v);
  return keys.flatMap((k) => [[...prefix, k], ...memberPaths((v as any)[k], depth + 1, [...prefix, k])]);
}

function replaced(base: unknown, path: (string | number)[], value: unknown): unknown {
  const copy: any = structuredClone(base);
  let at = copy;
  for (const k of path.slice(0, -1)) at = at[k];
  at[path.at(-1)!] = value;
  return copy;
}

function bodiesFor(base: unknown): unknown[] {
  const out: unknown[] = [base, ...HOSTILE.slice(0, 4)];
  for (const path of memberPaths(base)) for (const h of HOSTILE) out.push(replaced(base, path, h));
  return out;
}

const QUERIES = [
  "",
  "?limit=1&cursor=zzz",
  `?cursor=${"A".repeat(500)}`,
  `?q=${encodeURIComponent('code:"')}`,
  `?q=${encodeURIComponent("from:(a OR")}`,
  `?q=${encodeURIComponent("received:2026-99-99")}`,
  `?q=${"x".repeat(10_000)}`,
  "?since=2026-01-01T00:00:00Z&until=1999-01-01T00:00:00Z",
  "?wait=0&q=has:attachment",
];

async function created(path: string, body: unknown): Promise<any> {
  const r = await json(inst.api(path, { method: "POST", json: body }));
  if (r.status !== 201 && r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
}

test("with real ids, a hostile value at any depth of a valid body never gets a 5xx, a hang or an answer outside the envelope", async () => {
  const inbox = await createInbox(inst, { name: "deep" });
  const raw = [
    "From: a@b.example",
    `To: ${inbox.address}`,
    "Subject: code 123456",
    "Content-Type: multipart/mixed; boundary=XX",
    "",
    "--XX",
    "Content-Type: text/html",
    "",
    '<p>Hi <a href="http://example.com/x">link</a></p>',
    "--XX",
    "Content-Type: text/plain; name=a.txt",
    "Content-Disposition: attachment; filename=a.txt",
    "",
    "attached",
    "--XX--",
  ].join("\r\n");
  await sendRaw(inst, inbox.address, raw);
  const message = (await json(inst.api(`/v1/inboxes/${inbox.id}/messages/latest?wait=10`))).body.data;
  const full = (await json(inst.api(`/v1/messages/${message.id}`))).body.data;
  const webhook = await created("/v1/webhooks", { url: "http://127.0.0.1:9/hook", events: ["message.received"] });
  await inst.api(`/v1/webhooks/${webhook.id}/test`, { method: "POST", json: {} });
  let delivery: string | undefined;
  for (let i = 0; i < 100 && !delivery; i++, await Bun.sleep(50))
    delivery = (await json(inst.api(`/v1/webhooks/${webhook.id}/deliveries`))).body.data?.[0]?.id;
  const agent = await created("/v1/agents", { name: "deep agent", permissions: ["*"] });
  const origin = await created("/v1/http-origins", { origin: "http://127.0.0.1:9" });
  const secret = await created("/v1/scenario-secrets", { name: "S1", value: "v" });
  const scenario = await created("/v1/scenarios", { name: "deep", draft_definition: DEFINITION });
  expect((await inst.api(`/v1/scenarios/${scenario.id}/publish`, { method: "POST" })).status).toBe(201);
  const run = await created("/v1/runs", { agent_id: agent.id, scenario_id: scenario.id, inputs: { plan: "x" } });
  const domain = await created("/v1/domains", { domain: "deep.example" });
  const key = await created("/v1/api-keys", { name: "k", scopes: ["inboxes:read"] });
  const project = (await json(inst.api("/v1/projects"))).body.data[0];
  expect([delivery, full.attachments?.[0]?.id, origin.id, secret.id, run.id, domain.id, key.id].every(Boolean)).toBe(true);

  const byCollection: Record<string, string> = {
    projects: project.id,
    webhooks: webhook.id,
    "api-keys": key.id,
    domains: domain.id,
    inboxes: inbox.id,
    messages: message.id,
    agents: agent.id,
    "http-origins": origin.id,
    "scenario-secrets": secret.id,
    scenarios: scenario.id,
    runs: run.id,
  };
  const bodyIds = { inbox_id: inbox.id, agent_id: agent.id, scenario_id: scenario.id, domain_id: domain.id, message_id: message.id };
  const byName: Record<string, string> = { deliveryId: delivery!, attachmentId: full.attachments[0].id, version: "1" };
  const paramValue = (path: string, name: string) => byName[name] ?? byCollection[path.split("/")[2]!] ?? "x";

  const doc = (await json(fetch(`${inst.url}/openapi.json`))).body;
  const failures: string[] = [];
  let calls = 0;
  for (const [template, ops] of Object.entries<any>(doc.paths)) {
    // /v1/events is an endless stream (test/events/sse.test.ts); /v1/signin is the browser's.
    if (!template.startsWith("/v1/") || template === "/v1/events" || template === "/v1/signin") continue;
    // Keep the objects alive: no deletes (but of chaos and watch), no revoking or rotating.
    if (/revoke|rotate|release/.test(template)) continue;
    const path = template.replace(/\{([^}]+)\}/g, (_, name) => encodeURIComponent(paramValue(template, name)));
    for (const [method, op] of Object.entries<any>(ops)) {
      if (method === "delete" && !/chaos|watch/.test(template)) continue;
      const schema = op.requestBody?.content?.["application/json"]?.schema;
      const bodies = schema ? bodiesFor(valid(schema, bodyIds)) : [undefined];
      for (const query of method === "get" ? QUERIES : [""])
        for (const body of bodies) {
          calls++;
          const what = `${method.toUpperCase()} ${path}${query.slice(0, 60)} ${JSON.stringify(body)?.slice(0, 120)}`;
          try {
            const r = await inst.api(path + query, {
              method: method.toUpperCase(),
              ...(body === undefined ? {} : { json: body }),
              signal: AbortSignal.timeout(15_000),
            });
            // 503 analysis_unavailable is the documented answer of the spam analysis without spamd.
            const fault = envelopeFault(r.status, await r.text(), ["analysis_unavailable"]);
            if (fault) failures.push(`${what} → ${fault}`);
          } catch (e) {
            failures.push(`${what} → ${(e as Error).name}`);
          }
        }
    }
  }
  expect(calls).toBeGreaterThan(2_000);
  expect(failures).toEqual([]);
  expect((await inst.api(`/v1/inboxes/${inbox.id}`)).status).toBe(200);
}, 300_000);
