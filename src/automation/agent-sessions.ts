// MCP agent sessions: an AI agent's own test flow, run under the same guard rails as a scenario
// run. Opening one creates a run (trigger_type "mcp"); every call made with X-Service-Agent-Session
// is checked against three axes — the credential's scopes, the agent's permissions and the
// session's scopes — and recorded as a run event; what the session creates enters the run's
// cleanup ledger, applied on release or expiry.
import type { AppContext } from "../context";
import type { Principal, ProjectRef } from "../tenancy/auth";
import type { AgentService, AgentRow } from "./agents";
import type { MailRemoval } from "../mail/removal";
import { newId, isUlid } from "../lib/ids";
import { nowIso } from "../lib/time";
import { DomainError, notFound, validation } from "../lib/errors";
import { intersect, isScope, normalizeScopes } from "../tenancy/scopes";
import { requireScope } from "../tenancy/auth";
import { appendRunEvent } from "./runs";

interface SessionRow {
  id: string;
  project_id: string;
  principal_kind: string;
  principal_id: string;
  agent_id: string;
  run_id: string;
  scopes: string;
  status: "open" | "released" | "expired";
  expires_at: string;
  released_at: string | null;
  created_at: string;
}

/** The axes a session-bound call is checked against; kept on the principal for error details. */
export interface SessionBinding {
  sessionId: string;
  runId: string;
  projectId: string;
  axes: { credential: string[]; agent: string[]; session: string[] };
}

export class AgentSessionService {
  constructor(
    private readonly ctx: AppContext,
    private readonly agents: AgentService,
    private readonly removal: MailRemoval,
  ) {}

  private get sql() {
    return this.ctx.db.sqlite;
  }

  open(principal: Principal, project: ProjectRef, input: { agent_id?: string; scopes?: string[] }) {
    requireScope(principal, "runs:write");
    if (project.settings["api_keys.agent_access_enabled"] !== true) {
      throw new DomainError("forbidden", "agent_access_disabled", "the project setting api_keys.agent_access_enabled is off", {
        setting: "api_keys.agent_access_enabled",
      });
    }
    const agent = input.agent_id ? this.agentOf(project.id, input.agent_id) : this.agents.ensureStandard(project.id);
    const agentPerms = JSON.parse(agent.permissions) as string[];
    let scopes: string[];
    if (input.scopes === undefined) {
      scopes = intersect(principal.scopes, agentPerms);
    } else {
      const bad = input.scopes.filter((s) => !isScope(s));
      if (bad.length) throw validation(`unknown scope ${bad[0]}`, { field: "scopes", unknown: bad });
      // No subset check: a session scope beyond the credential is inert, the intersection decides.
      scopes = normalizeScopes(input.scopes);
    }
    const now = nowIso();
    const id = newId();
    const runId = newId();
    const expiresAt = new Date(Date.now() + this.ctx.config.agentSessionTtlSeconds * 1000).toISOString();
    this.ctx.db.tx(() => {
      this.sql
        .query(
          `INSERT INTO runs (id, project_id, agent_id, agent_name, scenario_id, scenario_name, version, trigger_type, trigger, status,
             inputs, current_step_index, step_count, steps, launched_by_user, started_at, created_at, updated_at)
           VALUES (?, ?, ?, ?, NULL, '', 0, 'mcp', ?, 'running', '{}', 0, 0, '[]', ?, ?, ?, ?)`,
        )
        .run(runId, project.id, agent.id, agent.name, JSON.stringify({ type: "mcp", agent_session_id: id, principal: principal.kind }), principal.userId, now, now, now);
      this.sql
        .query(
          `INSERT INTO agent_sessions (id, project_id, principal_kind, principal_id, agent_id, run_id, scopes, status, expires_at, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, 'open', ?, ?)`,
        )
        .run(id, project.id, principal.kind, principal.id, agent.id, runId, JSON.stringify(scopes), expiresAt, now);
      this.appendEvent(runId, project.id, "session.opened", { agent_session_id: id, agent_id: agent.id, scopes });
    });
    return this.view(this.get(project.id, id));
  }

  private agentOf(projectId: string, id: string): AgentRow {
    if (!isUlid(id)) throw validation("agent_id must be a ULID", { field: "agent_id" });
    const a = this.sql.query("SELECT * FROM agents WHERE id = ? AND project_id = ?").get(id, projectId) as AgentRow | null;
    if (!a) throw notFound("agent");
    if (a.revoked_at) throw new DomainError("conflict", "invalid_state", "the agent is revoked", { agent_id: id });
    return a;
  }

  get(projectId: string, id: string): SessionRow {
    const row = this.sql.query("SELECT * FROM agent_sessions WHERE id = ? AND project_id = ?").get(id, projectId) as SessionRow | null;
    if (!row) throw notFound("agent session");
    return row;
  }

  view(row: SessionRow) {
    const agent = this.sql.query("SELECT id, name FROM agents WHERE id = ?").get(row.agent_id) as { id: string; name: string } | null;
    const project = this.sql.query("SELECT id, environment FROM projects WHERE id = ?").get(row.project_id) as { id: string; environment: string };
    return {
      ulid: row.id,
      status: row.status,
      trigger_type: "mcp",
      expires_at: row.expires_at,
      agent: { ulid: row.agent_id, name: agent?.name ?? "" },
      project: { ulid: project.id, environment: project.environment },
      scopes: JSON.parse(row.scopes) as string[],
      run_ulid: row.run_id,
      released_at: row.released_at,
      created_at: row.created_at,
    };
  }

