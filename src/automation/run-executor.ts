// The persistent run executor inside the binary. A run is worked on by whichever worker holds
// its lease (claimed_by/claimed_until, renewed by a heartbeat); a worker that dies simply stops
// renewing, and the periodic tick of any worker claims the run again and resumes it at its
// current step. Progress (step states, outputs, current_step_index) is persisted after every
// step, so resuming never repeats a finished step. A step marked `approval: true` parks the run
// (awaiting_approval, no lease held) until resume() or failParked().
import type { AppContext } from "../runtime/context";
import type { Transaction } from "../storage";
import { nowIso } from "../lib/time";
import type { ProjectRef } from "../tenancy/auth";
import type { AuthService } from "../tenancy/auth";
import type { AgentService } from "./agents";
import type { ScenarioSecretService } from "./scenario-secrets";
import type { ScenarioService } from "./scenarios";
import { appendRunEvent, TERMINAL, type RunRow, type RunService, type StepState } from "./runs";
import type { Definition, Step } from "./scenario-definition";
import { DEFAULT_RUN_TIMEOUT } from "./scenario-definition";
import { interpolate, references, scrub, UnresolvedReference, type Scope } from "./interpolate";
import { isRepeatable, STEP_HANDLERS } from "./steps";
import { hasScope } from "../tenancy/scopes";
import { StepError, type FailedAssertion, type StepDeps } from "./steps/types";
import type { RunLedger } from "./run-ledger";

const LEASE_MS = 10_000;
const HEARTBEAT_MS = 3_000;
const TICK_BATCH = 10;

/** Why a run's work was interrupted: only cancel and deadline end the run. */
export class Interrupt {
  constructor(readonly kind: "cancel" | "deadline" | "shutdown" | "lost") {}
}

export interface ParkInfo {
  run: RunRow;
  stepIndex: number;
  /** What the step will do, with secrets replaced by [secret:NAME]. */
  snapshot: { action: string; target_resource_type: string; target_resource_id: string; inputs: unknown };
}

type RunError = { code: string; message: string };
type Emit = (projectId: string, type: string, payload: Record<string, unknown>) => void;

/** What the executor asks of approvals; the composer (build.ts) creates this object. */
export interface RunExecutorHooks {
  /**
   * Inside the transaction that parks a run: creates the pending approval of the parked step,
   * with that transaction's repositories, so both commit together. Returns what to do once the
   * transaction has committed (announce the approval), or nothing.
   */
  park(tx: Transaction, p: ParkInfo): Promise<(() => void) | undefined>;
}

export class RunExecutor {
  private active = new Map<string, { ac: AbortController; done: Promise<void> }>();
  private stopping = false;
  private unsubscribe: () => void;

  constructor(
    private readonly ctx: AppContext,
    private readonly runs: RunService,
    private readonly scenarios: ScenarioService,
    private readonly agents: AgentService,
    private readonly secrets: ScenarioSecretService,
    private readonly auth: AuthService,
    private readonly deps: StepDeps,
    private readonly ledger: RunLedger,
    private readonly emit: Emit,
    private readonly hooks: RunExecutorHooks,
  ) {
    this.unsubscribe = ctx.bus.subscribe((e) => {
      if (e.type !== "run.changed") return;
      const a = this.active.get(e.runId);
      if (!a) return;
      this.runs.byId(e.runId).then(
        (r) => {
          if (r?.cancel_requested === 1) a.ac.abort(new Interrupt("cancel"));
        },
        (err) => console.error(`run ${e.runId}: reading the run failed`, err),
      );
    });
  }

  private get store() {
    return this.ctx.storage.runs;
  }

  private lease(): string {
    return new Date(Date.now() + LEASE_MS).toISOString();
  }

  /** Claims every runnable run nobody holds; called by the scheduler every second. */
  async tick(): Promise<void> {
    if (this.stopping) return;
    const ids = await this.store.claimable(nowIso(), TICK_BATCH);
    for (const id of ids) this.kick(id);
  }

