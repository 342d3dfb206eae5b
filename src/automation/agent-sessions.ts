// MCP agent sessions: an AI agent's own test flow, run under the same guard rails as a scenario
// run. Opening one creates a run (trigger_type "mcp"); every call made with X-Service-Agent-Session
// is checked against three axes — the credential's scopes, the agent's permissions and the
// session's scopes — and recorded as a run event; what the session creates enters the run's
// cleanup ledger, applied on release or expiry.
import type { AppContext } from "../runtime/context";
import type { Principal, ProjectRef } from "../tenancy/auth";
import type { AgentService, AgentRow } from "./agents";
import type { RunLedger } from "./run-ledger";
import type { RunService } from "./runs";
import type { ApprovalEmitter } from "./approvals";
import type { AgentSessionRow as SessionRow } from "../storage/automation";
import { newId, isUlid } from "../lib/ids";
import { nowIso } from "../lib/time";
import { DomainError, echoed, quoted, notFound, validation } from "../lib/errors";
import { intersect, isScope, normalizeScopes } from "../tenancy/scopes";
import { requireScope } from "../tenancy/auth";
import { appendRunEvent } from "./runs";
import { log } from "../lib/log";

/** Where a session's view finds its project's environment (the tenancy layer's project lookup). */
export interface SessionProjects {
  project(id: string): { id: string; environment: string } | null | Promise<{ id: string; environment: string } | null>;
}

/** The axes a session-bound call is checked against; kept on the principal for error details. */
export interface SessionBinding {
  sessionId: string;
  runId: string;
  projectId: string;
  axes: { credential: string[]; agent: string[]; session: string[] };
}

export class AgentSessionService {
  /** The last recording of an answered call still being written, per run (see recordCall). */
  private readonly recording = new Map<string, Promise<void>>();

  constructor(
    private readonly ctx: AppContext,
    private readonly agents: AgentService,
    /** The session's run ends as a scenario run does: its ledger applied, run.finished written and emitted. */
    private readonly run: { runs: RunService; ledger: RunLedger; emit: ApprovalEmitter },
    private readonly projects: SessionProjects,
  ) {
    // A session dies with the principal that opened it: a revoked key or a logged-out device
    // releases its open sessions (cleanup ledger applied). A rotation keeps the key, and its sessions.
    ctx.bus.subscribe((e) => {
      if (e.type !== "principal.revoked" || (e.kind !== "api_key" && e.kind !== "device")) return;
      this.releaseOfPrincipal(e.kind, e.id).catch((err) => log.error({ err }, "releasing a revoked principal's agent sessions failed"));
    });
  }

  private async releaseOfPrincipal(kind: "api_key" | "device", id: string): Promise<void> {
    const open = await this.store.openOfPrincipal(kind, id);
    for (const s of open) {
      if (kind === "api_key" && !(await this.ctx.storage.apiKeys.inProject(s.project_id, id))?.revokedAt) continue;
      await this.release(s.project_id, s.id);
    }
  }

  private get store() {
    return this.ctx.storage.agentSessions;
  }

