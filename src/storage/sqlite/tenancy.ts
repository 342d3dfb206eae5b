// SQLite implementation of the tenancy repositories (src/storage/tenancy.ts). Every method is
// synchronous inside (see connection.ts).
import type {
  ApiKeyRecord,
  ApiKeyRepository,
  DeviceSessionRecord,
  DeviceSessionRepository,
  IdempotencyKeyRepository,
  IdempotencyRecord,
  ProjectRecord,
  ProjectRepository,
  SigninTokenRecord,
  SigninTokenRepository,
  TeamRecord,
  TeamRepository,
  TenancyRepositories,
  UsageCounts,
  UsageRepository,
  UserRecord,
  UserRepository,
} from "../tenancy";
import type { SqliteConnection } from "./connection";
import {
  apiKeyFromRow as apiKey,
  deviceFromRow as device,
  projectFromRow as project,
  teamFromRow as team,
  userFromRow as user,
  type Row,
} from "../row-records";

class SqliteTeams implements TeamRepository {
  constructor(private readonly c: SqliteConnection) {}

  async any() {
    return this.c.get("SELECT 1 AS x FROM teams LIMIT 1") !== null;
  }

  async byId(id: string) {
    const r = this.c.get<Row>("SELECT * FROM teams WHERE id = ?", id);
    return r ? team(r) : null;
  }

  async byName(name: string) {
    const r = this.c.get<Row>("SELECT * FROM teams WHERE name = ?", name);
    return r ? team(r) : null;
  }

  async insert(t: TeamRecord) {
    this.c.run(
      "INSERT INTO teams (id, name, plan, used_bytes, created_at) VALUES (?, ?, ?, ?, ?)",
      t.id,
      t.name,
      t.plan,
      t.usedBytes,
      t.createdAt,
    );
  }
}

class SqliteUsers implements UserRepository {
  constructor(private readonly c: SqliteConnection) {}

  async byId(id: string) {
    const r = this.c.get<Row>("SELECT * FROM users WHERE id = ?", id);
    return r ? user(r) : null;
  }

  async byEmail(email: string) {
    const r = this.c.get<Row>("SELECT * FROM users WHERE email = ?", email);
    return r ? user(r) : null;
  }

  async all() {
    return this.c.all<Row>("SELECT * FROM users ORDER BY created_at, id").map(user);
  }

  async setPasswordHash(id: string, passwordHash: string) {
    this.c.run("UPDATE users SET password_hash = ? WHERE id = ?", passwordHash, id);
  }

  async insert(u: UserRecord) {
    this.c.run(
      "INSERT INTO users (id, team_id, email, name, password_hash, role, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      u.id,
      u.teamId,
      u.email,
      u.name,
      u.passwordHash,
      u.role,
      u.createdAt,
    );
  }
}

class SqliteProjects implements ProjectRepository {
  constructor(private readonly c: SqliteConnection) {}

  async byId(id: string) {
    const r = this.c.get<Row>("SELECT * FROM projects WHERE id = ?", id);
    return r ? project(r) : null;
  }

  async withPlan(id: string) {
    const r = this.c.get<Row>("SELECT p.*, t.plan AS team_plan FROM projects p JOIN teams t ON t.id = p.team_id WHERE p.id = ?", id);
    return r ? { project: project(r), plan: r.team_plan as string } : null;
  }

  async slugTaken(slug: string) {
    return this.c.get("SELECT 1 AS x FROM projects WHERE slug = ?", slug) !== null;
  }

  async firstOfTeamNamed(teamName: string) {
    const r = this.c.get<Row>(
      "SELECT p.* FROM projects p JOIN teams t ON t.id = p.team_id WHERE t.name = ? ORDER BY p.id LIMIT 1",
      teamName,
    );
    return r ? project(r) : null;
  }

  async listForTeam(teamId: string, onlyId: string | null, before: string | null, limit: number) {
    return this.c
      .all<Row>(
        "SELECT * FROM projects WHERE team_id = ? AND (? IS NULL OR id = ?) AND (? IS NULL OR id < ?) ORDER BY id DESC LIMIT ?",
        teamId,
        onlyId,
        onlyId,
        before,
        before,
        limit,
      )
      .map(project);
  }

  async insert(p: ProjectRecord) {
    this.c.run(
      "INSERT INTO projects (id, team_id, slug, name, environment, settings, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      p.id,
      p.teamId,
      p.slug,
      p.name,
      p.environment,
      JSON.stringify(p.settings),
      p.createdAt,
    );
  }