  /** Starts work on the run if this worker can claim it; returns at once (the work goes on). */
  kick(id: string): void {
    if (this.stopping || this.active.has(id)) return;
    // Reserved synchronously so two kicks of one run never both claim and execute it.
    const ac = new AbortController();
    let release!: () => void;
    const entry = { ac, done: new Promise<void>((r) => (release = r)) };
    this.active.set(id, entry);
    void (async () => {
      try {
        const row = await this.claim(id, ["queued", "running"]);
        if (row) await this.execute(row, ac);
      } catch (e) {
        console.error(`run ${id}: executor error`, e);
      } finally {
        if (this.active.get(id) === entry) this.active.delete(id);
        release();
      }
    })();
  }

  /** One atomic claim (the repository's lease statement) decides which worker gets the run. MCP session runs (no version) are not ours. */
  private claim(id: string, statuses: string[]): Promise<RunRow | null> {
    return this.store.claim(id, statuses, this.ctx.workerId, this.lease(), nowIso());
  }

  /** Approval granted: the parked run continues at the same step. */
  async resume(runId: string): Promise<boolean> {
    const found = await this.store.byId(runId);
    const row = found?.status === "awaiting_approval" ? found : null;
    if (!row) return false;
    const steps = JSON.parse(row.steps) as (StepState & { parked_at?: string })[];
    const parkedAt = steps[row.current_step_index]?.parked_at;
    // Time spent parked does not count against the run's own timeout.
    const deadline =
      row.deadline_at && parkedAt
        ? new Date(Date.parse(row.deadline_at) + (Date.now() - Date.parse(parkedAt))).toISOString()
        : row.deadline_at;
    const ok = await this.store.unpark(runId, deadline, nowIso());
    if (!ok) return false;
    await this.runs.appendEvent(runId, row.project_id, "step.approved", { step_index: row.current_step_index });
    this.ctx.bus.publish({ type: "run.changed", projectId: row.project_id, runId });
    this.kick(runId);
    return true;
  }

  /** Approval rejected or expired: the parked run fails at its step. */
  async failParked(runId: string, reason: string, code = "approval_rejected"): Promise<boolean> {
    const row = await this.claim(runId, ["awaiting_approval"]);
    if (!row) return false;
    const steps = JSON.parse(row.steps) as StepState[];
    const st = steps[row.current_step_index];
    if (st) Object.assign(st, { status: "failed", finished_at: nowIso(), error: { code, message: reason } });
    await this.finish(row, "failed", { code, message: reason }, { steps });
    return true;
  }

  /** Ends a run no executor is working on (queued, or parked for approval). */
  async finishIdle(runId: string, status: "cancelled"): Promise<boolean> {
    const row = await this.claim(runId, ["queued", "awaiting_approval"]);
    if (!row) return false;
    const steps = JSON.parse(row.steps) as StepState[];
    const st = steps[row.current_step_index];
    if (st && st.status === "awaiting_approval") Object.assign(st, { status: "cancelled", finished_at: nowIso() });
    await this.finish(row, status, { code: "cancelled", message: "cancelled on request" }, { steps });
    return true;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe();
    const held = [...this.active.entries()];
    for (const [, a] of held) a.ac.abort(new Interrupt("shutdown"));
    await Promise.allSettled(held.map(([, a]) => a.done));
    // Hand the runs back at once so the next start (or another worker) resumes them without
    // waiting for the lease to lapse.
    for (const [id] of held) await this.store.releaseLease(id, this.ctx.workerId);
  }

  private event(row: Pick<RunRow, "id" | "project_id">, type: string, payload: Record<string, unknown> = {}): Promise<void> {
    return this.runs.appendEvent(row.id, row.project_id, type, payload);
  }

  private changed(row: Pick<RunRow, "id" | "project_id">): void {
    this.ctx.bus.publish({ type: "run.changed", projectId: row.project_id, runId: row.id });
  }

