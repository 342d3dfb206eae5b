// Who is calling, and in which project. Two principals: an API key (bound to one project) and a
// device session (a user, who selects a project per request with X-Service-Project).
import { eq } from "drizzle-orm";
import type { AppContext } from "../context";
import { apiKeys, deviceSessions, projects, teams, users } from "../storage/sqlite/schema";
import { hashToken } from "../lib/crypto";
import { DomainError } from "../lib/errors";
import { isUlid } from "../lib/ids";
import { hasScope } from "./scopes";

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

const CACHE_MS = 5_000;
const TOUCH_MS = 1_000;

interface Cached {
  principal: Principal;
  expiresAt: number | null;
  at: number;
  touchedAt: number;
}

export class AuthService {
  private cache = new Map<string, Cached>();
  private projectCache = new Map<string, { p: ProjectRef; at: number }>();

  constructor(private readonly ctx: AppContext) {}

  /** Forget cached credentials (after revoke, rotate, log-out) so the change applies at once. */
  invalidate(): void {
    this.cache.clear();
    this.projectCache.clear();
  }

  authenticate(authorization: string | null): Principal {
    const token = parseBearer(authorization);
    if (!token) throw new DomainError("unauthenticated", "unauthorized", "missing or malformed Authorization: Bearer credential");
    const hash = hashToken(token);
    const now = Date.now();
    let hit = this.cache.get(hash);
    if (!hit || now - hit.at > CACHE_MS) {
      const found = token.startsWith(DEVICE_PREFIX) ? this.loadDevice(hash) : this.loadKey(hash);
      if (!found) {
        this.cache.delete(hash);
        throw new DomainError("unauthenticated", "unauthorized", "invalid, expired or revoked credential");
      }
      hit = { ...found, at: now, touchedAt: hit?.touchedAt ?? 0 };
      this.cache.set(hash, hit);
    }
    if (hit.expiresAt !== null && hit.expiresAt <= now) {
      throw new DomainError("unauthenticated", "unauthorized", "credential expired");
    }
    if (now - hit.touchedAt >= TOUCH_MS) {
      hit.touchedAt = now;
      this.touch(hit.principal, new Date(now).toISOString());
    }
    return hit.principal;
  }

  private loadKey(hash: string): Omit<Cached, "at" | "touchedAt"> | null {
    const row = this.ctx.db.orm
      .select({ key: apiKeys, teamId: projects.teamId })
      .from(apiKeys)
      .innerJoin(projects, eq(projects.id, apiKeys.projectId))
      .where(eq(apiKeys.secretHash, hash))
      .get();
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
    };
  }

  private loadDevice(hash: string): Omit<Cached, "at" | "touchedAt"> | null {
    const row = this.ctx.db.orm
      .select({ s: deviceSessions, u: users })
      .from(deviceSessions)
      .innerJoin(users, eq(users.id, deviceSessions.userId))
      .where(eq(deviceSessions.tokenHash, hash))
      .get();
    if (!row) return null;
    return {
      principal: {
        kind: "device",
        id: row.s.id,
        userId: row.u.id,
        teamId: row.u.teamId,
        role: row.u.role,
        projectId: null,
        scopes: ["*"],
      },
      expiresAt: null,
    };
  }

  private touch(p: Principal, at: string): void {
    if (p.kind === "api_key") {
      this.ctx.db.sqlite.query("UPDATE api_keys SET last_used_at = ? WHERE id = ?").run(at, p.id);
    } else {
      this.ctx.db.sqlite.query("UPDATE device_sessions SET last_seen_at = ? WHERE id = ?").run(at, p.id);
    }
  }

  /** Applies the project-selection rules of the contract. */
  resolveProject(p: Principal, header: string | null): ProjectRef {
    if (p.kind === "api_key") {
      if (header !== null && header !== p.projectId) {
        throw new DomainError("bad_request", "project_mismatch", "X-Service-Project differs from the API key's own project", {
          key_project_id: p.projectId,
        });
      }
      const proj = this.project(p.projectId!);
      if (!proj) throw new DomainError("unauthenticated", "unauthorized", "the key's project no longer exists");
      return proj;
    }
    if (header === null || header === "") {
      throw new DomainError("bad_request", "project_required", "a device session must send X-Service-Project");
    }
    const proj = isUlid(header) ? this.project(header) : null;
    if (!proj || proj.teamId !== p.teamId) throw new DomainError("not_found", "not_found", "project not found");
    return proj;
  }

  project(id: string): ProjectRef | null {
    const now = Date.now();
    const hit = this.projectCache.get(id);
    if (hit && now - hit.at < CACHE_MS) return hit.p;
    const row = this.ctx.db.orm
      .select({ p: projects, plan: teams.plan })
      .from(projects)
      .innerJoin(teams, eq(teams.id, projects.teamId))
      .where(eq(projects.id, id))
      .get();
    if (!row) return null;
    const p: ProjectRef = {
      id: row.p.id,
      slug: row.p.slug,
      name: row.p.name,
      environment: row.p.environment,
      teamId: row.p.teamId,
      plan: row.plan,
      settings: row.p.settings,
    };
    this.projectCache.set(id, { p, at: now });
    return p;
  }
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
    throw new DomainError("forbidden", "insufficient_scope", `scope ${scope} is not granted on every axis of this agent session (missing on: ${missing.join(", ")})`, {
      required: scope,
      missing_on: missing,
    });
  }
  throw new DomainError("forbidden", "insufficient_scope", `this credential lacks the scope ${scope}`, { required: scope });
}

export function requireDevice(p: Principal, code = "principal_not_permitted", what = "this operation"): void {
  if (p.kind !== "device") {
    throw new DomainError("forbidden", code, `${what} is for device sessions only; an API key has no user`);
  }
}
