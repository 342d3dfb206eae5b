// Agents: named permission sets (the API-key scope vocabulary) that runs execute under. Every
// project has one Standard-preset agent, created lazily the first time the project's agents are
// looked at, so that projects made by any path (bootstrap, POST /v1/projects, `user add`) get one.
import type { AppContext } from "../runtime/context";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { DomainError, echoed, quoted, notFound, validation } from "../lib/errors";
import type { Principal } from "../tenancy/auth";
import { isScope, isSubset, normalizeScopes } from "../tenancy/scopes";
import type { AgentRow } from "../storage/automation";

export const STANDARD_AGENT_NAME = "Standard";
/** What a scenario that creates inboxes, reads mail and calls allowed origins needs. */
export const STANDARD_PERMISSIONS = [
  "inboxes:read",
  "inboxes:write",
  "messages:read",
  "messages:write",
  "scenarios:read",
  "runs:read",
  "runs:write",
  "secrets:read",
  "origins:read",
];

export type { AgentRow };

export interface AgentInput {
  name?: string;
  description?: string;
  permissions?: string[];
}

export class AgentService {
  constructor(private readonly ctx: AppContext) {}

  private get store() {
    return this.ctx.storage.agents;
  }

  /** The project's Standard agent, created on first use. */
  async ensureStandard(projectId: string): Promise<AgentRow> {
    const now = nowIso();
    return this.store.ensureStandard({
      id: newId(),
      project_id: projectId,
      name: STANDARD_AGENT_NAME,
      description: "Standard preset: inboxes, messages, runs and allowed HTTP origins",
      permissions: JSON.stringify(STANDARD_PERMISSIONS),
      preset: "standard",
      revoked_at: null,
      created_at: now,
      updated_at: now,
    });
  }

  private checkPermissions(caller: Principal, permissions: unknown): string[] {
    if (!Array.isArray(permissions)) throw validation("permissions must be an array of scopes", { field: "permissions" });
    const bad = permissions.filter((p) => typeof p !== "string" || !isScope(p));
    if (bad.length) throw validation(`unknown permission ${quoted(bad[0])}`, { field: "permissions", unknown: echoed(bad) });
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

  async create(caller: Principal, projectId: string, input: AgentInput): Promise<AgentRow> {
    await this.ensureStandard(projectId);
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
    await this.store.insert(row);
    return row;
  }

  async list(projectId: string, cursor: string | undefined, limit: number): Promise<AgentRow[]> {
    await this.ensureStandard(projectId);
    return this.store.listLive(projectId, cursor ?? null, limit + 1);
  }

  /** A live (not revoked) agent of the project, or 404. */
  async get(projectId: string, id: string): Promise<AgentRow> {
    await this.ensureStandard(projectId);
    const row = await this.store.liveInProject(projectId, id);
    if (!row) throw notFound("agent");
    return row;
  }

  async update(caller: Principal, projectId: string, id: string, input: AgentInput): Promise<AgentRow> {
    const row = await this.get(projectId, id);
    const next = { ...row };
    if (input.name !== undefined) next.name = this.checkName(input.name);
    if (input.description !== undefined) {
      if (input.description.length > 1000) throw validation("description is at most 1000 characters", { field: "description" });
      next.description = input.description;
    }
    if (input.permissions !== undefined) next.permissions = JSON.stringify(this.checkPermissions(caller, input.permissions));
    next.updated_at = nowIso();
    await this.store.update(id, next);
    return next;
  }

  /** Revoke hides the agent from every operation; runs keep its name. The Standard agent stays. */
  async revoke(projectId: string, id: string): Promise<void> {
    const row = await this.get(projectId, id);
    if (row.preset === "standard") {
      throw new DomainError("conflict", "invalid_state", "the Standard agent cannot be revoked; narrow its permissions instead", {
        preset: "standard",
      });
    }
    await this.store.revoke(id, nowIso());
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