  private async execute(claimed: RunRow, ac: AbortController): Promise<void> {
    let row = claimed;
    const heartbeat = setInterval(() => {
      this.store.renewLease(row.id, this.ctx.workerId, this.lease()).then(
        (r) => {
          if (!r) ac.abort(new Interrupt("lost"));
          else if (r.cancel_requested === 1) ac.abort(new Interrupt("cancel"));
        },
        (e) => console.error(`run ${row.id}: lease renewal failed`, e),
      );
    }, HEARTBEAT_MS);
    let deadlineTimer: ReturnType<typeof setTimeout> | undefined;
    const steps = JSON.parse(row.steps) as (StepState & { parked_at?: string })[];
    let current = row.current_step_index;
    const secretValues = new Map<string, string>();
    try {
      if (row.finishing_status) {
        // The previous holder died while cleaning up: finish what it started.
        return await this.finish(
          row,
          row.finishing_status as RunRow["status"],
          row.error_code ? { code: row.error_code, message: row.error_message ?? "" } : null,
        );
      }
      if (row.cancel_requested === 1) return await this.finish(row, "cancelled", { code: "cancelled", message: "cancelled on request" });
      const version = row.version_id ? await this.scenarios.versionById(row.version_id) : null;
      const project = await this.auth.project(row.project_id);
      if (!version || !project)
        return await this.finish(row, "failed", { code: "internal", message: "the scenario version or project is gone" });
      const def = JSON.parse(version.definition) as Definition;
      if (row.status === "queued") {
        const now = Date.now();
        const deadline = new Date(now + (def.timeout_seconds ?? DEFAULT_RUN_TIMEOUT) * 1000).toISOString();
        await this.store.markStarted(row.id, new Date(now).toISOString(), deadline, nowIso());
        await this.event(row, "run.started", { step_count: row.step_count });
      } else {
        const approved = row.approved_step_index === current && steps[current]?.status === "awaiting_approval";
        await this.event(row, "run.resumed", { step_index: current, reason: approved ? "approved" : "recovered" });
      }
      row = (await this.runs.byId(row.id))!;
      this.changed(row);
      const left = Date.parse(row.deadline_at!) - Date.now();
      if (left <= 0) throw new Interrupt("deadline");
      deadlineTimer = setTimeout(() => ac.abort(new Interrupt("deadline")), left);

      const required = JSON.parse(version.required_permissions) as string[];
      let agentPermissions: string[] = [];
      // The agent is looked at again before every step: revoking or narrowing it stops its runs.
      const checkAgent = async () => {
        const agent = await this.ctx.storage.agents.byId(row.agent_id);
        if (!agent || agent.revoked_at) throw new StepError("agent_revoked", "the run's agent was revoked");
        agentPermissions = JSON.parse(agent.permissions) as string[];
        const missing = required.filter((p) => !hasScope(agentPermissions, p));
        if (missing.length) throw new StepError("agent_permission_denied", `the run's agent no longer holds ${missing.join(", ")}`);
      };
      const outputs = JSON.parse(row.outputs) as Record<string, unknown>;
      const inputs = JSON.parse(row.inputs) as Record<string, unknown>;
      // Every secret the definition uses is known up front, so outputs that echo one are redacted
      // even when the step that echoes it does not reference it (and after a restart).
      for (const [k, v] of await this.secrets.resolve(row.project_id, secretNames(def.steps))) secretValues.set(k, v);

      const progress = (index = current) => ({
        steps: JSON.stringify(steps),
        outputs: JSON.stringify(outputs),
        current_step_index: index,
        at: nowIso(),
      });
      const persist = (index = current) => this.store.saveProgress(row.id, progress(index));

      for (; current < def.steps.length; current++) {
        const st = def.steps[current]!;
        const state = steps[current]!;
        // Steps that never wait (assert, extract) do not look at the signal themselves.
        if (ac.signal.aborted) throw ac.signal.reason;
        await checkAgent();
        const scope: Scope = { inputs, steps: outputs, run: { id: row.id }, secrets: secretValues };
        // Resolved again per step: a rotation during the run applies from the next step on.
        for (const [k, v] of await this.secrets.resolve(row.project_id, secretNames(st))) secretValues.set(k, v);

        if (st.approval === true && row.approved_step_index !== current) {
          Object.assign(state, { status: "awaiting_approval", parked_at: nowIso() });
          const snapshot = this.snapshot(st, scope);
          // Parking and its pending approval commit together: a crash cannot leave a parked run
          // that nothing will ever approve or expire.
          const parkedAt = current;
          const afterCommit = await this.ctx.storage.transaction(async (tx) => {
            await tx.runs.saveProgress(row.id, progress());
            await tx.runs.park(row.id, this.ctx.workerId, nowIso());
            await appendRunEvent(tx, row.id, row.project_id, "step.awaiting_approval", {
              step_index: parkedAt,
              step_id: state.id,
              type: st.type,
              snapshot,
            });
            return this.hooks.park(tx, { run: (await tx.runs.byId(row.id))!, stepIndex: parkedAt, snapshot });
          });
          if (afterCommit) afterCommit();
          this.changed(row);
          return;
        }
        if (state.status === "running" && !isRepeatable(st)) {
          throw new StepError(
            "interrupted",
            `the server stopped during this ${st.type} ${String(st.method ?? "")} step; it is not repeated because its effect is unknown`,
          );
        }
        const resumed = state.status === "running";
        Object.assign(state, { status: "running", started_at: state.started_at ?? nowIso(), error: null });
        await persist();
        await this.event(row, "step.started", {
          step_index: current,
          step_id: state.id,
          type: st.type,
          ...(resumed ? { resumed: true } : {}),
        });

        let params: Record<string, any>;
        try {
          params = this.resolveParams(st, scope);
        } catch (e) {
          if (e instanceof UnresolvedReference) throw new StepError("unresolved_reference", e.message);
          throw e;
        }
        const output = scrub(
          await STEP_HANDLERS[st.type](
            {
              ctx: this.ctx,
              deps: this.deps,
              project: project as ProjectRef,
              runId: row.id,
              agentPermissions,
              startedAt: Date.parse(state.started_at!),
              signal: ac.signal,
              ledger: (type, id) => this.ledger.record(row, type, id),
              ledgerRemoved: (type, id) => this.ledger.markRemoved(row.id, type, id),
            },
            params,
          ),
          secretValues.values(),
        ) as Record<string, unknown>;
        if (st.id) outputs[st.id] = output;
        Object.assign(state, { status: "succeeded", finished_at: nowIso(), output });
        await persist(current + 1);
        await this.event(row, "step.succeeded", { step_index: current, step_id: state.id, type: st.type, output: summarize(output) });
      }
      await this.finish(row, "succeeded", null, { steps });
    } catch (e) {
      const state = steps[current];
      const now = nowIso();
      if (e instanceof Interrupt) {
        if (e.kind === "shutdown" || e.kind === "lost") return;
        if (state?.status === "running") {
          Object.assign(
            state,
            e.kind === "cancel"
              ? { status: "cancelled", finished_at: now }
              : { status: "failed", finished_at: now, error: { code: "run_timeout", message: "the run's timeout passed" } },
          );
        }
        if (e.kind === "cancel")
          return await this.finish(row, "cancelled", { code: "cancelled", message: "cancelled on request" }, { steps });
        return await this.finish(
          row,
          "timed_out",
          { code: "run_timeout", message: "the run did not finish within its timeout_seconds" },
          { steps },
        );
      }
      const err =
        e instanceof StepError ? e : new StepError("internal", `internal error in step ${current}: ${(e as Error)?.message ?? e}`);
      if (!(e instanceof StepError))
        console.error(`run ${row.id} step ${current}:`, scrub(String((e as Error)?.stack ?? e), secretValues.values()));
      const message = String(scrub(err.message, secretValues.values()));
      if (state) Object.assign(state, { status: "failed", finished_at: now, error: { code: err.code, message } });
      const failedAssertions = err.failedAssertions.map((f) =>
        scrub({ step_index: current, step_id: state?.id ?? null, ...f }, secretValues.values()),
      ) as FailedAssertion[];
      await this.event(row, "step.failed", { step_index: current, step_id: state?.id ?? null, code: err.code, message });
      for (const f of failedAssertions) await this.event(row, "assertion.failed", { ...f });
      await this.finish(row, "failed", { code: err.code, message }, { steps, failedAssertions });
    } finally {
      clearInterval(heartbeat);
      clearTimeout(deadlineTimer);
    }
  }

