// Teams, users, projects and device sessions (log-in), plus the first-start bootstrap.
import type { AppContext } from "../runtime/context";
import type { DeviceSessionRecord, ProjectRecord, TeamRecord, UserRecord } from "../storage/tenancy";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { hashToken, randomToken } from "../lib/crypto";
import { DomainError, notFound } from "../lib/errors";
import { DEVICE_PREFIX, type Principal, type Role } from "./auth";
import type { PlanSlug } from "../runtime/config";

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

  private get storage() {
    return this.ctx.storage;
  }

  async isEmpty(): Promise<boolean> {
    return !(await this.storage.teams.any());
  }

  teamByName(name: string): Promise<TeamRecord | null> {
    return this.storage.teams.byName(name);
  }

  async createTeam(name: string, plan: PlanSlug): Promise<TeamRecord> {
    const row: TeamRecord = { id: newId(), name, plan, usedBytes: 0, createdAt: nowIso() };
    await this.storage.teams.insert(row);
    return row;
  }

  async createUser(input: { teamId: string; email: string; password: string; role: Role; name?: string }): Promise<UserRecord> {
    const email = input.email.trim().toLowerCase();
    if (await this.storage.users.byEmail(email)) {
      throw new DomainError("conflict", "email_taken", `a user with email ${email} exists`);
    }
    const row: UserRecord = {
      id: newId(),
      teamId: input.teamId,
      email,
      name: input.name ?? email.split("@")[0]!,
      passwordHash: await Bun.password.hash(input.password, { algorithm: "argon2id" }),
      role: input.role,
      createdAt: nowIso(),
    };
    await this.storage.users.insert(row);
    return row;
  }

  async createProject(teamId: string, name: string, slug?: string): Promise<ProjectRecord> {
    const base = slugify(slug ?? name);
    if (slug !== undefined && !/^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/.test(slug)) {
      throw new DomainError("invalid", "validation_error", "slug must be 1..40 lowercase letters, digits and hyphens", { field: "slug" });
    }
    let candidate = base;
    for (let i = 2; await this.storage.projects.slugTaken(candidate); i++) {
      if (slug !== undefined) throw new DomainError("invalid", "slug_taken", `project slug ${slug} is in use`, { field: "slug" });
      candidate = `${base}-${i}`;
    }
    const row: ProjectRecord = {
      id: newId(),
      teamId,
      slug: candidate,
      name,
      environment: "live",
      settings: { ...DEFAULT_PROJECT_SETTINGS },
      createdAt: nowIso(),
    };
    await this.storage.projects.insert(row);
    return row;
  }

  user(id: string): Promise<UserRecord | null> {
    return this.storage.users.byId(id);
  }

  async team(id: string): Promise<TeamRecord> {
    return (await this.storage.teams.byId(id))!;
  }

  async me(p: Principal) {
    if (!p.userId) throw new DomainError("forbidden", "principal_not_permitted", "an API key has no user; /v1/me is for device sessions");
    const u = (await this.user(p.userId))!;
    const team = await this.team(u.teamId);
    return { id: u.id, email: u.email, name: u.name, team: { id: team.id, name: team.name }, role: u.role };
  }

  /** Projects visible to the caller: the team's projects for a user, the key's project for a key. */
  listProjects(p: Principal, cursor: string | undefined, limit: number): Promise<ProjectRecord[]> {
    return this.storage.projects.listForTeam(p.teamId, p.kind === "api_key" ? p.projectId! : null, cursor || null, limit + 1);
  }

  async projectFor(p: Principal, id: string): Promise<ProjectRecord> {
    const row = await this.storage.projects.byId(id);
    if (!row || row.teamId !== p.teamId || (p.kind === "api_key" && p.projectId !== id)) throw notFound("project");
    return row;
  }

  async updateProject(p: Principal, id: string, patch: { name?: string; settings?: Record<string, unknown> }): Promise<ProjectRecord> {
    const row = await this.projectFor(p, id);
    requireOwnerOrAdmin(p);
    const settings = { ...row.settings };
    for (const [k, v] of Object.entries(patch.settings ?? {})) {
      if (!(k in DEFAULT_PROJECT_SETTINGS))
        throw new DomainError("invalid", "validation_error", `unknown setting ${k}`, { field: `settings.${k}` });
      if (typeof v !== "boolean")
        throw new DomainError("invalid", "validation_error", `setting ${k} must be a boolean`, { field: `settings.${k}` });
      settings[k] = v;
    }
    const name = patch.name ?? row.name;
    await this.storage.projects.update(id, { name, settings });
    return { ...row, name, settings };
  }

  roleIn(p: Principal, teamId: string): Role | null {
    return p.teamId === teamId ? p.role : null;
  }

  async teamName(teamId: string): Promise<string> {
    return (await this.team(teamId)).name;
  }

  async login(email: string, password: string, name: string) {
    const u = await this.storage.users.byEmail(email.trim().toLowerCase());
    // Verify against a dummy hash when the user is unknown so timing does not reveal accounts.
    const ok = await Bun.password.verify(password, u ? u.passwordHash : DUMMY_HASH);
    if (!u || !ok) throw new DomainError("unauthenticated", "invalid_credentials", "email or password is wrong");
    const token = DEVICE_PREFIX + randomToken(32);
    const now = nowIso();
    const row: DeviceSessionRecord = { id: newId(), userId: u.id, name, tokenHash: hashToken(token), createdAt: now, lastSeenAt: now };
    await this.storage.devices.insert(row);
    return { id: row.id, name, token, created_at: now, last_seen_at: now };
  }

  async listDevices(p: Principal, cursor: string | undefined, limit: number): Promise<DeviceSessionRecord[]> {
    if (!p.userId) throw new DomainError("forbidden", "principal_not_permitted", "an API key has no devices");
    return this.storage.devices.listForUser(p.userId, cursor || null, limit + 1);
  }

  async logout(p: Principal, id: string): Promise<void> {
    if (!p.userId) throw new DomainError("forbidden", "principal_not_permitted", "an API key has no devices");
    if (!(await this.storage.devices.deleteForUser(p.userId, id))) throw notFound("device");
  }
}

export function requireOwnerOrAdmin(p: Principal): void {
  if (p.kind !== "device" || (p.role !== "owner" && p.role !== "admin")) {
    throw new DomainError("forbidden", "principal_not_permitted", "only a team owner or admin on a device session may do this");
  }
}

// argon2id hash of a random string; verifying against it costs what a real verify costs.
const DUMMY_HASH = await Bun.password.hash(randomToken(16), { algorithm: "argon2id" });
