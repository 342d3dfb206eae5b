// Runs: launching a published scenario version under an agent, reading runs and their event
// log, cancelling, and waiting for a run to settle. Execution itself is run-executor.ts.
import type { AppContext } from "../context";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { DomainError, notFound, validation } from "../lib/errors";
import type { Principal, ProjectRef } from "../tenancy/auth";
import { hasScope } from "../tenancy/scopes";
import type { AgentService } from "./agents";
import type { ScenarioService } from "./scenarios";
import type { Definition } from "./scenario-definition";

export const RUN_STATUSES = ["queued", "running", "awaiting_approval", "succeeded", "failed", "cancelled", "timed_out"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const TERMINAL: readonly string[] = ["succeeded", "failed", "cancelled", "timed_out"];
/** A launch with `wait` returns once the run is in one of these. */
export const SETTLED: readonly string[] = [...TERMINAL, "awaiting_approval"];

export interface RunRow {
  id: string;
  project_id: string;
  agent_id: string;
  agent_name: string;
  scenario_id: string | null;
  scenario_name: string;
  version_id: string | null;
  version: number;
  trigger_type: string;
  trigger: string;
  status: RunStatus;
  inputs: string;
  current_step_index: number;
  step_count: number;
  steps: string;
  outputs: string;
  approved_step_index: number | null;
  failed_assertions: string;
  error_code: string | null;
  error_message: string | null;
  finishing_status: string | null;
  cleanup_status: string;
  cleanup_error: string | null;
  cancel_requested: number;
  claimed_by: string | null;
  claimed_until: string | null;
  deadline_at: string | null;
  launched_by_user: string | null;
  started_at: string | null;
  finished_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface StepState {
  index: number;
  id: string | null;
  type: string;
  name: string | null;
  approval: boolean;
  status: "pending" | "running" | "awaiting_approval" | "succeeded" | "failed" | "cancelled" | "skipped";
  started_at: string | null;
  finished_at: string | null;
  output: unknown;
  error: { code: string; message: string } | null;
}

export interface RunEventRow {
  id: string;
  run_id: string;
  project_id: string;
  sequence: number;
  type: string;
  payload: string;
  occurred_at: string;
}

export interface LaunchInput {
  agent_id: string;
  scenario_id: string;
  inputs?: Record<string, unknown>;
}

/** Checks inputs against the definition's declarations and fills defaults. */
export function resolveInputs(def: Definition, given: Record<string, unknown> = {}): Record<string, unknown> {
  const decls = def.inputs ?? {};
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(given)) {
    if (!(k in decls)) throw validation(`unknown input ${k}; this scenario declares ${Object.keys(decls).join(", ") || "no inputs"}`, { field: `inputs.${k}` });
  }
  for (const [k, d] of Object.entries(decls)) {
    const v = given[k] ?? d.default;
    if (v === undefined || v === null) {
      if (d.required) throw validation(`input ${k} is required`, { field: `inputs.${k}` });
      continue;
    }
    if (typeof v !== d.type) throw validation(`input ${k} must be a ${d.type}`, { field: `inputs.${k}` });
    out[k] = v;
  }
  return out;
}

export class RunService {
  /** Set by the executor: starts work on a freshly queued run without waiting for the next tick. */
  kick: (runId: string) => void = () => {};
  /** Set by the executor: ends a run that no executor is working on (queued or parked). */
  finishIdle: (runId: string, status: "cancelled") => Promise<boolean> = async () => false;
  /** Set by the approvals wiring: cancelling a parked run closes its pending approval first. */
  closeApproval: (runId: string) => void = () => {};

  constructor(
    private readonly ctx: AppContext,
    private readonly agents: AgentService,
    private readonly scenarios: ScenarioService,
  ) {}

  private get sql() {
    return this.ctx.db.sqlite;
  }

  launch(principal: Principal, project: ProjectRef, input: LaunchInput): RunRow {
    const agent = this.agents.get(project.id, input.agent_id);
    const scenario = this.scenarios.get(project.id, input.scenario_id);
    const version = scenario.current_version_id ? this.scenarios.versionById(scenario.current_version_id) : null;
    if (!version) throw new DomainError("invalid", "scenario_not_published", "publish the scenario before running it", { field: "scenario_id" });
    const required = JSON.parse(version.required_permissions) as string[];
    const agentPerms = this.agents.permissionsOf(agent);
    const agentMissing = required.filter((p) => !hasScope(agentPerms, p));
    if (agentMissing.length) {
      throw new DomainError("forbidden", "agent_permission_denied", `agent ${agent.name} lacks ${agentMissing.join(", ")}, which version ${version.version} requires`, {
        agent_id: agent.id,
        missing: agentMissing,
        required_permissions: required,
      });
    }
    // The launcher cannot reach through an agent further than its own credential reaches.
    const keyMissing = required.filter((p) => !hasScope(principal.scopes, p));
    if (keyMissing.length) {
      throw new DomainError("forbidden", "insufficient_scope", `this credential lacks ${keyMissing.join(", ")}, which the scenario requires`, {
        missing: keyMissing,
        required_permissions: required,
      });
    }
    const def = JSON.parse(version.definition) as Definition;
    const inputs = resolveInputs(def, input.inputs ?? {});
    const now = nowIso();
    const steps: StepState[] = def.steps.map((st, i) => ({
      index: i,
      id: st.id ?? null,
      type: st.type,
      name: st.name ?? null,
      approval: st.approval === true,
      status: "pending",
      started_at: null,
      finished_at: null,
      output: null,
      error: null,
    }));
    const trigger = { type: "api", principal_type: principal.kind, principal_id: principal.id, user_id: principal.userId };
    const id = newId();
    this.ctx.db.tx(() => {
      this.sql
        .query(
          `INSERT INTO runs (id, project_id, agent_id, agent_name, scenario_id, scenario_name, version_id, version, trigger_type, trigger, status,
             inputs, step_count, steps, launched_by_user, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'api', ?, 'queued', ?, ?, ?, ?, ?, ?)`,
        )
        .run(id, project.id, agent.id, agent.name, scenario.id, scenario.name, version.id, version.version, JSON.stringify(trigger), JSON.stringify(inputs), steps.length, JSON.stringify(steps), principal.userId, now, now);
      this.appendEvent(id, project.id, "run.queued", { scenario_id: scenario.id, version: version.version, agent_id: agent.id });
    });
    this.kick(id);
    return this.get(project.id, id);
  }

  get(projectId: string, id: string): RunRow {
    const row = this.sql.query("SELECT * FROM runs WHERE id = ? AND project_id = ?").get(id, projectId) as RunRow | null;
    if (!row) throw notFound("run");
    return row;
  }

  byId(id: string): RunRow | null {
    return this.sql.query("SELECT * FROM runs WHERE id = ?").get(id) as RunRow | null;
  }

  list(projectId: string, statusFilter: string | undefined, cursor: string | undefined, limit: number): RunRow[] {
    const statuses = statusFilter === undefined ? [] : statusFilter.split(",").map((s) => s.trim());
    for (const s of statuses) {
      if (!(RUN_STATUSES as readonly string[]).includes(s)) {
        throw validation(`unknown status ${JSON.stringify(s)}; one of ${RUN_STATUSES.join(", ")} (comma-separated for several)`, { field: "status" });
      }
    }
    const conds = ["project_id = ?"];
    const args: (string | number)[] = [projectId];
    if (statuses.length) {
      conds.push(`status IN (${statuses.map(() => "?").join(",")})`);
      args.push(...statuses);
    }
    if (cursor) {
      conds.push("id < ?");
      args.push(cursor);
    }
    args.push(limit + 1);
    return this.sql.query(`SELECT * FROM runs WHERE ${conds.join(" AND ")} ORDER BY id DESC LIMIT ?`).all(...args) as RunRow[];
  }

  /** Events in ascending sequence; the cursor is the id of the last event already seen. */
  events(projectId: string, runId: string, cursor: string | undefined, limit: number): RunEventRow[] {
    this.get(projectId, runId);
    let after = 0;
    if (cursor) {
      const c = this.sql.query("SELECT sequence FROM run_events WHERE id = ? AND run_id = ?").get(cursor, runId) as { sequence: number } | null;
      if (!c) throw validation("cursor is not an event of this run", { field: "cursor" });
      after = c.sequence;
    }
    return this.sql
      .query("SELECT * FROM run_events WHERE run_id = ? AND sequence > ? ORDER BY sequence ASC LIMIT ?")
      .all(runId, after, limit + 1) as RunEventRow[];
  }

  appendEvent(runId: string, projectId: string, type: string, payload: Record<string, unknown>): void {
    appendRunEvent(this.ctx, runId, projectId, type, payload);
  }

  /** Cancellation: a queued or parked run ends at once; a running one is stopped by its executor. */
  async cancel(projectId: string, id: string): Promise<RunRow> {
    const row = this.get(projectId, id);
    if (TERMINAL.includes(row.status)) {
      throw new DomainError("conflict", "invalid_state", `the run is already ${row.status}`, { status: row.status });
    }
    if (row.trigger_type === "mcp") {
      throw new DomainError("conflict", "invalid_state", "an MCP agent session's run ends when the session is released (POST /v1/agent-sessions/{id}/release)", {
        trigger_type: "mcp",
      });
    }
    const first = this.sql
      .query("UPDATE runs SET cancel_requested = 1, updated_at = ? WHERE id = ? AND cancel_requested = 0 RETURNING id")
      .get(nowIso(), id);
    if (first) this.appendEvent(id, projectId, "run.cancel_requested", {});
    this.ctx.bus.publish({ type: "run.changed", projectId, runId: id });
    // Closed before the run ends, so an approve racing this cancel answers 410 instead of resuming it.
    if (row.status === "awaiting_approval") this.closeApproval(id);
    if (row.status === "queued" || row.status === "awaiting_approval") await this.finishIdle(id, "cancelled");
    // Give the executor a moment to unwind its current step, so the answer is usually final.
    return this.waitFor(projectId, id, 5, TERMINAL);
  }

  /** Resolves with the run once its status is in `until` or after `seconds`. */
  waitFor(projectId: string, id: string, seconds: number, until: readonly string[] = SETTLED): Promise<RunRow> {
    const row = this.get(projectId, id);
    if (seconds <= 0 || until.includes(row.status)) return Promise.resolve(row);
    return new Promise((resolve) => {
      let settled = false;
      const check = () => {
        if (settled) return;
        const r = this.get(projectId, id);
        if (until.includes(r.status)) done(r);
      };
      const done = (r: RunRow) => {
        settled = true;
        unsub();
        clearInterval(poll);
        clearTimeout(timer);
        resolve(r);
      };
      const unsub = this.ctx.bus.subscribe((e) => e.type === "run.changed" && e.runId === id && check());
      // Another worker may be executing the run; its wake-ups do not reach this process's bus.
      const poll = setInterval(check, 1000);
      const timer = setTimeout(() => done(this.get(projectId, id)), seconds * 1000);
    });
  }

  view(row: RunRow) {
    const steps = JSON.parse(row.steps) as StepState[];
    return {
      id: row.id,
      status: row.status,
      agent: { id: row.agent_id, name: row.agent_name },
      scenario: { id: row.scenario_id, name: row.scenario_name, version: row.version },
      trigger: JSON.parse(row.trigger),
      current_step_index: row.current_step_index,
      step_count: row.step_count,
      steps,
      inputs: JSON.parse(row.inputs),
      started_at: row.started_at,
      finished_at: row.finished_at,
      cleanup_status: row.cleanup_status,
      cleanup_error: row.cleanup_error ?? "",
      failed_assertions: JSON.parse(row.failed_assertions),
      error: row.error_code ? { code: row.error_code, message: row.error_message ?? "" } : null,
      cancel_requested: row.cancel_requested === 1,
      events_url: `/v1/runs/${row.id}/events`,
      created_at: row.created_at,
    };
  }

  eventView(e: RunEventRow) {
    return { id: e.id, sequence: e.sequence, type: e.type, payload: JSON.parse(e.payload), occurred_at: e.occurred_at };
  }
}

/** Appends one event to a run's log with the next sequence number (scenario runs and agent sessions alike). */
export function appendRunEvent(ctx: AppContext, runId: string, projectId: string, type: string, payload: unknown): void {
  const sql = ctx.db.sqlite;
  ctx.db.tx(() => {
    const seq = (sql.query("SELECT COALESCE(MAX(sequence), 0) + 1 AS s FROM run_events WHERE run_id = ?").get(runId) as { s: number }).s;
    sql
      .query("INSERT INTO run_events (id, run_id, project_id, sequence, type, payload, occurred_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(newId(), runId, projectId, seq, type, JSON.stringify(payload), nowIso());
  });
}
