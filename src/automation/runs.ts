// Runs: launching a published scenario version under an agent, reading runs and their event
// log, cancelling, and waiting for a run to settle. Execution itself is run-executor.ts.
import type { AppContext } from "../runtime/context";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { DomainError, quoted, notFound, validation } from "../lib/errors";
import type { Principal, ProjectRef } from "../tenancy/auth";
import { hasScope } from "../tenancy/scopes";
import type { AgentService } from "./agents";
import type { ScenarioService } from "./scenarios";
import type { Definition } from "./scenario-definition";
import type { AutomationRepositories, RunEventRow, RunRow } from "../storage/automation";

export const RUN_STATUSES = ["queued", "running", "awaiting_approval", "succeeded", "failed", "cancelled", "timed_out"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const TERMINAL: readonly string[] = ["succeeded", "failed", "cancelled", "timed_out"];
/** A launch with `wait` returns once the run is in one of these. */
export const SETTLED: readonly string[] = [...TERMINAL, "awaiting_approval"];

export type { RunRow, RunEventRow };

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

export interface LaunchInput {
  agent_id: string;
  scenario_id: string;
  /** An object of input names and values; anything else is refused (resolveInputs). */
  inputs?: unknown;
}

/** Checks inputs against the definition's declarations and fills defaults. */
export function resolveInputs(def: Definition, raw: unknown = {}): Record<string, unknown> {
  // Object.keys of [] or "abc" is not a set of names (routes/runs.ts takes the value unchecked).
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw validation("inputs must be an object of input names and values", { field: "inputs" });
  }
  const given = raw as Record<string, unknown>;
  const decls = def.inputs ?? {};
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(given)) {
    if (!(k in decls))
      throw validation(`unknown input ${k}; this scenario declares ${Object.keys(decls).join(", ") || "no inputs"}`, {
        field: `inputs.${k}`,
      });
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

/**
 * What the run service asks of the executor and of approvals; the composer (build.ts) creates
 * this object, binding it to the services it builds after the run service.
 */
export interface RunHooks {
  /** Starts work on a freshly queued run without waiting for the next tick. */
  kick(runId: string): void;
  /** Ends a run that no executor is working on (queued or parked). */
  finishIdle(runId: string, status: "cancelled"): Promise<boolean>;
  /** Cancelling a parked run closes its pending approval first. */
  closeApproval(runId: string): Promise<void>;
}

export class RunService {
  constructor(
    private readonly ctx: AppContext,
    private readonly agents: AgentService,
    private readonly scenarios: ScenarioService,
    private readonly hooks: RunHooks,
  ) {}

  private get store() {
    return this.ctx.storage.runs;
  }

  async launch(principal: Principal, project: ProjectRef, input: LaunchInput): Promise<RunRow> {
    const agent = await this.agents.get(project.id, input.agent_id);
    const scenario = await this.scenarios.get(project.id, input.scenario_id);
    const version = scenario.current_version_id ? await this.scenarios.versionById(scenario.current_version_id) : null;
    if (!version)
      throw new DomainError("invalid", "scenario_not_published", "publish the scenario before running it", { field: "scenario_id" });
    const required = JSON.parse(version.required_permissions) as string[];
    const agentPerms = this.agents.permissionsOf(agent);
    const agentMissing = required.filter((p) => !hasScope(agentPerms, p));
    if (agentMissing.length) {
      throw new DomainError(
        "forbidden",
        "agent_permission_denied",
        `agent ${agent.name} lacks ${agentMissing.join(", ")}, which version ${version.version} requires`,
        {
          agent_id: agent.id,
          missing: agentMissing,
          required_permissions: required,
        },
      );
    }
    // The launcher cannot reach through an agent further than its own credential reaches.
    const keyMissing = required.filter((p) => !hasScope(principal.scopes, p));
    if (keyMissing.length) {
      throw new DomainError(
        "forbidden",
        "insufficient_scope",
        `this credential lacks ${keyMissing.join(", ")}, which the scenario requires`,
        {
          missing: keyMissing,
          required_permissions: required,
        },
      );
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
    await this.ctx.storage.transaction(async (tx) => {
      await tx.runs.insert({
        id,
        project_id: project.id,
        agent_id: agent.id,
        agent_name: agent.name,
        scenario_id: scenario.id,
        scenario_name: scenario.name,
        version_id: version.id,
        version: version.version,
        trigger_type: "api",
        trigger: JSON.stringify(trigger),
        status: "queued",
        inputs: JSON.stringify(inputs),
        step_count: steps.length,
        steps: JSON.stringify(steps),
        launched_by_user: principal.userId,
        started_at: null,
        created_at: now,
        updated_at: now,
      });
      await appendRunEvent(tx, id, project.id, "run.queued", { scenario_id: scenario.id, version: version.version, agent_id: agent.id });
    });
    this.hooks.kick(id);
    return this.get(project.id, id);
  }

  async get(projectId: string, id: string): Promise<RunRow> {
    const row = await this.store.inProject(projectId, id);
    if (!row) throw notFound("run");
    return row;
  }

  byId(id: string): Promise<RunRow | null> {
    return this.store.byId(id);
  }

  async list(projectId: string, statusFilter: string | undefined, cursor: string | undefined, limit: number): Promise<RunRow[]> {
    const statuses = statusFilter === undefined ? [] : statusFilter.split(",").map((s) => s.trim());
    for (const s of statuses) {
      if (!(RUN_STATUSES as readonly string[]).includes(s)) {
        throw validation(`unknown status ${quoted(s)}; one of ${RUN_STATUSES.join(", ")} (comma-separated for several)`, {
          field: "status",
        });
      }
    }
    return this.store.list(projectId, statuses, cursor ?? null, limit + 1);
  }

  /** Events in ascending sequence; the cursor is the id of the last event already seen. */
  async events(projectId: string, runId: string, cursor: string | undefined, limit: number): Promise<RunEventRow[]> {
    await this.get(projectId, runId);
    let after = 0;
    if (cursor) {
      const seq = await this.ctx.storage.runEvents.sequenceOf(runId, cursor);
      if (seq === null) throw validation("cursor is not an event of this run", { field: "cursor" });
      after = seq;
    }
    return this.ctx.storage.runEvents.after(runId, after, limit + 1);
  }

  appendEvent(runId: string, projectId: string, type: string, payload: Record<string, unknown>): Promise<void> {
    return appendRunEvent(this.ctx.storage, runId, projectId, type, payload);
  }

  /** Cancellation: a queued or parked run ends at once; a running one is stopped by its executor. */
  async cancel(projectId: string, id: string): Promise<RunRow> {
    const row = await this.get(projectId, id);
    if (TERMINAL.includes(row.status)) {
      throw new DomainError("conflict", "invalid_state", `the run is already ${row.status}`, { status: row.status });
    }
    if (row.trigger_type === "mcp") {
      throw new DomainError(
        "conflict",
        "invalid_state",
        "an MCP agent session's run ends when the session is released (POST /v1/agent-sessions/{id}/release)",
        {
          trigger_type: "mcp",
        },
      );
    }
    const first = await this.store.requestCancel(id, nowIso());
    if (first) await this.appendEvent(id, projectId, "run.cancel_requested", {});
    this.ctx.bus.publish({ type: "run.changed", projectId, runId: id });
    // Closed before the run ends, so an approve racing this cancel answers 410 instead of resuming it.
    if (row.status === "awaiting_approval") await this.hooks.closeApproval(id);
    if (row.status === "queued" || row.status === "awaiting_approval") await this.hooks.finishIdle(id, "cancelled");
    // Give the executor a moment to unwind its current step, so the answer is usually final.
    return this.waitFor(projectId, id, 5, TERMINAL);
  }

  /** Resolves with the run once its status is in `until` or after `seconds`. */
  async waitFor(projectId: string, id: string, seconds: number, until: readonly string[] = SETTLED): Promise<RunRow> {
    const row = await this.get(projectId, id);
    if (seconds <= 0 || until.includes(row.status)) return row;
    return new Promise((resolve, reject) => {
      let settled = false;
      const check = async () => {
        if (settled) return;
        let r: RunRow;
        try {
          r = await this.get(projectId, id);
        } catch (e) {
          if (!settled) fail(e);
          return;
        }
        if (!settled && until.includes(r.status)) done(r);
      };
      const fail = (e: unknown) => {
        stop();
        reject(e);
      };
      const stop = () => {
        settled = true;
        unsub();
        clearInterval(poll);
        clearTimeout(timer);
      };
      const done = (r: RunRow) => {
        stop();
        resolve(r);
      };
      const unsub = this.ctx.bus.subscribe((e) => {
        if (e.type === "run.changed" && e.runId === id) void check();
      });
      // Another worker may be executing the run; its wake-ups do not reach this process's bus.
      const poll = setInterval(() => void check(), 1000);
      const timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        this.get(projectId, id).then(done, fail);
      }, seconds * 1000);
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
export function appendRunEvent(
  repos: Pick<AutomationRepositories, "runEvents">,
  runId: string,
  projectId: string,
  type: string,
  payload: unknown,
): Promise<void> {
  return repos.runEvents.append({
    id: newId(),
    run_id: runId,
    project_id: projectId,
    type,
    payload: JSON.stringify(payload),
    occurred_at: nowIso(),
  });
}
