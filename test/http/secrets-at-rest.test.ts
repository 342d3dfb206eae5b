// Secrets at rest (docs/security.md "Secrets at rest"): every answer that carries a secret (the
// OpenAPI document marks those fields x-secret, and this file calls every operation that returns
// one, with and without Idempotency-Key), then the raw bytes of the SQLite file, its -wal and the
// blob directory are searched for each secret handed out: none may occur. Also: an idempotent
// replay of a secret-bearing create answers the resource without its secret, after a revoke too.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ADMIN_EMAIL, ADMIN_PASSWORD, BOOTSTRAP_KEY, json, startInboxd, type Instance } from "../support/harness";
import { sqliteOnly } from "../support/test-database";

let inst: Instance;
/** Every secret value the server handed out or was given, with where it came from. */
const secrets: { what: string; value: string }[] = [];
const keep = (what: string, value: unknown) => {
  expect(typeof value).toBe("string");
  expect((value as string).length).toBeGreaterThanOrEqual(8);
  secrets.push({ what, value: value as string });
  return value as string;
};

/** The operations that hand out a secret: this file calls each and keeps what it returned. */
const HAND_OUT = [
  "GET /v1/inboxes/{id}/credentials",
  "POST /v1/inboxes/{id}/credentials/rotate",
  "POST /v1/api-keys",
  "POST /v1/api-keys/{id}/rotate",
  "POST /v1/devices",
  "POST /v1/signin",
  "POST /v1/webhooks",
  "POST /v1/webhooks/{id}/rotate-secret",
];
/** Operations whose resource schema has the (optional) secret field but that never fill it: called, checked empty. */
const NEVER: Record<string, (ids: { key: string; hook: string }) => Promise<Response>> = {
  "GET /v1/api-keys": () => inst.api("/v1/api-keys"),
  "GET /v1/api-keys/{id}": ({ key }) => inst.api(`/v1/api-keys/${key}`),
  "GET /v1/webhooks": () => inst.api("/v1/webhooks"),
  "GET /v1/webhooks/{id}": ({ hook }) => inst.api(`/v1/webhooks/${hook}`),
  "PATCH /v1/webhooks/{id}": ({ hook }) => inst.api(`/v1/webhooks/${hook}`, { method: "PATCH", json: { description: "x" } }),
  "POST /v1/webhooks/{id}/pause": ({ hook }) => inst.api(`/v1/webhooks/${hook}/pause`, { method: "POST" }),
  "POST /v1/webhooks/{id}/resume": ({ hook }) => inst.api(`/v1/webhooks/${hook}/resume`, { method: "POST" }),
};

beforeAll(async () => {
  inst = await startInboxd({ INBOXD_SIGNIN_LINK: "on" });
  keep("bootstrap key", BOOTSTRAP_KEY);
  keep("admin password", ADMIN_PASSWORD);
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const post = (path: string, body: unknown, idem?: string, token?: string | null) =>
  json(inst.api(path, { method: "POST", json: body, token, headers: idem ? { "idempotency-key": idem } : {} }));

/** Every file under dir (the blob store's folders included). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** The secrets found in the raw bytes of the database file, its -wal and every blob, by file. */
function secretsAtRest(): string[] {
  const files = [join(inst.dataDir, "inboxd.db"), join(inst.dataDir, "inboxd.db-wal"), ...filesUnder(join(inst.dataDir, "blobs"))];
  const found: string[] = [];
  for (const f of files.filter(existsSync)) {
    const bytes = readFileSync(f);
    for (const s of secrets) {
      if (bytes.includes(Buffer.from(s.value, "utf8"))) found.push(`${s.what} in ${f}`);
    }
  }
  return found;
}

/** A response schema's properties, following $ref, allOf/anyOf and arrays; visit gets (name, schema). */
function walkSchema(doc: any, schema: any, visit: (name: string, s: any) => void, seen = new Set<any>()): void {
  if (!schema || typeof schema !== "object" || seen.has(schema)) return;
  seen.add(schema);
  if (schema.$ref) return walkSchema(doc, doc.components.schemas[schema.$ref.split("/").pop()], visit, seen);
  for (const k of ["allOf", "anyOf", "oneOf"]) for (const s of schema[k] ?? []) walkSchema(doc, s, visit, seen);
  if (schema.items) walkSchema(doc, schema.items, visit, seen);
  for (const [name, p] of Object.entries<any>(schema.properties ?? {})) {
    visit(name, p);
    walkSchema(doc, p, visit, seen);
  }
}

describe("the OpenAPI document names every secret-bearing answer", () => {
  test("the operations whose success answer has an x-secret field are exactly the ones this file calls", async () => {
    const doc = (await json(fetch(`${inst.url}/openapi.json`))).body;
    const bearing: string[] = [];
    const unmarked: string[] = [];
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        for (const [status, res] of Object.entries<any>(op.responses ?? {})) {
          if (!status.startsWith("2")) continue;
          let secret = false;
          walkSchema(doc, res.content?.["application/json"]?.schema, (name, s) => {
            if (s["x-secret"] === true) secret = true;
            // A field with a secret's name must carry the mark, so a new one cannot slip past.
            else if (/^(secret|token|password|api_key|private_key|.*_secret)$/.test(name)) unmarked.push(`${method} ${path} ${name}`);
          });
          if (secret) bearing.push(`${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, "{id}")}`);
        }
      }
    }
    expect(unmarked).toEqual([]);
    expect([...new Set(bearing)].sort()).toEqual([...HAND_OUT, ...Object.keys(NEVER)].sort());
  });
});

