// Who is calling, and in which project. Two principals: an API key (bound to one project) and a
// device session (a user, who selects a project per request with X-Service-Project).
import type { AppContext } from "../runtime/context";
import { hashToken } from "../lib/crypto";
import { DomainError } from "../lib/errors";
import { isUlid } from "../lib/ids";
import { hasScope, SCOPES } from "./scopes";

export type Role = "owner" | "admin" | "member";

export interface Principal {
  kind: "api_key" | "device";
  /** API key id or device session id. */
  id: string;
  userId: string | null;
  teamId: string;
  role: Role | null;
  /** The key's own project; null for a device session. */
  projectId: string | null;
  /** Effective scopes (narrowed to the three-axis intersection inside an agent session). */
  scopes: string[];
  /** Inside an agent session: the axes `scopes` was computed from, for error details. */
  axes?: { credential: string[]; agent: string[]; session: string[] };
}

export interface ProjectRef {
  id: string;
  slug: string;
  name: string;
  environment: string;
  teamId: string;
  plan: string;
  settings: Record<string, unknown>;
}

export const KEY_PREFIX = "isk_live_";
export const DEVICE_PREFIX = "isd_";

/** Projects and their plans change rarely; a plan change may take this long to apply (a project's own changes apply at once: project.changed). */
const PROJECT_CACHE_MS = 5_000;
const TOUCH_MS = 1_000;

interface Loaded {
  principal: Principal;
  /** Absolute end: the key's expires_at, or a device's log-in time plus INBOXD_DEVICE_SESSION_MAX. */
  expiresAt: number | null;
  /** Devices only: the session ends after this long without use (INBOXD_DEVICE_SESSION_IDLE). */
  idleMs: number | null;
  /** Last use known (a device's last_seen_at; updated here on every request). */
  usedAt: number;
}

interface Cached extends Loaded {
  at: number;
  touchedAt: number;
}

export class AuthService {
  private cache = new Map<string, Cached>();
  private projectCache = new Map<string, { p: ProjectRef; at: number }>();

  constructor(private readonly ctx: AppContext) {
    // A revocation (tenancy/revocation.ts) applies at once to requests, not after the cache's
    // INBOXD_CREDENTIAL_CACHE_MS; from another node it arrives through the ClusterBus.
    ctx.bus.subscribe((e) => {
      if (e.type === "principal.revoked") this.invalidate();
      // A setting switched off (api_keys.agent_access_enabled) holds from the next request, on every node.
      else if (e.type === "project.changed") this.projectCache.delete(e.projectId);
    });
  }

  /** Forget cached credentials (after revoke, rotate, log-out) so the change applies at once. */
  invalidate(): void {
    this.cache.clear();
    this.projectCache.clear();
  }

  async authenticate(authorization: string | null): Promise<Principal> {
    const token = parseBearer(authorization);
    if (!token) throw new DomainError("unauthenticated", "unauthorized", "missing or malformed Authorization: Bearer credential");
    const hash = hashToken(token);
    const now = Date.now();
    let hit = this.cache.get(hash);
    if (!hit || now - hit.at > this.ctx.config.credentialCacheMs) {
      const found = await this.load(token, hash);
      if (!found) {
        this.cache.delete(hash);
        throw new DomainError("unauthenticated", "unauthorized", "invalid, expired or revoked credential");
      }
      hit = { ...found, usedAt: Math.max(found.usedAt, hit?.usedAt ?? 0), at: now, touchedAt: hit?.touchedAt ?? 0 };
      this.cache.set(hash, hit);
    }
    if (lapsed(hit, now)) {
      this.cache.delete(hash);
      if (hit.principal.kind === "device") await this.ctx.storage.devices.deleteForUser(hit.principal.userId!, hit.principal.id);
      throw new DomainError("unauthenticated", "unauthorized", "credential expired");
    }
    hit.usedAt = now;
    if (now - hit.touchedAt >= TOUCH_MS) {
      hit.touchedAt = now;
      await this.touch(hit.principal, new Date(now).toISOString());
    }
    return hit.principal;
  }

  /**
   * Whether an Authorization value still names a live credential, read from the database (not the
   * cache) and without counting as use: what open streams and sessions ask after a revocation.
   */
  async stillValid(authorization: string | null): Promise<boolean> {
    const token = parseBearer(authorization);
    if (!token) return false;
    const found = await this.load(token, hashToken(token));
    return found !== null && !lapsed(found, Date.now());
  }

  private load(token: string, hash: string): Promise<Loaded | null> {
    return token.startsWith(DEVICE_PREFIX) ? this.loadDevice(hash) : this.loadKey(hash);
  }

  private async loadKey(hash: string): Promise<Loaded | null> {
    const row = await this.ctx.storage.apiKeys.bySecretHash(hash);
    if (!row || row.key.revokedAt) return null;
    return {
      principal: {
        kind: "api_key",
        id: row.key.id,
        userId: null,
        teamId: row.teamId,
        role: null,
        projectId: row.key.projectId,
        scopes: row.key.scopes,
      },
      expiresAt: row.key.expiresAt ? Date.parse(row.key.expiresAt) : null,
      idleMs: null,
      usedAt: 0,
    };
  }