  async update(id: string, patch: { name: string; settings: Record<string, unknown> }) {
    this.c.run("UPDATE projects SET name = ?, settings = ? WHERE id = ?", patch.name, JSON.stringify(patch.settings), id);
  }
}

class SqliteDevices implements DeviceSessionRepository {
  constructor(private readonly c: SqliteConnection) {}

  async byTokenHash(tokenHash: string) {
    const s = this.c.get<Row>("SELECT * FROM device_sessions WHERE token_hash = ?", tokenHash);
    if (!s) return null;
    const u = this.c.get<Row>("SELECT * FROM users WHERE id = ?", s.user_id);
    return u ? { session: device(s), user: user(u) } : null;
  }

  async listForUser(userId: string, before: string | null, limit: number) {
    const rows = before
      ? this.c.all<Row>("SELECT * FROM device_sessions WHERE user_id = ? AND id < ? ORDER BY id DESC LIMIT ?", userId, before, limit)
      : this.c.all<Row>("SELECT * FROM device_sessions WHERE user_id = ? ORDER BY id DESC LIMIT ?", userId, limit);
    return rows.map(device);
  }

  async insert(d: DeviceSessionRecord) {
    this.c.run(
      "INSERT INTO device_sessions (id, user_id, name, token_hash, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?)",
      d.id,
      d.userId,
      d.name,
      d.tokenHash,
      d.createdAt,
      d.lastSeenAt,
    );
  }

  async touch(id: string, at: string) {
    this.c.run("UPDATE device_sessions SET last_seen_at = ? WHERE id = ?", at, id);
  }

  async deleteForUser(userId: string, id: string) {
    return this.c.run("DELETE FROM device_sessions WHERE id = ? AND user_id = ?", id, userId).changes > 0;
  }

  async deleteAllForUser(userId: string) {
    return this.c.run("DELETE FROM device_sessions WHERE user_id = ?", userId).changes;
  }

  async deleteExpiredForUser(userId: string, idleBefore: string, createdBefore: string) {
    return this.c.run(
      "DELETE FROM device_sessions WHERE user_id = ? AND (COALESCE(last_seen_at, created_at) < ? OR created_at < ?)",
      userId,
      idleBefore,
      createdBefore,
    ).changes;
  }
}

class SqliteSigninTokens implements SigninTokenRepository {
  constructor(private readonly c: SqliteConnection) {}

  async insert(r: SigninTokenRecord) {
    this.c.run(
      "INSERT INTO signin_tokens (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
      r.tokenHash,
      r.userId,
      r.createdAt,
      r.expiresAt,
    );
  }

  async consume(tokenHash: string, now: string) {
    this.c.run("DELETE FROM signin_tokens WHERE expires_at <= ?", now);
    const r = this.c.get<Row>("DELETE FROM signin_tokens WHERE token_hash = ? AND expires_at > ? RETURNING user_id", tokenHash, now);
    return r ? (r.user_id as string) : null;
  }
}

class SqliteApiKeys implements ApiKeyRepository {
  constructor(private readonly c: SqliteConnection) {}

  async bySecretHash(secretHash: string) {
    const r = this.c.get<Row>(
      "SELECT k.*, p.team_id AS project_team_id FROM api_keys k JOIN projects p ON p.id = k.project_id WHERE k.secret_hash = ?",
      secretHash,
    );
    return r ? { key: apiKey(r), teamId: r.project_team_id as string } : null;
  }

  async secretHashExists(secretHash: string) {
    return this.c.get("SELECT 1 AS x FROM api_keys WHERE secret_hash = ?", secretHash) !== null;
  }

  async inProject(projectId: string, id: string) {
    const r = this.c.get<Row>("SELECT * FROM api_keys WHERE id = ? AND project_id = ?", id, projectId);
    return r ? apiKey(r) : null;
  }

  async listInProject(projectId: string, before: string | null, limit: number) {
    const rows = before
      ? this.c.all<Row>("SELECT * FROM api_keys WHERE project_id = ? AND id < ? ORDER BY id DESC LIMIT ?", projectId, before, limit)
      : this.c.all<Row>("SELECT * FROM api_keys WHERE project_id = ? ORDER BY id DESC LIMIT ?", projectId, limit);
    return rows.map(apiKey);
  }