  async open(principal: Principal, project: ProjectRef, input: { agent_id?: string; scopes?: string[] }) {
    requireScope(principal, "runs:write");
    if (project.settings["api_keys.agent_access_enabled"] !== true) {
      throw new DomainError("forbidden", "agent_access_disabled", "the project setting api_keys.agent_access_enabled is off", {
        setting: "api_keys.agent_access_enabled",
      });
    }
    const agent = input.agent_id ? await this.agentOf(project.id, input.agent_id) : await this.agents.ensureStandard(project.id);
    const agentPerms = JSON.parse(agent.permissions) as string[];
    // The session axis is fixed now (docs/agent-sessions.md): credential ∩ agent as they stand, narrowed by
    // `scopes`. A scope asked for beyond them is dropped, not kept for later: widening the agent afterwards
    // must not widen a session already open.
    let scopes = intersect(principal.scopes, agentPerms);
    if (input.scopes !== undefined) {
      const bad = input.scopes.filter((s) => !isScope(s));
      if (bad.length) throw validation(`unknown scope ${quoted(bad[0])}`, { field: "scopes", unknown: echoed(bad) });
      scopes = intersect(scopes, normalizeScopes(input.scopes));
    }
    const now = nowIso();
    const id = newId();
    const runId = newId();
    const expiresAt = new Date(Date.now() + this.ctx.config.agentSessionTtlSeconds * 1000).toISOString();
    await this.ctx.storage.transaction(async (tx) => {
      await tx.runs.insert({
        id: runId,
        project_id: project.id,
        agent_id: agent.id,
        agent_name: agent.name,
        scenario_id: null,
        scenario_name: "",
        version_id: null,
        version: 0,
        trigger_type: "mcp",
        trigger: JSON.stringify({ type: "mcp", agent_session_id: id, principal: principal.kind }),
        status: "running",
        inputs: "{}",
        step_count: 0,
        steps: "[]",
        launched_by_user: principal.userId,
        started_at: now,
        created_at: now,
        updated_at: now,
      });
      await tx.agentSessions.insert({
        id,
        project_id: project.id,
        principal_kind: principal.kind,
        principal_id: principal.id,
        agent_id: agent.id,
        run_id: runId,
        scopes: JSON.stringify(scopes),
        expires_at: expiresAt,
        created_at: now,
      });
      await appendRunEvent(tx, runId, project.id, "session.opened", { agent_session_id: id, agent_id: agent.id, scopes });
    });
    return this.view(await this.get(project.id, id));
  }

  private async agentOf(projectId: string, id: string): Promise<AgentRow> {
    if (!isUlid(id)) throw validation("agent_id must be a ULID", { field: "agent_id" });
    const a = await this.ctx.storage.agents.inProject(projectId, id);
    if (!a) throw notFound("agent");
    if (a.revoked_at) throw new DomainError("conflict", "invalid_state", "the agent is revoked", { agent_id: id });
    return a;
  }

  async get(projectId: string, id: string): Promise<SessionRow> {
    const row = await this.store.inProject(projectId, id);
    if (!row) throw notFound("agent session");
    return row;
  }

  /** Status and expiry of a session by id alone (the MCP endpoint's sweep), or null. */
  async state(id: string): Promise<{ status: SessionRow["status"]; expires_at: string } | null> {
    const row = await this.store.byId(id);
    return row ? { status: row.status, expires_at: row.expires_at } : null;
  }

