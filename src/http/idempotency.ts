// Idempotency-Key on creates: the same key, route and principal within 24 h replays the stored
// status and body (with Idempotent-Replayed: true); the same key with another body is 422.
// Secret-bearing answers (an API key's secret, a webhook's signing secret: fields marked
// x-secret in resources.ts) are stored without the secret, so the 24 h cache never holds one and
// a replay cannot hand it out again (docs/security.md "Secrets at rest"); the request body is
// kept only as an HMAC keyed with the instance secret (a scenario secret's value is in it).
import type { TSchema } from "elysia";
import type { AppContext } from "../runtime/context";
import { DomainError } from "../lib/errors";
import { stateOf } from "./request";
import { secretFieldsOf } from "./resources";

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

export interface HandlerCtx {
  request: Request;
  route: string;
  body?: unknown;
  set: { status?: number | string; headers: Record<string, any> };
}

/** How a create whose answer carries a secret is stored and replayed. */
export interface SecretAnswer<T> {
  /** The resource schema of `data`: its x-secret fields are left out of the stored copy. */
  schema: TSchema;
  /** The resource as it stands now, for a replay (a revoked key shows revoked_at); null: the stored copy. */
  current?: (stored: T) => Promise<T | null>;
}

export async function idempotent<T>(
  ctx: AppContext,
  c: HandlerCtx,
  status: number,
  run: () => T | Promise<T>,
  secret?: SecretAnswer<T>,
): Promise<T> {
  const key = c.request.headers.get("idempotency-key");
  if (key === null) {
    const out = await run();
    c.set.status = status;
    return out;
  }
  if (key.length === 0 || key.length > 255) {
    throw new DomainError("invalid", "validation_error", "Idempotency-Key must be 1..255 characters", { header: "Idempotency-Key" });
  }
  const principal = stateOf(c.request)?.principal;
  const principalId = principal ? principal.id : "anonymous";
  const route = `${c.request.method} ${c.route}`;
  const url = new URL(c.request.url);
  const bodyHash = ctx.sealer.mac("idempotency", JSON.stringify([c.body ?? null, url.pathname, url.search]));
  // Requests with one key take turns: a retry sent while the first is still running waits for it, then
  // replays its stored answer (or runs, if the first failed and stored nothing). Without this, eight
  // parallel retries made up to seven runs. One process: nodes on one PostgreSQL do not share turns.
  const slot = `${principalId}\n${route}\n${key}`;
  const turns = turnsOf(ctx);
  for (let prior = turns.get(slot); prior; prior = turns.get(slot)) await prior;
  let done!: () => void;
  turns.set(
    slot,
    new Promise<void>((r) => {
      done = r;
    }),
  );
  try {
    return await once(ctx, c, status, run, secret, { principalId, route, key, bodyHash });
  } finally {
    turns.delete(slot);
    done();
  }
}

/** Per instance: the idempotent request now running for each principal, route and key. */
const runningTurns = new WeakMap<AppContext, Map<string, Promise<void>>>();
function turnsOf(ctx: AppContext): Map<string, Promise<void>> {
  let m = runningTurns.get(ctx);
  if (!m) runningTurns.set(ctx, (m = new Map()));
  return m;
}

/** The stored answer for the key, or the create run once and its answer stored. */
async function once<T>(
  ctx: AppContext,
  c: HandlerCtx,
  status: number,
  run: () => T | Promise<T>,
  secret: SecretAnswer<T> | undefined,
  k: { principalId: string; route: string; key: string; bodyHash: string },
): Promise<T> {
  const { principalId, route, key, bodyHash } = k;
  const since = new Date(Date.now() - IDEMPOTENCY_TTL_MS).toISOString();
  const row = await ctx.storage.idempotencyKeys.find(principalId, route, key, since);
  if (row) {
    if (row.bodyHash !== bodyHash) {
      throw new DomainError("invalid", "idempotency_key_reused", "this Idempotency-Key was used with a different request body", {
        header: "Idempotency-Key",
      });
    }
    c.set.status = row.status;
    c.set.headers["idempotent-replayed"] = "true";
    const stored = JSON.parse(row.body) as T;
    return (await secret?.current?.(stored)) ?? stored;
  }
  const out = await run();
  c.set.status = status;
  await ctx.storage.idempotencyKeys.put({
    principalId,
    route,
    key,
    bodyHash,
    status,
    body: JSON.stringify(secret ? withoutSecrets(out, secret.schema) : out),
    createdAt: new Date().toISOString(),
  });
  return out;
}

export function pruneIdempotencyKeys(ctx: AppContext): Promise<number> {
  const since = new Date(Date.now() - IDEMPOTENCY_TTL_MS).toISOString();
  return ctx.storage.idempotencyKeys.prune(since);
}

/** `{data: resource}` minus the resource's x-secret fields (each is optional in its schema). */
function withoutSecrets<T>(out: T, schema: TSchema): T {
  const data = (out as { data?: Record<string, unknown> }).data;
  if (!data || typeof data !== "object") return out;
  const copy = { ...data };
  for (const f of secretFieldsOf(schema)) delete copy[f];
  return { ...out, data: copy };
}
