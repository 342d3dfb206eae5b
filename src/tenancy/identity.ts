// Teams, users, projects and device sessions (log-in), plus the first-start bootstrap.
import type { AppContext } from "../runtime/context";
import type { DeviceSessionRecord, ProjectRecord, TeamRecord, UserRecord } from "../storage/tenancy";
import { newId } from "../lib/ids";
import { isoIn, nowIso } from "../lib/time";
import { hashToken, randomToken } from "../lib/crypto";
import { DomainError, notFound } from "../lib/errors";
import { DEVICE_PREFIX, deviceExpiresAt, deviceLifetime, type Principal, type Role } from "./auth";
import { loginLimits, type PlanSlug } from "../runtime/config";
import { publishRevoked } from "./revocation";
import { clientKey } from "../lib/client-address";
import { LoginThrottle } from "../lib/login-throttle";

/** Sign-in links live 15 minutes: long enough to click the start-up line, short for a leaked log. */
export const SIGNIN_TTL_SECONDS = 15 * 60;
/** Prefix of sign-in tokens, so a secret scanner can tell them from API keys (isk_) and device tokens (isd_). */
export const SIGNIN_PREFIX = "iss_";

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
  /** Back-off of password log-ins (POST /v1/devices), checked before argon2 runs. */
  private readonly throttle: LoginThrottle;

  constructor(private readonly ctx: AppContext) {
    this.throttle = new LoginThrottle(loginLimits(ctx.config));
  }

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

  /** `passwordHash`: a PHC hash made elsewhere (INBOXD_ADMIN_PASSWORD_HASH), stored as it is. */
  async createUser(
    input: { teamId: string; email: string; role: Role; name?: string } & ({ password: string } | { passwordHash: string }),
  ): Promise<UserRecord> {
    const email = input.email.trim().toLowerCase();
    if (await this.storage.users.byEmail(email)) {
      throw new DomainError("conflict", "email_taken", `a user with email ${email} exists`);
    }
    const row: UserRecord = {
      id: newId(),
      teamId: input.teamId,
      email,
      name: input.name ?? email.split("@")[0]!,
      passwordHash: "passwordHash" in input ? input.passwordHash : await Bun.password.hash(input.password, { algorithm: "argon2id" }),
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
    this.ctx.bus.publish({ type: "project.changed", projectId: id });
    return { ...row, name, settings };
  }

  roleIn(p: Principal, teamId: string): Role | null {
    return p.teamId === teamId ? p.role : null;
  }

  async teamName(teamId: string): Promise<string> {
    return (await this.team(teamId)).name;
  }

  /** `client` is the caller's address; failures back off per email+address, address and email. */
  async login(email: string, password: string, name: string, client: string) {
    const account = email.trim().toLowerCase();
    const address = clientKey(client);
    const retryAfter = this.throttle.admit(account, address);
    if (retryAfter > 0) {
      throw new DomainError(
        "rate_limited",
        "rate_limited",
        "too many failed log-ins; retry after the delay in Retry-After",
        { retry_after: retryAfter },
        { "retry-after": String(retryAfter) },
      );
    }
    const unknownUser = await dummy();
    const u = await this.storage.users.byEmail(account);
    // Verify against a dummy hash when the user is unknown so timing does not reveal accounts.
    const ok = await Bun.password.verify(password, u ? u.passwordHash : unknownUser);
    if (!u || !ok) throw new DomainError("unauthenticated", "invalid_credentials", "email or password is wrong");
    this.throttle.succeeded(account, address);
    return this.newDevice(u.id, name);
  }

  /** Every user of every team with the team's name, oldest first (`inboxd user list`). */
  async listUsers(): Promise<Array<UserRecord & { teamName: string }>> {
    const users = await this.storage.users.all();
    const names = new Map<string, string>();
    for (const u of users) if (!names.has(u.teamId)) names.set(u.teamId, await this.teamName(u.teamId));
    return users.map((u) => ({ ...u, teamName: names.get(u.teamId)! }));
  }

  /** Sets a user's password (`inboxd user passwd`) and logs out every device session of theirs. */
  async setPassword(email: string, password: string): Promise<{ user: UserRecord; loggedOut: number }> {
    if (password.length < 8) throw new DomainError("invalid", "validation_error", "the password must be at least 8 characters");
    const user = await this.storage.users.byEmail(email.trim().toLowerCase());
    if (!user) throw notFound("user");
    await this.storage.users.setPasswordHash(user.id, await Bun.password.hash(password, { algorithm: "argon2id" }));
    const loggedOut = await this.storage.devices.deleteAllForUser(user.id);
    publishRevoked(this.ctx, "user", user.id);
    return { user, loggedOut };
  }

  /** The user a start-up sign-in link is for: the configured owner, else the oldest owner. */
  async signinUser(preferredEmail: string): Promise<UserRecord | null> {
    const preferred = await this.storage.users.byEmail(preferredEmail);
    if (preferred) return preferred;
    return (await this.storage.users.all()).find((u) => u.role === "owner") ?? null;
  }

  /** A one-time sign-in token for the web UI: single use, valid `ttlSeconds`; only its hash is stored. */
  async issueSignin(userId: string, ttlSeconds = SIGNIN_TTL_SECONDS): Promise<{ token: string; expiresAt: string }> {
    const token = SIGNIN_PREFIX + randomToken(32);
    // One clock reading for both, so the stored lifetime is exactly the TTL.
    const now = Date.now();
    const expiresAt = isoIn(ttlSeconds, now);
    await this.storage.signinTokens.insert({ tokenHash: hashToken(token), userId, createdAt: new Date(now).toISOString(), expiresAt });
    return { token, expiresAt };
  }

  /** Redeems a sign-in token for a device session, exactly as a log-in with the password would give. */
  async redeemSignin(token: string, name: string) {
    const userId = await this.storage.signinTokens.consume(hashToken(token), nowIso());
    const u = userId ? await this.user(userId) : null;
    if (!u) throw new DomainError("unauthenticated", "invalid_signin_link", "the sign-in link is unknown, already used or expired");
    return this.newDevice(u.id, name);
  }

  private async newDevice(userId: string, name: string) {
    const token = DEVICE_PREFIX + randomToken(32);
    const now = nowIso();
    const row: DeviceSessionRecord = { id: newId(), userId, name, tokenHash: hashToken(token), createdAt: now, lastSeenAt: now };
    await this.storage.devices.insert(row);
    return { id: row.id, name, token, created_at: now, last_seen_at: now, expires_at: this.deviceExpiresAt(row) };
  }

  /** When the session ends unless used again (INBOXD_DEVICE_SESSION_IDLE / _MAX). */
  deviceExpiresAt(d: DeviceSessionRecord): string {
    return deviceExpiresAt(this.ctx, d);
  }

  async listDevices(p: Principal, cursor: string | undefined, limit: number): Promise<DeviceSessionRecord[]> {
    if (!p.userId) throw new DomainError("forbidden", "principal_not_permitted", "an API key has no devices");
    // Expired sessions no longer count as logged in: drop them before listing.
    const { idle, max } = deviceLifetime(this.ctx);
    const now = Date.now();
    await this.storage.devices.deleteExpiredForUser(p.userId, new Date(now - idle).toISOString(), new Date(now - max).toISOString());
    return this.storage.devices.listForUser(p.userId, cursor || null, limit + 1);
  }

  async logout(p: Principal, id: string): Promise<void> {
    if (!p.userId) throw new DomainError("forbidden", "principal_not_permitted", "an API key has no devices");
    if (!(await this.storage.devices.deleteForUser(p.userId, id))) throw notFound("device");
    publishRevoked(this.ctx, "device", id);
  }
}

export function requireOwnerOrAdmin(p: Principal): void {
  if (p.kind !== "device" || (p.role !== "owner" && p.role !== "admin")) {
    throw new DomainError("forbidden", "principal_not_permitted", "only a team owner or admin on a device session may do this");
  }
}

// argon2id hash of a random string; verifying against it costs what a real verify costs. Made at the
// first password log-in, whichever account it names (so its cost tells nothing about the account), not
// at start-up, where it held module loading for ~0.25 s.
let dummyHash: Promise<string> | undefined;
const dummy = (): Promise<string> => (dummyHash ??= Bun.password.hash(randomToken(16), { algorithm: "argon2id" }));
