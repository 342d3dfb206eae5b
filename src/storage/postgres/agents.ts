// PostgreSQL implementation of the automation repositories an agent acts through (agents, HTTP
// origins, agent sessions; src/storage/automation.ts), the SQLite ones (../sqlite/agents.ts)
// statement for statement; the conformance test runs both.
import type { AgentRepository, AgentRow, AgentSessionRepository, AgentSessionRow, OriginRepository, OriginRow } from "../automation";
import type { PgClient } from "./connection";

export class PgAgents implements AgentRepository {
  constructor(private readonly c: PgClient) {}

  async ensureStandard(candidate: AgentRow): Promise<AgentRow> {
    const q = "SELECT * FROM agents WHERE project_id = $1 AND preset = 'standard' AND revoked_at IS NULL";
    const found = await this.c.row<AgentRow>(q, candidate.project_id);
    if (found) return found;
    // ON CONFLICT DO NOTHING + the partial unique index: two concurrent first uses create one agent.
    await this.c.run(
      "INSERT INTO agents (id, project_id, name, description, permissions, preset, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, 'standard', $6, $7) ON CONFLICT DO NOTHING",
      candidate.id,
      candidate.project_id,
      candidate.name,
      candidate.description,
      candidate.permissions,
      candidate.created_at,
      candidate.updated_at,
    );
    return (await this.c.row<AgentRow>(q, candidate.project_id))!;
  }

  async insert(r: AgentRow): Promise<void> {
    await this.c.run(
      "INSERT INTO agents (id, project_id, name, description, permissions, preset, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
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
      ? await this.c.rows<AgentRow>(
          "SELECT * FROM agents WHERE project_id = $1 AND revoked_at IS NULL AND id < $2 ORDER BY id DESC LIMIT $3",
          projectId,
          before,
          limit,
        )
      : await this.c.rows<AgentRow>(
          "SELECT * FROM agents WHERE project_id = $1 AND revoked_at IS NULL ORDER BY id DESC LIMIT $2",
          projectId,
          limit,
        );
  }

  async liveInProject(projectId: string, id: string): Promise<AgentRow | null> {
    return await this.c.row<AgentRow>("SELECT * FROM agents WHERE id = $1 AND project_id = $2 AND revoked_at IS NULL", id, projectId);
  }

  async inProject(projectId: string, id: string): Promise<AgentRow | null> {
    return await this.c.row<AgentRow>("SELECT * FROM agents WHERE id = $1 AND project_id = $2", id, projectId);
  }

  async byId(id: string): Promise<AgentRow | null> {
    return await this.c.row<AgentRow>("SELECT * FROM agents WHERE id = $1", id);
  }

  async update(id: string, f: Pick<AgentRow, "name" | "description" | "permissions" | "updated_at">): Promise<void> {
    await this.c.run(
      "UPDATE agents SET name = $1, description = $2, permissions = $3, updated_at = $4 WHERE id = $5",
      f.name,
      f.description,
      f.permissions,
      f.updated_at,
      id,
    );
  }

  async revoke(id: string, at: string): Promise<void> {
    await this.c.run("UPDATE agents SET revoked_at = $1, updated_at = $2 WHERE id = $3", at, at, id);
  }
}

export class PgOrigins implements OriginRepository {
  constructor(private readonly c: PgClient) {}

  async insertIfAbsent(r: OriginRow): Promise<boolean> {
    return (
      (await this.c.run(
        "INSERT INTO http_origins (id, project_id, origin, scheme, host, port, is_wildcard, description, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING",
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
      )) > 0
    );
  }

  async idByOrigin(projectId: string, origin: string): Promise<string | null> {
    return (
      (await this.c.row<{ id: string }>("SELECT id FROM http_origins WHERE project_id = $1 AND origin = $2", projectId, origin))?.id ?? null
    );
  }

  async list(projectId: string, before: string | null, limit: number): Promise<OriginRow[]> {
    return before
      ? await this.c.rows<OriginRow>(
          "SELECT * FROM http_origins WHERE project_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3",
          projectId,
          before,
          limit,
        )
      : await this.c.rows<OriginRow>("SELECT * FROM http_origins WHERE project_id = $1 ORDER BY id DESC LIMIT $2", projectId, limit);
  }

  async allForMatching(projectId: string): Promise<OriginRow[]> {
    return await this.c.rows<OriginRow>("SELECT * FROM http_origins WHERE project_id = $1 ORDER BY is_wildcard ASC, id ASC", projectId);
  }

  async inProject(projectId: string, id: string): Promise<OriginRow | null> {
    return await this.c.row<OriginRow>("SELECT * FROM http_origins WHERE id = $1 AND project_id = $2", id, projectId);
  }

  async updateDescription(id: string, description: string | null, updatedAt: string): Promise<void> {
    await this.c.run("UPDATE http_origins SET description = $1, updated_at = $2 WHERE id = $3", description, updatedAt, id);
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    return (await this.c.run("DELETE FROM http_origins WHERE id = $1 AND project_id = $2", id, projectId)) > 0;
  }

  async touch(id: string, at: string): Promise<void> {
    await this.c.run("UPDATE http_origins SET last_used_at = $1 WHERE id = $2", at, id);
  }
}

export class PgAgentSessions implements AgentSessionRepository {
  constructor(private readonly c: PgClient) {}

  async insert(r: Omit<AgentSessionRow, "status" | "released_at">): Promise<void> {
    await this.c.run(
      `INSERT INTO agent_sessions (id, project_id, principal_kind, principal_id, agent_id, run_id, scopes, status, expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'open', $8, $9)`,
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
    return await this.c.row<AgentSessionRow>("SELECT * FROM agent_sessions WHERE id = $1", id);
  }

  async inProject(projectId: string, id: string): Promise<AgentSessionRow | null> {
    return await this.c.row<AgentSessionRow>("SELECT * FROM agent_sessions WHERE id = $1 AND project_id = $2", id, projectId);
  }

  async close(id: string, status: "released" | "expired", at: string): Promise<boolean> {
    return (
      (await this.c.run("UPDATE agent_sessions SET status = $1, released_at = $2 WHERE id = $3 AND status = 'open'", status, at, id)) > 0
    );
  }

  async due(now: string, limit: number): Promise<Array<{ id: string; project_id: string }>> {
    return await this.c.rows<{ id: string; project_id: string }>(
      "SELECT id, project_id FROM agent_sessions WHERE status = 'open' AND expires_at <= $1 LIMIT $2",
      now,
      limit,
    );
  }

  async openOfPrincipal(kind: string, principalId: string): Promise<Array<{ id: string; project_id: string }>> {
    return await this.c.rows<{ id: string; project_id: string }>(
      "SELECT id, project_id FROM agent_sessions WHERE status = 'open' AND principal_kind = $1 AND principal_id = $2",
      kind,
      principalId,
    );
  }
}