  private resolveParams(st: Step, scope: Scope): Record<string, any> {
    const { id: _id, type, name: _name, approval: _approval, ...params } = st;
    if (type !== "assert") return interpolate(params, scope) as Record<string, any>;
    // `exists: false` must be able to look at a value that does not resolve.
    const { value, ...rest } = params;
    let v: unknown;
    try {
      v = interpolate(value, scope);
    } catch (e) {
      if (!(e instanceof UnresolvedReference)) throw e;
    }
    return { ...(interpolate(rest, scope) as object), value: v };
  }

  private snapshot(st: Step, scope: Scope): ParkInfo["snapshot"] {
    const { id: _id, type, name: _name, approval: _approval, ...params } = st;
    let inputs: any;
    try {
      inputs = interpolate(params, { ...scope, redact: true });
    } catch {
      inputs = params;
    }
    const target =
      type === "http.request"
        ? { target_resource_type: "http_origin", target_resource_id: String(inputs.url ?? "") }
        : type === "inbox.delete" || type === "message.wait"
          ? { target_resource_type: "inbox", target_resource_id: String(inputs.inbox ?? "") }
          : type === "message.extract" || type === "message.check"
            ? { target_resource_type: "message", target_resource_id: String(inputs.message ?? "") }
            : { target_resource_type: type.split(".")[0]!, target_resource_id: "" };
    return { action: type, ...target, inputs };
  }

