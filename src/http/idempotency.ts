// Idempotency-Key on creates: the same key, route and principal within 24 h replays the stored
// status and body (with Idempotent-Replayed: true); the same key with another body is 422.
import type { AppContext } from "../runtime/context";
import { DomainError } from "../lib/errors";
import { stateOf } from "./request";
import { sha256Hex } from "../storage/blobs";

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

export interface HandlerCtx {
  request: Request;
  route: string;
  body?: unknown;
  set: { status?: number | string; headers: Record<string, any> };
}

export async function idempotent<T>(ctx: AppContext, c: HandlerCtx, status: number, run: () => T | Promise<T>): Promise<T> {
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
  const bodyHash = sha256Hex(JSON.stringify([c.body ?? null, url.pathname, url.search]));
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
    return JSON.parse(row.body) as T;
  }
  const out = await run();
  c.set.status = status;
  await ctx.storage.idempotencyKeys.put({
    principalId,
    route,
    key,
    bodyHash,
    status,
    body: JSON.stringify(out),
    createdAt: new Date().toISOString(),
  });
  return out;
}

export function pruneIdempotencyKeys(ctx: AppContext): Promise<number> {
  const since = new Date(Date.now() - IDEMPOTENCY_TTL_MS).toISOString();
  return ctx.storage.idempotencyKeys.prune(since);
}