  async insert(k: ApiKeyRecord) {
    this.c.run(
      `INSERT INTO api_keys (id, project_id, name, environment, secret_hash, last_four, scopes, last_used_at, expires_at,
         revoked_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      k.id,
      k.projectId,
      k.name,
      k.environment,
      k.secretHash,
      k.lastFour,
      JSON.stringify(k.scopes),
      k.lastUsedAt,
      k.expiresAt,
      k.revokedAt,
      k.createdAt,
    );
  }

  async revoke(id: string, at: string) {
    this.c.run("UPDATE api_keys SET revoked_at = ? WHERE id = ?", at, id);
  }

  async replaceSecret(id: string, secretHash: string, lastFour: string) {
    this.c.run("UPDATE api_keys SET secret_hash = ?, last_four = ? WHERE id = ?", secretHash, lastFour, id);
  }

  async touch(id: string, at: string) {
    this.c.run("UPDATE api_keys SET last_used_at = ? WHERE id = ?", at, id);
  }
}

class SqliteIdempotencyKeys implements IdempotencyKeyRepository {
  constructor(private readonly c: SqliteConnection) {}

  async find(principalId: string, route: string, key: string, since: string) {
    const r = this.c.get<Row>(
      "SELECT * FROM idempotency_keys WHERE principal_id = ? AND route = ? AND key = ? AND created_at > ?",
      principalId,
      route,
      key,
      since,
    );
    if (!r) return null;
    const out: IdempotencyRecord = {
      principalId: r.principal_id,
      route: r.route,
      key: r.key,
      bodyHash: r.body_hash,
      status: r.status,
      body: r.body,
      createdAt: r.created_at,
    };
    return out;
  }

  async put(r: IdempotencyRecord) {
    this.c.run(
      "INSERT OR REPLACE INTO idempotency_keys (principal_id, route, key, body_hash, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      r.principalId,
      r.route,
      r.key,
      r.bodyHash,
      r.status,
      r.body,
      r.createdAt,
    );
  }

  async prune(before: string) {
    return this.c.run("DELETE FROM idempotency_keys WHERE created_at <= ?", before).changes;
  }
}

class SqliteUsage implements UsageRepository {
  constructor(private readonly c: SqliteConnection) {}

  async counts(teamId: string, projectId: string): Promise<UsageCounts | null> {
    const t = this.c.get<{ used_bytes: number; created_at: string }>("SELECT used_bytes, created_at FROM teams WHERE id = ?", teamId);
    if (!t) return null;
    const n = (sql: string, id: string) => this.c.get<{ n: number }>(sql, id)!.n;
    return {
      teamUsedBytes: t.used_bytes,
      teamCreatedAt: t.created_at,
      teamInboxes: n(
        "SELECT COUNT(*) AS n FROM inboxes i JOIN projects p ON p.id = i.project_id WHERE p.team_id = ? AND i.catch_all = 0",
        teamId,
      ),
      projectInboxes: n("SELECT COUNT(*) AS n FROM inboxes WHERE project_id = ?", projectId),
      // The per-inbox counters the message triggers keep (migrations/0002_mail.ts): a sum over the
      // project's inboxes instead of a count over its messages (1.3 s at a million, issue 19).
      projectMessages: n("SELECT COALESCE(SUM(message_count), 0) AS n FROM inboxes WHERE project_id = ?", projectId),
      teamMembers: n("SELECT COUNT(*) AS n FROM users WHERE team_id = ?", teamId),
      projectStorageBytes: n("SELECT COALESCE(SUM(used_bytes), 0) AS n FROM inboxes WHERE project_id = ?", projectId),
      teamCustomDomains: n("SELECT COUNT(*) AS n FROM domains d JOIN projects p ON p.id = d.project_id WHERE p.team_id = ?", teamId),
      projectApiKeys: n("SELECT COUNT(*) AS n FROM api_keys WHERE project_id = ? AND revoked_at IS NULL", projectId),
    };
  }
}

export function sqliteTenancyRepositories(c: SqliteConnection): TenancyRepositories {
  return {
    teams: new SqliteTeams(c),
    users: new SqliteUsers(c),
    projects: new SqliteProjects(c),
    devices: new SqliteDevices(c),
    signinTokens: new SqliteSigninTokens(c),
    apiKeys: new SqliteApiKeys(c),
    idempotencyKeys: new SqliteIdempotencyKeys(c),
    usage: new SqliteUsage(c),
  };
}
