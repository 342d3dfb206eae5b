// /openapi.json is generated from the route schemas and covers every route API.md names.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { json, ROOT, startInboxd, type Instance } from "../support/harness";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd();
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

/** "GET /v1/inboxes/{id}" pairs from API.md's route table (the shared spec beside the repository). */
function apiMdRoutes(): string[] {
  const file = join(ROOT, "../shared/API.md");
  const fallback = [
    "GET /v1/me",
    "GET /v1/projects",
    "POST /v1/projects",
    "PATCH /v1/projects/{id}",
    "GET /v1/devices",
    "POST /v1/devices",
    "DELETE /v1/devices/{id}",
    "GET /v1/api-keys",
    "POST /v1/api-keys",
    "GET /v1/api-keys/{id}",
    "POST /v1/api-keys/{id}/revoke",
    "POST /v1/api-keys/{id}/rotate",
    "GET /v1/inboxes",
    "POST /v1/inboxes",
    "GET /v1/inboxes/{id}",
    "PATCH /v1/inboxes/{id}",
    "DELETE /v1/inboxes/{id}",
    "GET /v1/inboxes/{id}/credentials",
    "POST /v1/inboxes/{id}/mark-read",
    "PUT /v1/inboxes/{id}/watch",
    "DELETE /v1/inboxes/{id}/watch",
    "GET /v1/usage",
  ];
  if (!existsSync(file)) return fallback;
  const text = readFileSync(file, "utf8");
  const out = new Set<string>();
  for (const m of text.matchAll(/`(GET|POST|PATCH|PUT|DELETE) (\/v1\/[^`?\s]+)(?:\?[^`]*)?`/g)) {
    out.add(`${m[1]} ${m[2]!.replace(/\{[^}]+\}/g, "{id}")}`);
  }
  return [...out];
}

/**
 * Routes API.md already names for capabilities whose issues are still open. Each must be absent
 * today (so this list shrinks as they land: a served route left here fails the test).
 */
const PENDING: Record<string, string> = {};

test("every route of API.md is in /openapi.json with its method", async () => {
  const doc = await json(fetch(`${inst.url}/openapi.json`));
  expect(doc.status).toBe(200);
  const have = new Set<string>();
  for (const [path, ops] of Object.entries<any>(doc.body.paths)) {
    for (const method of Object.keys(ops)) have.add(`${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, "{id}")}`);
  }
  const routes = apiMdRoutes();
  // With ../shared/API.md beside the checkout (as in CI) every route it names; else the core list.
  expect(routes.length).toBeGreaterThan(existsSync(join(ROOT, "../shared/API.md")) ? 60 : 20);
  const missing = routes.filter((r) => !have.has(r) && !(r in PENDING));
  expect(missing).toEqual([]);
  const landed = Object.keys(PENDING).filter((r) => have.has(r));
  expect(landed).toEqual([]);
});

test("request schemas are in the document: bodies, query parameters and path parameters", async () => {
  const doc = (await json(fetch(`${inst.url}/openapi.json`))).body;
  const create = doc.paths["/v1/inboxes"].post;
  expect(JSON.stringify(create.requestBody)).toContain("ttl_seconds");
  const list = doc.paths["/v1/inboxes"].get;
  expect(list.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(["cursor", "limit"]));
  const show = doc.paths["/v1/inboxes/{id}"].get;
  expect(show.parameters.some((p: any) => p.in === "path" && p.name === "id")).toBe(true);
});