  async view(row: SessionRow) {
    const agent = await this.ctx.storage.agents.byId(row.agent_id);
    const project = (await this.projects.project(row.project_id))!;
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
  async bind(principal: Principal, project: ProjectRef, header: string): Promise<{ principal: Principal; binding: SessionBinding }> {
    if (!isUlid(header)) throw validation("X-Service-Agent-Session must be a ULID", { header: "X-Service-Agent-Session" });
    const row = await this.store.inProject(project.id, header);
    if (!row)
      throw new DomainError("not_found", "not_found", "agent session not found in this project", { header: "X-Service-Agent-Session" });
    if (row.status !== "open") {
      throw new DomainError("conflict", "agent_session_closed", `the agent session is ${row.status}`, { status: row.status });
    }
    if (Date.parse(row.expires_at) <= Date.now()) {
      throw new DomainError("gone", "agent_session_expired", "the agent session has expired", { expires_at: row.expires_at });
    }
    const agent = await this.ctx.storage.agents.byId(row.agent_id);
    const agentPerms = agent && !agent.revoked_at ? (JSON.parse(agent.permissions) as string[]) : [];
    const sessionScopes = JSON.parse(row.scopes) as string[];
    const axes = { credential: principal.scopes, agent: agentPerms, session: sessionScopes };
    const effective = intersect(axes.credential, axes.agent, axes.session);
    const binding: SessionBinding = { sessionId: row.id, runId: row.run_id, projectId: project.id, axes };
    return { principal: { ...principal, scopes: effective, axes } as Principal, binding };
  }

  /**
   * One call made within a session, refused or not, as a step of its run. It is recorded after the
   * call's response has gone out (http/app.ts), so a read of the run right after the call could miss
   * it: such reads wait for the recordings of answered calls first (callsRecorded).
   *
   * A run's recordings are written one after another, in the order the calls were answered: run
   * side by side, a slow one (a busy pool, a lock) would take its sequence number after a later
   * call's, and the run's steps would read out of order.
   */
  recordCall(b: SessionBinding, call: { method: string; route: string; path: string; status: number; request_id: string }): Promise<void> {
    const previous = this.recording.get(b.runId);
    const done = previous ? previous.catch(() => {}).then(() => this.writeCall(b, call)) : this.writeCall(b, call);
    this.recording.set(b.runId, done);
    const forget = () => {
      if (this.recording.get(b.runId) === done) this.recording.delete(b.runId);
    };
    done.then(forget, forget);
    return done;
  }

  /** Resolves once every call of the run answered on this node so far is recorded (failed ones included). */
  async callsRecorded(runId: string): Promise<void> {
    await this.recording.get(runId)?.catch(() => {});
  }

  private async writeCall(
    b: SessionBinding,
    call: { method: string; route: string; path: string; status: number; request_id: string },
  ): Promise<void> {
    await this.ctx.storage.transaction(async (tx) => {
      await appendRunEvent(tx, b.runId, b.projectId, "session.call", call);
      await tx.runs.countSessionCall(b.runId, nowIso());
    });
    this.ctx.bus.publish({ type: "run.changed", projectId: b.projectId, runId: b.runId });
  }

  /** A resource the session created, to be removed at release. */
  recordCreated(b: SessionBinding, resourceType: string, resourceId: string): Promise<void> {
    return this.ctx.storage.runLedger.add({
      id: newId(),
      run_id: b.runId,
      project_id: b.projectId,
      resource_type: resourceType,
      resource_id: resourceId,
      created_at: nowIso(),
    });
  }

  /** Idempotent: a released (or expired) session answers as it stands. */
  async release(projectId: string, id: string, as: "released" | "expired" = "released") {
    const row = await this.get(projectId, id);
    if (row.status !== "open") return this.view(row);
    const claimed = await this.store.close(id, as, nowIso());
    if (!claimed) return this.view(await this.get(projectId, id)); // another worker released it
    // The same ending as a scenario run's (run-executor.ts finish): cleanup.* events from the ledger, then the
    // terminal status and run.finished in one commit, then run.finished to webhooks and the event stream.
    const cleanup = await this.run.ledger.apply({ id: row.run_id, project_id: projectId });
    const status = as === "expired" ? "timed_out" : "succeeded";
    await this.ctx.storage.transaction(async (tx) => {
      await appendRunEvent(tx, row.run_id, projectId, as === "expired" ? "session.expired" : "session.released", { agent_session_id: id });
      await tx.runs.endSession(row.run_id, { status, cleanup_status: cleanup.status, cleanup_error: cleanup.error, at: nowIso() });
      await appendRunEvent(tx, row.run_id, projectId, "run.finished", { status, failed_assertions: 0 });
    });
    this.ctx.bus.publish({ type: "run.changed", projectId, runId: row.run_id });
    const done = await this.run.runs.byId(row.run_id);
    if (done) {
      try {
        const r: unknown = this.run.emit(projectId, "run.finished", { run: this.run.runs.view(done) });
        if (r instanceof Promise) r.catch((e) => log.error({ err: e, run_id: row.run_id }, "run.finished emit failed"));
      } catch (e) {
        log.error({ err: e, run_id: row.run_id }, "run.finished emit failed");
      }
    }
    return this.view(await this.get(projectId, id));
  }

  /** Releases sessions past their expires_at (scheduler; safe with several workers). */
  async expireDue(): Promise<number> {
    const due = await this.store.due(nowIso(), 100);
    for (const s of due) await this.release(s.project_id, s.id, "expired");
    return due.length;
  }
}
