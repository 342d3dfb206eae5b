// PostgreSQL implementation of the tenancy repositories (src/storage/tenancy.ts), the SQLite one
// (../sqlite/tenancy.ts) statement for statement; the conformance test runs both.
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
import type { PgClient } from "./connection";
import {
  apiKeyFromRow as apiKey,
  deviceFromRow as device,
  projectFromRow as project,
  teamFromRow as team,
  userFromRow as user,
  num,
  type Row,
} from "../row-records";
import { teamUsedBytesSql } from "./rows";

/** A team row with its stored bytes summed over its inboxes (migration 0033; teams.used_bytes is not kept). */
const TEAM_COLUMNS = `SELECT t.id, t.name, t.plan, t.created_at, ${teamUsedBytesSql("t.id")} AS used_bytes FROM teams t`;

class PgTeams implements TeamRepository {
  constructor(private readonly c: PgClient) {}

  async any() {
    return (await this.c.row("SELECT 1 AS x FROM teams LIMIT 1")) !== null;
  }

  async byId(id: string) {
    const r = await this.c.row<Row>(`${TEAM_COLUMNS} WHERE t.id = $1`, id);
    return r ? team(r) : null;
  }

  async byName(name: string) {
    const r = await this.c.row<Row>(`${TEAM_COLUMNS} WHERE t.name = $1`, name);
    return r ? team(r) : null;
  }

  async insert(t: TeamRecord) {
    await this.c.run(
      "INSERT INTO teams (id, name, plan, used_bytes, created_at) VALUES ($1, $2, $3, $4, $5)",
      t.id,
      t.name,
      t.plan,
      t.usedBytes,
      t.createdAt,
    );
  }
}

class PgUsers implements UserRepository {
  constructor(private readonly c: PgClient) {}

  async byId(id: string) {
    const r = await this.c.row<Row>("SELECT * FROM users WHERE id = $1", id);
    return r ? user(r) : null;
  }

  async byEmail(email: string) {
    const r = await this.c.row<Row>("SELECT * FROM users WHERE email = $1", email);
    return r ? user(r) : null;
  }

  async all() {
    return (await this.c.rows<Row>("SELECT * FROM users ORDER BY created_at, id")).map(user);
  }

  async setPasswordHash(id: string, passwordHash: string) {
    await this.c.run("UPDATE users SET password_hash = $1 WHERE id = $2", passwordHash, id);
  }