  /**
   * Ends a run: records the intended status first (so a worker dying here is finished by the
   * next one), removes what the ledger holds, then makes the status terminal.
   */
  private async finish(
    row: RunRow,
    status: RunRow["status"],
    error: RunError | null,
    extra: { steps?: StepState[]; failedAssertions?: FailedAssertion[] } = {},
  ): Promise<void> {
    const cur = (await this.runs.byId(row.id))!;
    if (TERMINAL.includes(cur.status)) return;
    const steps = (extra.steps ?? JSON.parse(cur.steps)) as StepState[];
    for (const s of steps) if (s.status === "pending" || s.status === "awaiting_approval") s.status = "skipped";
    const failed = [...JSON.parse(cur.failed_assertions), ...(extra.failedAssertions ?? [])];
    await this.store.markFinishing(row.id, {
      status,
      error_code: error?.code ?? null,
      error_message: error?.message ?? null,
      steps: JSON.stringify(steps),
      failed_assertions: JSON.stringify(failed),
      at: nowIso(),
    });

    const cleanup = await this.ledger.apply(row);
    // The terminal status and its run.finished event in one commit: a client that sees the run
    // finished and then reads its events must find run.finished among them.
    await this.ctx.storage.transaction(async (tx) => {
      await tx.runs.markFinished(row.id, { status, cleanup_status: cleanup.status, cleanup_error: cleanup.error, at: nowIso() });
      await appendRunEvent(tx, row.id, row.project_id, "run.finished", {
        status,
        ...(error ? { error } : {}),
        failed_assertions: failed.length,
      });
    });
    const done = (await this.runs.byId(row.id))!;
    this.changed(done);
    try {
      const r: unknown = this.emit(row.project_id, "run.finished", { run: this.runs.view(done) });
      if (r instanceof Promise) r.catch((e) => console.error("run.finished emit failed", e));
    } catch (e) {
      console.error("run.finished emit failed", e);
    }
  }
}

function secretNames(v: unknown): string[] {
  return references(v)
    .map((r) => r.ref.split("."))
    .filter((p) => p[0] === "secrets" && p.length === 2)
    .map((p) => p[1]!);
}

/** Event payloads carry outputs with long strings shortened. */
function summarize(v: unknown): unknown {
  if (typeof v === "string") return v.length > 500 ? v.slice(0, 500) + "…" : v;
  if (Array.isArray(v)) return v.slice(0, 20).map(summarize);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, summarize(x)]));
  return v;
}
