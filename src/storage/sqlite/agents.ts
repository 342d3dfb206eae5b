// SQLite implementation of the automation repositories an agent acts through (src/storage/automation.ts):
// agents, the HTTP origins they may call, their sessions. Every method is synchronous inside (see
// connection.ts).
import type { AgentRepository, AgentRow, AgentSessionRepository, AgentSessionRow, OriginRepository, OriginRow } from "../automation";
import type { SqliteConnection } from "./connection";

export class SqliteAgents implements AgentRepository {
  constructor(private readonly c: SqliteConnection) {}

  async ensureStandard(candidate: AgentRow): Promise<AgentRow> {
    const q = "SELECT * FROM agents WHERE project_id = ? AND preset = 'standard' AND revoked_at IS NULL";
    const found = this.c.get<AgentRow>(q, candidate.project_id);
    if (found) return found;
    // INSERT OR IGNORE + the partial unique index: two concurrent first uses create one agent.
    this.c.run(
      "INSERT OR IGNORE INTO agents (id, project_id, name, description, permissions, preset, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'standard', ?, ?)",
      candidate.id,
      candidate.project_id,
      candidate.name,
      candidate.description,
      candidate.permissions,
      candidate.created_at,
      candidate.updated_at,
    );
    return this.c.get<AgentRow>(q, candidate.project_id)!;
  }

  async insert(r: AgentRow): Promise<void> {
    this.c.run(
      "INSERT INTO agents (id, project_id, name, description, permissions, preset, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      r.id,
      r.project_id,
      r.name,
      r.description,
      r.permissions,
      r.preset,
      r.created_at,
      r.updated_at,
    );
  }

  async listLive(projectId: string, before: string | null, limit: number): Promise<AgentRow[]> {
    return before
      ? this.c.all<AgentRow>(
          "SELECT * FROM agents WHERE project_id = ? AND revoked_at IS NULL AND id < ? ORDER BY id DESC LIMIT ?",
          projectId,
          before,
          limit,
        )
      : this.c.all<AgentRow>("SELECT * FROM agents WHERE project_id = ? AND revoked_at IS NULL ORDER BY id DESC LIMIT ?", projectId, limit);
  }

  async liveInProject(projectId: string, id: string): Promise<AgentRow | null> {
    return this.c.get<AgentRow>("SELECT * FROM agents WHERE id = ? AND project_id = ? AND revoked_at IS NULL", id, projectId);
  }

  async inProject(projectId: string, id: string): Promise<AgentRow | null> {
    return this.c.get<AgentRow>("SELECT * FROM agents WHERE id = ? AND project_id = ?", id, projectId);
  }

  async byId(id: string): Promise<AgentRow | null> {
    return this.c.get<AgentRow>("SELECT * FROM agents WHERE id = ?", id);
  }

  async update(id: string, f: Pick<AgentRow, "name" | "description" | "permissions" | "updated_at">): Promise<void> {
    this.c.run(
      "UPDATE agents SET name = ?, description = ?, permissions = ?, updated_at = ? WHERE id = ?",
      f.name,
      f.description,
      f.permissions,
      f.updated_at,
      id,
    );
  }

  async revoke(id: string, at: string): Promise<void> {
    this.c.run("UPDATE agents SET revoked_at = ?, updated_at = ? WHERE id = ?", at, at, id);
  }
}

export class SqliteOrigins implements OriginRepository {
  constructor(private readonly c: SqliteConnection) {}

  async insertIfAbsent(r: OriginRow): Promise<boolean> {
    return (
      this.c.run(
        "INSERT OR IGNORE INTO http_origins (id, project_id, origin, scheme, host, port, is_wildcard, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        r.id,
        r.project_id,
        r.origin,
        r.scheme,
        r.host,
        r.port,
        r.is_wildcard,
        r.description,
        r.created_at,
        r.updated_at,
      ).changes > 0
    );
  }

  async idByOrigin(projectId: string, origin: string): Promise<string | null> {
    return this.c.get<{ id: string }>("SELECT id FROM http_origins WHERE project_id = ? AND origin = ?", projectId, origin)?.id ?? null;
  }

  async list(projectId: string, before: string | null, limit: number): Promise<OriginRow[]> {
    return before
      ? this.c.all<OriginRow>(
          "SELECT * FROM http_origins WHERE project_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
          projectId,
          before,
          limit,
        )
      : this.c.all<OriginRow>("SELECT * FROM http_origins WHERE project_id = ? ORDER BY id DESC LIMIT ?", projectId, limit);
  }

  async allForMatching(projectId: string): Promise<OriginRow[]> {
    return this.c.all<OriginRow>("SELECT * FROM http_origins WHERE project_id = ? ORDER BY is_wildcard ASC, id ASC", projectId);
  }

  async inProject(projectId: string, id: string): Promise<OriginRow | null> {
    return this.c.get<OriginRow>("SELECT * FROM http_origins WHERE id = ? AND project_id = ?", id, projectId);
  }

  async updateDescription(id: string, description: string | null, updatedAt: string): Promise<void> {
    this.c.run("UPDATE http_origins SET description = ?, updated_at = ? WHERE id = ?", description, updatedAt, id);
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    return this.c.run("DELETE FROM http_origins WHERE id = ? AND project_id = ?", id, projectId).changes > 0;
  }

  async touch(id: string, at: string): Promise<void> {
    this.c.run("UPDATE http_origins SET last_used_at = ? WHERE id = ?", at, id);
  }
}

export class SqliteAgentSessions implements AgentSessionRepository {
  constructor(private readonly c: SqliteConnection) {}

  async insert(r: Omit<AgentSessionRow, "status" | "released_at">): Promise<void> {
    this.c.run(
      `INSERT INTO agent_sessions (id, project_id, principal_kind, principal_id, agent_id, run_id, scopes, status, expires_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'open', ?, ?)`,
      r.id,
      r.project_id,
      r.principal_kind,
      r.principal_id,
      r.agent_id,
      r.run_id,
      r.scopes,
      r.expires_at,
      r.created_at,
    );
  }

  async byId(id: string): Promise<AgentSessionRow | null> {
    return this.c.get<AgentSessionRow>("SELECT * FROM agent_sessions WHERE id = ?", id);
  }

  async inProject(projectId: string, id: string): Promise<AgentSessionRow | null> {
    return this.c.get<AgentSessionRow>("SELECT * FROM agent_sessions WHERE id = ? AND project_id = ?", id, projectId);
  }

  async close(id: string, status: "released" | "expired", at: string): Promise<boolean> {
    return this.c.run("UPDATE agent_sessions SET status = ?, released_at = ? WHERE id = ? AND status = 'open'", status, at, id).changes > 0;
  }

  async due(now: string, limit: number): Promise<Array<{ id: string; project_id: string }>> {
    return this.c.all<{ id: string; project_id: string }>(
      "SELECT id, project_id FROM agent_sessions WHERE status = 'open' AND expires_at <= ? LIMIT ?",
      now,
      limit,
    );
  }

  async openOfPrincipal(kind: string, principalId: string): Promise<Array<{ id: string; project_id: string }>> {
    return this.c.all<{ id: string; project_id: string }>(
      "SELECT id, project_id FROM agent_sessions WHERE status = 'open' AND principal_kind = ? AND principal_id = ?",
      kind,
      principalId,
    );
  }
}
