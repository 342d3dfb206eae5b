// Bad input never yields a 500, a hang or a crash: every route of /openapi.json gets malformed
// bodies, wrong types, unknown and malformed ids, and answers in the error envelope.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { envelopeFault } from "../support/envelope";
import { json, login, startInboxd, type Instance } from "../support/harness";

let inst: Instance;
let device: string;
let project: string;

beforeAll(async () => {
  inst = await startInboxd();
  device = await login(inst);
  project = (await json(inst.api("/v1/projects"))).body.data[0].id;
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const BODIES: (string | undefined)[] = [
  undefined,
  "",
  "{bad",
  "null",
  "[]",
  '"text"',
  "12",
  JSON.stringify({ name: 42, scopes: "x", ttl_seconds: "soon", local_part: ["a"], url: 7, permissions: {}, definition: [], value: null }),
  JSON.stringify({ name: "x".repeat(5000), description: "\u0000\uffff", email: "@", password: 1 }),
  JSON.stringify({ a: { b: { c: { d: [1, 2, { e: null }] } } } }),
];
const IDS = ["01ARZ3NDEKTSV4RRFFQ69G5FAV", "not-a-ulid", "0".repeat(26), "%00", "..%2F..%2Fetc"];

test("no route answers 500 to malformed input; every error is in the envelope", async () => {
  const doc = (await json(fetch(`${inst.url}/openapi.json`))).body;
  const failures: string[] = [];
  let calls = 0;
  for (const [path, ops] of Object.entries<any>(doc.paths)) {
    // /v1/events is an endless SSE stream by design; test/events/sse.test.ts covers its errors.
    if (!path.startsWith("/v1/") || path === "/v1/events") continue;
    for (const method of Object.keys(ops)) {
      for (const id of IDS) {
        const concrete = path.replace(/\{[^}]+\}/g, id);
        for (const body of method === "get" || method === "delete" ? [undefined] : BODIES) {
          for (const auth of [{ token: inst.key }, { token: device, project }])
            for (const query of ["?limit=abc&wait=-1&status=%ff&view=x", "?wait=0"]) {
              const headers: Record<string, string> = body === undefined ? {} : { "content-type": "application/json" };
              let r: Response;
              let text: string;
              try {
                r = await inst.api(`${concrete}${query}`, {
                  method: method.toUpperCase(),
                  body,
                  headers,
                  ...auth,
                  signal: AbortSignal.timeout(10_000),
                });
                text = await r.text();
              } catch (e) {
                failures.push(`${method.toUpperCase()} ${concrete} → ${(e as Error).name}`);
                continue;
              }
              calls++;
              const fault = envelopeFault(r.status, text);
              if (fault) failures.push(`${method.toUpperCase()} ${concrete} ${body?.slice(0, 40)} → ${fault}`);
            }
        }
      }
    }
  }
  expect(calls).toBeGreaterThan(500);
  expect(failures).toEqual([]);
  expect((await inst.api("/v1/inboxes")).status).toBe(200);
}, 240_000);
