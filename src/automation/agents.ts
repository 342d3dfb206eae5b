// Agents: named permission sets (the API-key scope vocabulary) that runs execute under. Every
// project has one Standard-preset agent, created lazily the first time the project's agents are
// looked at, so that projects made by any path (bootstrap, POST /v1/projects, `user add`) get one.
import type { AppContext } from "../context";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { DomainError, notFound, validation } from "../lib/errors";
import type { Principal } from "../tenancy/auth";
import { isScope, isSubset, normalizeScopes } from "../tenancy/scopes";

export const STANDARD_AGENT_NAME = "Standard";
/** What a scenario that creates inboxes, reads mail and calls allowed origins needs. */
export const STANDARD_PERMISSIONS = [
  "inboxes:read", "inboxes:write",
  "messages:read", "messages:write",
  "scenarios:read",
  "runs:read", "runs:write",
  "secrets:read",
  "origins:read",
];

export interface AgentRow {
  id: string;
  project_id: string;
  name: string;
  description: string;
  permissions: string;
  preset: string | null;
  revoked_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface AgentInput {
  name?: string;
  description?: string;
  permissions?: string[];
}

export class AgentService {
  constructor(private readonly ctx: AppContext) {}

  private get sql() {
    return this.ctx.db.sqlite;
  }

  /** The project's Standard agent, created on first use. */
  ensureStandard(projectId: string): AgentRow {
    const found = this.sql
      .query("SELECT * FROM agents WHERE project_id = ? AND preset = 'standard' AND revoked_at IS NULL")
      .get(projectId) as AgentRow | null;
    if (found) return found;
    const now = nowIso();
    // INSERT OR IGNORE + the partial unique index: two concurrent first uses create one agent.
    this.sql
      .query(
        "INSERT OR IGNORE INTO agents (id, project_id, name, description, permissions, preset, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'standard', ?, ?)",
      )
      .run(newId(), projectId, STANDARD_AGENT_NAME, "Standard preset: inboxes, messages, runs and allowed HTTP origins", JSON.stringify(STANDARD_PERMISSIONS), now, now);
    return this.sql.query("SELECT * FROM agents WHERE project_id = ? AND preset = 'standard' AND revoked_at IS NULL").get(projectId) as AgentRow;
  }

  private checkPermissions(caller: Principal, permissions: unknown): string[] {
    if (!Array.isArray(permissions)) throw validation("permissions must be an array of scopes", { field: "permissions" });
    const bad = permissions.filter((p) => typeof p !== "string" || !isScope(p));
    if (bad.length) throw validation(`unknown permission ${JSON.stringify(bad[0])}`, { field: "permissions", unknown: bad });
    if (!isSubset(permissions, caller.scopes)) {
      throw new DomainError("forbidden", "scope_escalation", "an agent cannot hold permissions its creator's credential lacks", {
        field: "permissions",
        missing: permissions.filter((p) => !isSubset([p], caller.scopes)),
      });
    }
    return normalizeScopes(permissions);
  }

  private checkName(name: unknown): string {
    if (typeof name !== "string" || name.trim() === "" || name.length > 100) {
      throw validation("name must be 1..100 characters", { field: "name" });
    }
    return name.trim();
  }

  create(caller: Principal, projectId: string, input: AgentInput): AgentRow {
    this.ensureStandard(projectId);
    const name = this.checkName(input.name);
    const permissions = this.checkPermissions(caller, input.permissions);
    const description = input.description ?? "";
    if (description.length > 1000) throw validation("description is at most 1000 characters", { field: "description" });
    const now = nowIso();
    const row: AgentRow = {
      id: newId(),
      project_id: projectId,
      name,
      description,
      permissions: JSON.stringify(permissions),
      preset: null,
      revoked_at: null,
      created_at: now,
      updated_at: now,
    };
    this.sql
      .query("INSERT INTO agents (id, project_id, name, description, permissions, preset, created_at, updated_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)")
      .run(row.id, projectId, name, description, row.permissions, now, now);
    return row;
  }

  list(projectId: string, cursor: string | undefined, limit: number): AgentRow[] {
    this.ensureStandard(projectId);
    return this.sql
      .query(`SELECT * FROM agents WHERE project_id = ? AND revoked_at IS NULL ${cursor ? "AND id < ?" : ""} ORDER BY id DESC LIMIT ?`)
      .all(...(cursor ? [projectId, cursor, limit + 1] : [projectId, limit + 1])) as AgentRow[];
  }

  /** A live (not revoked) agent of the project, or 404. */
  get(projectId: string, id: string): AgentRow {
    this.ensureStandard(projectId);
    const row = this.sql.query("SELECT * FROM agents WHERE id = ? AND project_id = ? AND revoked_at IS NULL").get(id, projectId) as AgentRow | null;
    if (!row) throw notFound("agent");
    return row;
  }

  update(caller: Principal, projectId: string, id: string, input: AgentInput): AgentRow {
    const row = this.get(projectId, id);
    const next = { ...row };
    if (input.name !== undefined) next.name = this.checkName(input.name);
    if (input.description !== undefined) {
      if (input.description.length > 1000) throw validation("description is at most 1000 characters", { field: "description" });
      next.description = input.description;
    }
    if (input.permissions !== undefined) next.permissions = JSON.stringify(this.checkPermissions(caller, input.permissions));
    next.updated_at = nowIso();
    this.sql
      .query("UPDATE agents SET name = ?, description = ?, permissions = ?, updated_at = ? WHERE id = ?")
      .run(next.name, next.description, next.permissions, next.updated_at, id);
    return next;
  }

  /** Revoke hides the agent from every operation; runs keep its name. The Standard agent stays. */
  revoke(projectId: string, id: string): void {
    const row = this.get(projectId, id);
    if (row.preset === "standard") {
      throw new DomainError("conflict", "invalid_state", "the Standard agent cannot be revoked; narrow its permissions instead", { preset: "standard" });
    }
    this.sql.query("UPDATE agents SET revoked_at = ?, updated_at = ? WHERE id = ?").run(nowIso(), nowIso(), id);
  }

  permissionsOf(row: AgentRow): string[] {
    return JSON.parse(row.permissions);
  }

  view(row: AgentRow) {
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      permissions: this.permissionsOf(row),
      preset: row.preset,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }
}