  async insert(u: UserRecord) {
    await this.c.run(
      "INSERT INTO users (id, team_id, email, name, password_hash, role, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
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

class PgProjects implements ProjectRepository {
  constructor(private readonly c: PgClient) {}

  async byId(id: string) {
    const r = await this.c.row<Row>("SELECT * FROM projects WHERE id = $1", id);
    return r ? project(r) : null;
  }

  async withPlan(id: string) {
    const r = await this.c.row<Row>("SELECT p.*, t.plan AS team_plan FROM projects p JOIN teams t ON t.id = p.team_id WHERE p.id = $1", id);
    return r ? { project: project(r), plan: r.team_plan as string } : null;
  }

  async slugTaken(slug: string) {
    return (await this.c.row("SELECT 1 AS x FROM projects WHERE slug = $1", slug)) !== null;
  }

  async firstOfTeamNamed(teamName: string) {
    const r = await this.c.row<Row>(
      "SELECT p.* FROM projects p JOIN teams t ON t.id = p.team_id WHERE t.name = $1 ORDER BY p.id LIMIT 1",
      teamName,
    );
    return r ? project(r) : null;
  }

  async listForTeam(teamId: string, onlyId: string | null, before: string | null, limit: number) {
    const rows = await this.c.rows<Row>(
      "SELECT * FROM projects WHERE team_id = $1 AND ($2::text IS NULL OR id = $2) AND ($3::text IS NULL OR id < $3) ORDER BY id DESC LIMIT $4",
      teamId,
      onlyId,
      before,
      limit,
    );
    return rows.map(project);
  }

  async insert(p: ProjectRecord) {
    await this.c.run(
      "INSERT INTO projects (id, team_id, slug, name, environment, settings, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
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
    await this.c.run("UPDATE projects SET name = $1, settings = $2 WHERE id = $3", patch.name, JSON.stringify(patch.settings), id);
  }
}

class PgDevices implements DeviceSessionRepository {
  constructor(private readonly c: PgClient) {}

  async byTokenHash(tokenHash: string) {
    const s = await this.c.row<Row>("SELECT * FROM device_sessions WHERE token_hash = $1", tokenHash);
    if (!s) return null;
    const u = await this.c.row<Row>("SELECT * FROM users WHERE id = $1", s.user_id);
    return u ? { session: device(s), user: user(u) } : null;
  }

  async listForUser(userId: string, before: string | null, limit: number) {
    const rows = before
      ? await this.c.rows<Row>(
          "SELECT * FROM device_sessions WHERE user_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3",
          userId,
          before,
          limit,
        )
      : await this.c.rows<Row>("SELECT * FROM device_sessions WHERE user_id = $1 ORDER BY id DESC LIMIT $2", userId, limit);
    return rows.map(device);
  }

  async insert(d: DeviceSessionRecord) {
    await this.c.run(
      "INSERT INTO device_sessions (id, user_id, name, token_hash, created_at, last_seen_at) VALUES ($1, $2, $3, $4, $5, $6)",
      d.id,
      d.userId,
      d.name,
      d.tokenHash,
      d.createdAt,
      d.lastSeenAt,
    );
  }

  async touch(id: string, at: string) {
    await this.c.run("UPDATE device_sessions SET last_seen_at = $1 WHERE id = $2", at, id);
  }

  async deleteForUser(userId: string, id: string) {
    return (await this.c.run("DELETE FROM device_sessions WHERE id = $1 AND user_id = $2", id, userId)) > 0;
  }

  async deleteAllForUser(userId: string) {
    return await this.c.run("DELETE FROM device_sessions WHERE user_id = $1", userId);
  }

  async deleteExpiredForUser(userId: string, idleBefore: string, createdBefore: string) {
    return await this.c.run(
      "DELETE FROM device_sessions WHERE user_id = $1 AND (COALESCE(last_seen_at, created_at) < $2 OR created_at < $3)",
      userId,
      idleBefore,
      createdBefore,
    );
  }
}

class PgSigninTokens implements SigninTokenRepository {
  constructor(private readonly c: PgClient) {}

  async insert(r: SigninTokenRecord) {
    await this.c.run(
      "INSERT INTO signin_tokens (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
      r.tokenHash,
      r.userId,
      r.createdAt,
      r.expiresAt,
    );
  }

  async consume(tokenHash: string, now: string) {
    await this.c.run("DELETE FROM signin_tokens WHERE expires_at <= $1", now);
    const r = await this.c.row<Row>(
      "DELETE FROM signin_tokens WHERE token_hash = $1 AND expires_at > $2 RETURNING user_id",
      tokenHash,
      now,
    );
    return r ? (r.user_id as string) : null;
  }
}

class PgApiKeys implements ApiKeyRepository {
  constructor(private readonly c: PgClient) {}

  async bySecretHash(secretHash: string) {
    const r = await this.c.row<Row>(
      "SELECT k.*, p.team_id AS project_team_id FROM api_keys k JOIN projects p ON p.id = k.project_id WHERE k.secret_hash = $1",
      secretHash,
    );
    return r ? { key: apiKey(r), teamId: r.project_team_id as string } : null;
  }

  async secretHashExists(secretHash: string) {
    return (await this.c.row("SELECT 1 AS x FROM api_keys WHERE secret_hash = $1", secretHash)) !== null;
  }

  async inProject(projectId: string, id: string) {
    const r = await this.c.row<Row>("SELECT * FROM api_keys WHERE id = $1 AND project_id = $2", id, projectId);
    return r ? apiKey(r) : null;
  }

  async listInProject(projectId: string, before: string | null, limit: number) {
    const rows = before
      ? await this.c.rows<Row>(
          "SELECT * FROM api_keys WHERE project_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3",
          projectId,
          before,
          limit,
        )
      : await this.c.rows<Row>("SELECT * FROM api_keys WHERE project_id = $1 ORDER BY id DESC LIMIT $2", projectId, limit);
    return rows.map(apiKey);
  }

  async insert(k: ApiKeyRecord) {
    await this.c.run(
      `INSERT INTO api_keys (id, project_id, name, environment, secret_hash, last_four, scopes, last_used_at, expires_at,
         revoked_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
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
    await this.c.run("UPDATE api_keys SET revoked_at = $1 WHERE id = $2", at, id);
  }

  async replaceSecret(id: string, secretHash: string, lastFour: string) {
    await this.c.run("UPDATE api_keys SET secret_hash = $1, last_four = $2 WHERE id = $3", secretHash, lastFour, id);
  }

  async touch(id: string, at: string) {
    await this.c.run("UPDATE api_keys SET last_used_at = $1 WHERE id = $2", at, id);
  }
}

class PgIdempotencyKeys implements IdempotencyKeyRepository {
  constructor(private readonly c: PgClient) {}

  async find(principalId: string, route: string, key: string, since: string) {
    const r = await this.c.row<Row>(
      "SELECT * FROM idempotency_keys WHERE principal_id = $1 AND route = $2 AND key = $3 AND created_at > $4",
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
    await this.c.run(
      `INSERT INTO idempotency_keys (principal_id, route, key, body_hash, status, body, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (principal_id, route, key) DO UPDATE SET body_hash = EXCLUDED.body_hash, status = EXCLUDED.status,
         body = EXCLUDED.body, created_at = EXCLUDED.created_at`,
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
    return await this.c.run("DELETE FROM idempotency_keys WHERE created_at <= $1", before);
  }
}

class PgUsage implements UsageRepository {
  constructor(private readonly c: PgClient) {}

  async counts(teamId: string, projectId: string): Promise<UsageCounts | null> {
    // One round trip instead of SQLite's eight statements (each is a network hop here).
    const r = await this.c.row<Row>(
      `SELECT ${teamUsedBytesSql("t.id")} AS used_bytes, t.created_at,
         (SELECT COUNT(*) FROM inboxes i JOIN projects p ON p.id = i.project_id WHERE p.team_id = t.id AND i.catch_all = 0) AS team_inboxes,
         (SELECT COUNT(*) FROM inboxes WHERE project_id = $2) AS project_inboxes,
         (SELECT COALESCE(SUM(message_count), 0) FROM inboxes WHERE project_id = $2) AS project_messages,
         (SELECT COUNT(*) FROM users WHERE team_id = t.id) AS team_members,
         (SELECT COALESCE(SUM(used_bytes), 0) FROM inboxes WHERE project_id = $2) AS project_storage_bytes,
         (SELECT COUNT(*) FROM domains d JOIN projects p ON p.id = d.project_id WHERE p.team_id = t.id) AS team_custom_domains,
         (SELECT COUNT(*) FROM api_keys WHERE project_id = $2 AND revoked_at IS NULL) AS project_api_keys
       FROM teams t WHERE t.id = $1`,
      teamId,
      projectId,
    );
    if (!r) return null;
    // The per-inbox counters the message triggers keep (migrations/0025_baseline.ts): a sum over
    // the project's inboxes instead of a count over its messages (issue 19).
    return {
      teamUsedBytes: num(r.used_bytes),
      teamCreatedAt: r.created_at,
      teamInboxes: num(r.team_inboxes),
      projectInboxes: num(r.project_inboxes),
      projectMessages: num(r.project_messages),
      teamMembers: num(r.team_members),
      projectStorageBytes: num(r.project_storage_bytes),
      teamCustomDomains: num(r.team_custom_domains),
      projectApiKeys: num(r.project_api_keys),
    };
  }
}

export function postgresTenancyRepositories(c: PgClient): TenancyRepositories {
  return {
    teams: new PgTeams(c),
    users: new PgUsers(c),
    projects: new PgProjects(c),
    devices: new PgDevices(c),
    signinTokens: new PgSigninTokens(c),
    apiKeys: new PgApiKeys(c),
    idempotencyKeys: new PgIdempotencyKeys(c),
    usage: new PgUsage(c),
  };
}
