// API keys: the contract's five rules (scope subset, '*' minting, default grant, rotate's
// scope_escalation, revoke always allowed), secrets shown only on create and rotate, hash at rest.
import type { AppContext } from "../runtime/context";
import type { ApiKeyRecord } from "../storage/tenancy";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { hashToken, randomToken } from "../lib/crypto";
import { DomainError, echoed, quoted, notFound, validation } from "../lib/errors";
import { KEY_PREFIX, type AuthService, type Principal } from "./auth";
import { isScope, isSubset, normalizeScopes } from "./scopes";
import { publishRevoked } from "./revocation";

type Row = ApiKeyRecord;

export function apiKeyView(r: Row, secret?: string) {
  return {
    id: r.id,
    name: r.name,
    environment: r.environment,
    last_four: r.lastFour,
    scopes: r.scopes,
    last_used_at: r.lastUsedAt,
    expires_at: r.expiresAt,
    revoked_at: r.revokedAt,
    created_at: r.createdAt,
    ...(secret !== undefined ? { secret } : {}),
  };
}

export function newKeySecret(): string {
  return KEY_PREFIX + randomToken(30);
}

export class ApiKeyService {
  constructor(
    private readonly ctx: AppContext,
    private readonly auth: AuthService,
  ) {}

  /** Inserts a key with a given secret (used by bootstrap with INBOXD_BOOTSTRAP_KEY). */
  async insert(projectId: string, name: string, scopes: string[], secret: string, expiresAt: string | null = null): Promise<Row> {
    const row: Row = {
      id: newId(),
      projectId,
      name,
      environment: "live",
      secretHash: hashToken(secret),
      lastFour: secret.slice(-4),
      scopes,
      lastUsedAt: null,
      expiresAt,
      revokedAt: null,
      createdAt: nowIso(),
    };
    await this.ctx.storage.apiKeys.insert(row);
    return row;
  }

  async create(caller: Principal, projectId: string, input: { name: string; scopes?: string[]; expires_at?: string | null }) {
    const name = input.name.trim();
    if (name.length === 0) throw validation("name must not be empty", { field: "name" });
    let scopes: string[];
    if (input.scopes === undefined) {
      // Rule 3: the caller's own set ('*' for a full-access caller; else the widest legal grant).
      scopes = normalizeScopes(caller.scopes);
    } else {
      const unknown = input.scopes.filter((s) => !isScope(s));
      if (unknown.length) throw validation(`unknown scope ${quoted(unknown[0])}`, { field: "scopes", unknown: echoed(unknown) });
      if (input.scopes.length === 0) throw validation("scopes must not be empty; omit it for the default grant", { field: "scopes" });
      scopes = normalizeScopes(input.scopes);
      // Rule 2 then rule 1.
      if (scopes.includes("*") && !caller.scopes.includes("*")) {
        throw new DomainError("forbidden", "scope_escalation", "only a full-access ('*') caller may mint a '*' key", { scope: "*" });
      }
      if (!isSubset(scopes, caller.scopes)) {
        const extra = scopes.filter((s) => !isSubset([s], caller.scopes));
        throw new DomainError("forbidden", "scope_escalation", "requested scopes exceed the caller's own", { scopes: extra });
      }
    }
    let expiresAt: string | null = null;
    if (input.expires_at != null) {
      const t = Date.parse(input.expires_at);
      if (Number.isNaN(t)) throw validation("expires_at must be a date-time", { field: "expires_at" });
      if (t <= Date.now()) throw validation("expires_at must be in the future", { field: "expires_at" });
      expiresAt = new Date(t).toISOString();
    }
    const secret = newKeySecret();
    const row = await this.insert(projectId, name, scopes, secret, expiresAt);
    return apiKeyView(row, secret);
  }

  list(projectId: string, cursor: string | undefined, limit: number): Promise<Row[]> {
    return this.ctx.storage.apiKeys.listInProject(projectId, cursor || null, limit + 1);
  }

  async get(projectId: string, id: string): Promise<Row> {
    const row = await this.find(projectId, id);
    if (!row) throw notFound("API key");
    return row;
  }

  find(projectId: string, id: string): Promise<Row | null> {
    return this.ctx.storage.apiKeys.inProject(projectId, id);
  }

  /** Rule 5: allowed whatever the target's scopes. Revoking twice is harmless. */
  async revoke(projectId: string, id: string): Promise<{ revoked: boolean }> {
    const row = await this.get(projectId, id);
    if (!row.revokedAt) {
      await this.ctx.storage.apiKeys.revoke(id, nowIso());
      this.auth.invalidate();
      publishRevoked(this.ctx, "api_key", id);
    }
    return { revoked: true };
  }

  async rotate(caller: Principal, projectId: string, id: string) {
    const row = await this.get(projectId, id);
    if (!isSubset(row.scopes, caller.scopes)) {
      throw new DomainError("forbidden", "scope_escalation", "the key holds scopes the caller lacks; it cannot be rotated by this caller", {
        scopes: row.scopes.filter((s) => !isSubset([s], caller.scopes)),
      });
    }
    if (row.revokedAt) throw new DomainError("conflict", "invalid_state", "a revoked key cannot be rotated");
    const secret = newKeySecret();
    const patch = { secretHash: hashToken(secret), lastFour: secret.slice(-4) };
    await this.ctx.storage.apiKeys.replaceSecret(id, patch.secretHash, patch.lastFour);
    this.auth.invalidate();
    // Sessions opened with the old secret end; the re-check keeps those opened with the new one.
    publishRevoked(this.ctx, "api_key", id);
    return apiKeyView({ ...row, ...patch }, secret);
  }
}