  /**
   * Validates X-Service-Agent-Session for a call and narrows the principal to the three-axis
   * intersection. The returned principal is what the route's scope checks see.
   */
  bind(principal: Principal, project: ProjectRef, header: string): { principal: Principal; binding: SessionBinding } {
    if (!isUlid(header)) throw validation("X-Service-Agent-Session must be a ULID", { header: "X-Service-Agent-Session" });
    const row = this.sql.query("SELECT * FROM agent_sessions WHERE id = ? AND project_id = ?").get(header, project.id) as SessionRow | null;
    if (!row) throw new DomainError("not_found", "not_found", "agent session not found in this project", { header: "X-Service-Agent-Session" });
    if (row.status !== "open") {
      throw new DomainError("conflict", "agent_session_closed", `the agent session is ${row.status}`, { status: row.status });
    }
    if (Date.parse(row.expires_at) <= Date.now()) {
      throw new DomainError("gone", "agent_session_expired", "the agent session has expired", { expires_at: row.expires_at });
    }
    const agent = this.sql.query("SELECT permissions, revoked_at FROM agents WHERE id = ?").get(row.agent_id) as {
      permissions: string;
      revoked_at: string | null;
    } | null;
    const agentPerms = agent && !agent.revoked_at ? (JSON.parse(agent.permissions) as string[]) : [];
    const sessionScopes = JSON.parse(row.scopes) as string[];
    const axes = { credential: principal.scopes, agent: agentPerms, session: sessionScopes };
    const effective = intersect(axes.credential, axes.agent, axes.session);
    const binding: SessionBinding = { sessionId: row.id, runId: row.run_id, projectId: project.id, axes };
    return { principal: { ...principal, scopes: effective, axes } as Principal, binding };
  }

  /** One call made within a session, refused or not, as a step of its run. */
  recordCall(b: SessionBinding, call: { method: string; route: string; path: string; status: number; request_id: string }): void {
    this.ctx.db.tx(() => {
      this.appendEvent(b.runId, b.projectId, "session.call", call);
      this.sql
        .query("UPDATE runs SET step_count = step_count + 1, current_step_index = step_count, updated_at = ? WHERE id = ?")
        .run(nowIso(), b.runId);
    });
    this.ctx.bus.publish({ type: "run.changed", projectId: b.projectId, runId: b.runId });
  }

  /** A resource the session created, to be removed at release. */
  recordCreated(b: SessionBinding, resourceType: string, resourceId: string): void {
    this.sql
      .query("INSERT INTO run_cleanup (id, run_id, project_id, resource_type, resource_id, created_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(newId(), b.runId, b.projectId, resourceType, resourceId, nowIso());
  }

  /** Idempotent: a released (or expired) session answers as it stands. */
  async release(projectId: string, id: string, as: "released" | "expired" = "released") {
    const row = this.get(projectId, id);
    if (row.status !== "open") return this.view(row);
    const claimed = this.sql
      .query("UPDATE agent_sessions SET status = ?, released_at = ? WHERE id = ? AND status = 'open'")
      .run(as, nowIso(), id).changes;
    if (claimed === 0) return this.view(this.get(projectId, id)); // another worker released it
    const { errors } = await this.applyLedger(row.run_id, projectId);
    const now = nowIso();
    this.ctx.db.tx(() => {
      this.appendEvent(row.run_id, projectId, as === "expired" ? "session.expired" : "session.released", { agent_session_id: id });
      this.sql
        .query(
          `UPDATE runs SET status = CASE WHEN status IN ('running','queued') THEN ? ELSE status END,
             cleanup_status = ?, cleanup_error = ?, finished_at = COALESCE(finished_at, ?), updated_at = ? WHERE id = ?`,
        )
        .run(as === "expired" ? "timed_out" : "succeeded", errors.length ? "failed" : "completed", errors.length ? errors.join("; ") : null, now, now, row.run_id);
    });
    this.ctx.bus.publish({ type: "run.changed", projectId, runId: row.run_id });
    return this.view(this.get(projectId, id));
  }

  private async applyLedger(runId: string, projectId: string): Promise<{ errors: string[] }> {
    const items = this.sql
      .query("SELECT id, resource_type, resource_id FROM run_cleanup WHERE run_id = ? AND removed_at IS NULL ORDER BY id DESC")
      .all(runId) as { id: string; resource_type: string; resource_id: string }[];
    const errors: string[] = [];
    for (const it of items) {
      try {
        if (it.resource_type === "inbox") await this.removal.deleteInbox(projectId, it.resource_id);
        this.sql.query("UPDATE run_cleanup SET removed_at = ? WHERE id = ?").run(nowIso(), it.id);
      } catch (e: any) {
        errors.push(`${it.resource_type} ${it.resource_id}: ${e?.message ?? e}`);
        this.sql.query("UPDATE run_cleanup SET error = ? WHERE id = ?").run(String(e?.message ?? e), it.id);
      }
    }
    return { errors };
  }

  /** Releases sessions past their expires_at (scheduler; safe with several workers). */
  async expireDue(): Promise<number> {
    const due = this.sql
      .query("SELECT id, project_id FROM agent_sessions WHERE status = 'open' AND expires_at <= ? LIMIT 100")
      .all(nowIso()) as { id: string; project_id: string }[];
    for (const s of due) await this.release(s.project_id, s.id, "expired");
    return due.length;
  }

  private appendEvent(runId: string, projectId: string, type: string, payload: unknown): void {
    appendRunEvent(this.ctx, runId, projectId, type, payload);
  }
}