  private async loadDevice(hash: string): Promise<Loaded | null> {
    const row = await this.ctx.storage.devices.byTokenHash(hash);
    if (!row) return null;
    const { idle, max } = deviceLifetime(this.ctx);
    return {
      principal: {
        kind: "device",
        id: row.session.id,
        userId: row.user.id,
        teamId: row.user.teamId,
        role: row.user.role,
        projectId: null,
        scopes: scopesOfRole(row.user.role),
      },
      expiresAt: Date.parse(row.session.createdAt) + max,
      idleMs: idle,
      usedAt: Date.parse(row.session.lastSeenAt ?? row.session.createdAt),
    };
  }

  private touch(p: Principal, at: string): Promise<void> {
    return p.kind === "api_key" ? this.ctx.storage.apiKeys.touch(p.id, at) : this.ctx.storage.devices.touch(p.id, at);
  }

  /** Applies the project-selection rules of the contract. */
  async resolveProject(p: Principal, header: string | null): Promise<ProjectRef> {
    if (p.kind === "api_key") {
      if (header !== null && header !== p.projectId) {
        throw new DomainError("bad_request", "project_mismatch", "X-Service-Project differs from the API key's own project", {
          key_project_id: p.projectId,
        });
      }
      const proj = await this.project(p.projectId!);
      if (!proj) throw new DomainError("unauthenticated", "unauthorized", "the key's project no longer exists");
      return proj;
    }
    if (header === null || header === "") {
      throw new DomainError("bad_request", "project_required", "a device session must send X-Service-Project");
    }
    const proj = isUlid(header) ? await this.project(header) : null;
    if (!proj || proj.teamId !== p.teamId) throw new DomainError("not_found", "not_found", "project not found");
    return proj;
  }

  /**
   * The project with its team's plan (cached for a few seconds). Reads through the storage itself,
   * so never call it inside a transaction: resolve projects before opening one.
   */
  async project(id: string): Promise<ProjectRef | null> {
    const now = Date.now();
    const hit = this.projectCache.get(id);
    if (hit && now - hit.at < PROJECT_CACHE_MS) return hit.p;
    const row = await this.ctx.storage.projects.withPlan(id);
    if (!row) return null;
    const p: ProjectRef = {
      id: row.project.id,
      slug: row.project.slug,
      name: row.project.name,
      environment: row.project.environment,
      teamId: row.project.teamId,
      plan: row.plan,
      settings: row.project.settings,
    };
    this.projectCache.set(id, { p, at: now });
    return p;
  }
}

/** Device session lifetimes in milliseconds: idle (sliding) and max (absolute, from log-in). */
export function deviceLifetime(ctx: AppContext): { idle: number; max: number } {
  return { idle: ctx.config.deviceIdleSeconds * 1000, max: ctx.config.deviceMaxSeconds * 1000 };
}

/** When a device session ends if it is not used again: the earlier of its idle and absolute ends. */
export function deviceExpiresAt(ctx: AppContext, d: { createdAt: string; lastSeenAt: string | null }): string {
  const { idle, max } = deviceLifetime(ctx);
  const end = Math.min(Date.parse(d.createdAt) + max, Date.parse(d.lastSeenAt ?? d.createdAt) + idle);
  return new Date(end).toISOString();
}

function lapsed(c: Loaded, now: number): boolean {
  return (c.expiresAt !== null && c.expiresAt <= now) || (c.idleMs !== null && now - c.usedAt > c.idleMs);
}

/**
 * What a user's device session may do, by role. Owners and admins hold '*' (full access, and the
 * only callers who may mint or rotate a '*' key); a member holds every named scope but not '*', so
 * the API-key rules (a grant is a subset of the caller's scopes) keep a member from minting a '*'
 * key or rotating an owner's.
 */
export function scopesOfRole(role: Role): string[] {
  return role === "member" ? [...SCOPES] : ["*"];
}

function parseBearer(h: string | null): string | null {
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1]! : null;
}

export function requireScope(p: Principal, scope: string): void {
  if (hasScope(p.scopes, scope)) return;
  if (p.axes) {
    const missing = Object.entries(p.axes)
      .filter(([, held]) => !hasScope(held, scope))
      .map(([axis]) => axis);
    throw new DomainError(
      "forbidden",
      "insufficient_scope",
      `scope ${scope} is not granted on every axis of this agent session (missing on: ${missing.join(", ")})`,
      {
        required: scope,
        missing_on: missing,
      },
    );
  }
  throw new DomainError("forbidden", "insufficient_scope", `this credential lacks the scope ${scope}`, { required: scope });
}

export function requireDevice(p: Principal, code = "principal_not_permitted", what = "this operation"): void {
  if (p.kind !== "device") {
    throw new DomainError("forbidden", code, `${what} is for device sessions only; an API key has no user`);
  }
}
