// Teams, users, projects and device sessions (log-in), plus the first-start bootstrap.
import { and, desc, eq, lt } from "drizzle-orm";
import type { AppContext } from "../context";
import { deviceSessions, projects, teams, users } from "../storage/sqlite/schema";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { hashToken, randomToken } from "../lib/crypto";
import { DomainError, notFound } from "../lib/errors";
import { DEVICE_PREFIX, type Principal, type Role } from "./auth";
import type { PlanSlug } from "../config";

export const DEFAULT_PROJECT_SETTINGS = { "api_keys.agent_access_enabled": true };

export function slugify(s: string): string {
  const slug = s
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return slug || "project";
}

export class IdentityService {
  constructor(private readonly ctx: AppContext) {}

  private get orm() {
    return this.ctx.db.orm;
  }

  isEmpty(): boolean {
    return !this.ctx.db.sqlite.query("SELECT 1 FROM teams LIMIT 1").get();
  }

  teamByName(name: string) {
    return this.orm.select().from(teams).where(eq(teams.name, name)).get();
  }

  createTeam(name: string, plan: PlanSlug) {
    const row = { id: newId(), name, plan, usedBytes: 0, createdAt: nowIso() };
    this.orm.insert(teams).values(row).run();
    return row;
  }

  async createUser(input: { teamId: string; email: string; password: string; role: Role; name?: string }) {
    const email = input.email.trim().toLowerCase();
    if (this.orm.select({ id: users.id }).from(users).where(eq(users.email, email)).get()) {
      throw new DomainError("conflict", "email_taken", `a user with email ${email} exists`);
    }
    const row = {
      id: newId(),
      teamId: input.teamId,
      email,
      name: input.name ?? email.split("@")[0]!,
      passwordHash: await Bun.password.hash(input.password, { algorithm: "argon2id" }),
      role: input.role,
      createdAt: nowIso(),
    };
    this.orm.insert(users).values(row).run();
    return row;
  }

  createProject(teamId: string, name: string, slug?: string) {
    const base = slugify(slug ?? name);
    if (slug !== undefined && !/^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/.test(slug)) {
      throw new DomainError("invalid", "validation_error", "slug must be 1..40 lowercase letters, digits and hyphens", { field: "slug" });
    }
    let candidate = base;
    for (let i = 2; this.orm.select({ id: projects.id }).from(projects).where(eq(projects.slug, candidate)).get(); i++) {
      if (slug !== undefined) throw new DomainError("invalid", "slug_taken", `project slug ${slug} is in use`, { field: "slug" });
      candidate = `${base}-${i}`;
    }
    const row = {
      id: newId(),
      teamId,
      slug: candidate,
      name,
      environment: "live",
      settings: { ...DEFAULT_PROJECT_SETTINGS },
      createdAt: nowIso(),
    };
    this.orm.insert(projects).values(row).run();
    return row;
  }

  user(id: string) {
    return this.orm.select().from(users).where(eq(users.id, id)).get();
  }

  team(id: string) {
    return this.orm.select().from(teams).where(eq(teams.id, id)).get()!;
  }

  me(p: Principal) {
    if (!p.userId) throw new DomainError("forbidden", "principal_not_permitted", "an API key has no user; /v1/me is for device sessions");
    const u = this.user(p.userId)!;
    const team = this.team(u.teamId);
    return { id: u.id, email: u.email, name: u.name, team: { id: team.id, name: team.name }, role: u.role };
  }

  /** Projects visible to the caller: the team's projects for a user, the key's project for a key. */
  listProjects(p: Principal, cursor: string | undefined, limit: number) {
    const conds = [eq(projects.teamId, p.teamId)];
    if (p.kind === "api_key") conds.push(eq(projects.id, p.projectId!));
    if (cursor) conds.push(lt(projects.id, cursor));
    return this.orm.select().from(projects).where(and(...conds)).orderBy(desc(projects.id)).limit(limit + 1).all();
  }

  projectFor(p: Principal, id: string) {
    const row = this.orm.select().from(projects).where(eq(projects.id, id)).get();
    if (!row || row.teamId !== p.teamId || (p.kind === "api_key" && p.projectId !== id)) throw notFound("project");
    return row;
  }

  updateProject(p: Principal, id: string, patch: { name?: string; settings?: Record<string, unknown> }) {
    const row = this.projectFor(p, id);
    requireOwnerOrAdmin(p);
    const settings = { ...row.settings };
    for (const [k, v] of Object.entries(patch.settings ?? {})) {
      if (!(k in DEFAULT_PROJECT_SETTINGS)) throw new DomainError("invalid", "validation_error", `unknown setting ${k}`, { field: `settings.${k}` });
      if (typeof v !== "boolean") throw new DomainError("invalid", "validation_error", `setting ${k} must be a boolean`, { field: `settings.${k}` });
      settings[k] = v;
    }
    const name = patch.name ?? row.name;
    this.orm.update(projects).set({ name, settings }).where(eq(projects.id, id)).run();
    return { ...row, name, settings };
  }

  roleIn(p: Principal, teamId: string): Role | null {
    return p.teamId === teamId ? p.role : null;
  }

  teamName(teamId: string): string {
    return this.team(teamId).name;
  }

  async login(email: string, password: string, name: string) {
    const u = this.orm.select().from(users).where(eq(users.email, email.trim().toLowerCase())).get();
    // Verify against a dummy hash when the user is unknown so timing does not reveal accounts.
    const ok = u ? await Bun.password.verify(password, u.passwordHash) : (await Bun.password.verify(password, DUMMY_HASH), false);
    if (!u || !ok) throw new DomainError("unauthenticated", "invalid_credentials", "email or password is wrong");
    const token = DEVICE_PREFIX + randomToken(32);
    const now = nowIso();
    const row = { id: newId(), userId: u.id, name, tokenHash: hashToken(token), createdAt: now, lastSeenAt: now };
    this.orm.insert(deviceSessions).values(row).run();
    return { id: row.id, name, token, created_at: now, last_seen_at: now };
  }

  listDevices(p: Principal, cursor: string | undefined, limit: number) {
    if (!p.userId) throw new DomainError("forbidden", "principal_not_permitted", "an API key has no devices");
    const conds = [eq(deviceSessions.userId, p.userId)];
    if (cursor) conds.push(lt(deviceSessions.id, cursor));
    return this.orm.select().from(deviceSessions).where(and(...conds)).orderBy(desc(deviceSessions.id)).limit(limit + 1).all();
  }

  logout(p: Principal, id: string): void {
    if (!p.userId) throw new DomainError("forbidden", "principal_not_permitted", "an API key has no devices");
    const res = this.ctx.db.sqlite.query("DELETE FROM device_sessions WHERE id = ? AND user_id = ?").run(id, p.userId);
    if (res.changes === 0) throw notFound("device");
  }
}

export function requireOwnerOrAdmin(p: Principal): void {
  if (p.kind !== "device" || (p.role !== "owner" && p.role !== "admin")) {
    throw new DomainError("forbidden", "principal_not_permitted", "only a team owner or admin on a device session may do this");
  }
}

// argon2id hash of a random string; verifying against it costs what a real verify costs.
const DUMMY_HASH = await Bun.password.hash(randomToken(16), { algorithm: "argon2id" });