describe("every secret-bearing operation, then the bytes at rest", () => {
  test("API keys: create, create with Idempotency-Key (replay without the secret, after revoke too), rotate", async () => {
    keep("api key (plain create)", (await post("/v1/api-keys", { name: "plain" })).body.data.secret);
    const a = await post("/v1/api-keys", { name: "idem", scopes: ["inboxes:read"] }, "key-1");
    expect(a.status).toBe(201);
    const secret = keep("api key (idempotent create)", a.body.data.secret);
    const replay = await post("/v1/api-keys", { name: "idem", scopes: ["inboxes:read"] }, "key-1");
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.data.id).toBe(a.body.data.id);
    expect(replay.body.data.last_four).toBe(secret.slice(-4));
    expect("secret" in replay.body.data).toBe(false);
    // The key works; revoked, it does not, and a replay neither resurrects it nor its secret.
    expect((await inst.api("/v1/inboxes", { token: secret })).status).toBe(200);
    expect((await post(`/v1/api-keys/${a.body.data.id}/revoke`, {})).status).toBe(200);
    const after = await post("/v1/api-keys", { name: "idem", scopes: ["inboxes:read"] }, "key-1");
    expect(after.headers.get("idempotent-replayed")).toBe("true");
    expect(after.body.data.revoked_at).not.toBeNull();
    expect("secret" in after.body.data).toBe(false);
    expect((await inst.api("/v1/inboxes", { token: secret })).status).toBe(401);
    const rotated = await post(`/v1/api-keys/${(await post("/v1/api-keys", { name: "r" }, "key-2")).body.data.id}/rotate`, {});
    expect(rotated.status).toBe(200);
    keep("api key (rotated)", rotated.body.data.secret);
  });

  test("webhooks: create with and without Idempotency-Key (replay without the signing secret), rotate-secret", async () => {
    const hook = { url: "http://127.0.0.1:9/hook" };
    keep("webhook secret (plain create)", (await post("/v1/webhooks", hook)).body.data.secret);
    const a = await post("/v1/webhooks", hook, "hook-1");
    expect(a.status).toBe(201);
    keep("webhook secret (idempotent create)", a.body.data.secret);
    const replay = await post("/v1/webhooks", hook, "hook-1");
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.data.id).toBe(a.body.data.id);
    expect("secret" in replay.body.data).toBe(false);
    const rotated = await post(`/v1/webhooks/${a.body.data.id}/rotate-secret`, {});
    expect(rotated.status).toBe(200);
    keep("webhook secret (rotated)", rotated.body.data.secret);
    // Deleted, a replay answers what was created, still without a secret, and nothing comes back.
    expect((await inst.api(`/v1/webhooks/${a.body.data.id}`, { method: "DELETE" })).status).toBe(204);
    const gone = await post("/v1/webhooks", hook, "hook-1");
    expect("secret" in gone.body.data).toBe(false);
    expect((await json(inst.api(`/v1/webhooks/${a.body.data.id}`))).status).toBe(404);
  });

  test("device log-in (Idempotency-Key does not make it replayable), the start-up sign-in link", async () => {
    const d = await post("/v1/devices", { email: ADMIN_EMAIL, password: ADMIN_PASSWORD, name: "audit" }, "dev-1", null);
    expect(d.status).toBe(201);
    keep("device token", d.body.data.token);
    const again = await post("/v1/devices", { email: ADMIN_EMAIL, password: ADMIN_PASSWORD, name: "audit" }, "dev-1", null);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(again.body.data.token).not.toBe(d.body.data.token);
    keep("device token (second)", again.body.data.token);
    const link = /#signin=(\S+)/.exec(inst.output())?.[1];
    keep("sign-in link token", link);
    const s = await post("/v1/signin", { token: link }, undefined, null);
    expect(s.status).toBe(201);
    keep("device token (sign-in link)", s.body.data.token);
  });

  test("inbox credentials (inbox created with Idempotency-Key), scenario secret values, an agent session", async () => {
    const inbox = await post("/v1/inboxes", { name: "creds" }, "inbox-1");
    expect(inbox.status).toBe(201);
    const creds = await json(inst.api(`/v1/inboxes/${inbox.body.data.id}/credentials`));
    expect(creds.status).toBe(200);
    keep("inbox password", creds.body.data.password);
    const rotatedCreds = await post(`/v1/inboxes/${inbox.body.data.id}/credentials/rotate`, {}, "rotate-creds-1");
    expect(rotatedCreds.status).toBe(200);
    expect(rotatedCreds.body.data.password).not.toBe(creds.body.data.password);
    keep("inbox password (rotated)", rotatedCreds.body.data.password);
    const body = { name: "SHOP_PASSWORD", value: "scenario-secret-value-7c1e" };
    const created = await post("/v1/scenario-secrets", body, "sec-1");
    expect(created.status).toBe(201);
    keep("scenario secret value", body.value);
    // The idempotency record keeps the request only as an HMAC under the instance key: a plain
    // sha256 of the body (guessable for a weak value) must not be in the file.
    keep(
      "plain sha256 of the scenario-secret request",
      createHash("sha256")
        .update(JSON.stringify([body, "/v1/scenario-secrets", ""]))
        .digest("hex"),
    );
    const rotated = await post(`/v1/scenario-secrets/${created.body.data.id}/rotate`, { value: "scenario-secret-rotated-9d2f" });
    expect(rotated.status).toBe(200);
    keep("scenario secret value (rotated)", "scenario-secret-rotated-9d2f");
    const session = await post("/v1/agent-sessions", {}, "session-1");
    expect(session.status).toBe(201);
    expect(session.body.data.ulid).toBeTruthy();
  });

  test("reads and updates of keys and webhooks never carry the secret", async () => {
    const ids = {
      key: (await post("/v1/api-keys", { name: "read-me" })).body.data.id,
      hook: (await post("/v1/webhooks", { url: "http://127.0.0.1:9/read-me" })).body.data.id,
    };
    for (const [op, call] of Object.entries(NEVER)) {
      const r = await json(call(ids));
      expect([op, r.status]).toEqual([op, 200]);
      const items = Array.isArray(r.body.data) ? r.body.data : [r.body.data];
      expect(items.length).toBeGreaterThan(0);
      for (const item of items) expect([op, "secret" in item]).toEqual([op, false]);
    }
  });

  sqliteOnly(
    "scans inboxd.db, its -wal and blobs/ byte for byte; on PostgreSQL the api-keys, scenario-secrets and domains tests read the rows",
  )("no secret is in the database file, its -wal or the blobs, while running and after a clean stop", async () => {
    expect(secrets.length).toBeGreaterThanOrEqual(15);
    expect(existsSync(join(inst.dataDir, "inboxd.db-wal"))).toBe(true);
    expect(secretsAtRest()).toEqual([]);
    // A sanity check that the search would find one: the file does hold the key's last four.
    const db = readFileSync(join(inst.dataDir, "inboxd.db"));
    const wal = readFileSync(join(inst.dataDir, "inboxd.db-wal"));
    const lastFour = secrets.find((s) => s.what === "api key (rotated)")!.value.slice(-4);
    expect(db.includes(Buffer.from(lastFour)) || wal.includes(Buffer.from(lastFour))).toBe(true);
    await inst.stop();
    expect(secretsAtRest()).toEqual([]);
    inst = await inst.restart();
  });
});
