// Approvals: a person's decision on a run step marked `approval: true`. The run executor parks
// the run and calls park(); approve resumes the run at the same step, reject fails it, expiry
// (INBOXD_APPROVAL_TTL) fails it too. Only a team owner or admin on a device session decides.
import type { AppContext } from "../runtime/context";
import type { Principal, ProjectRef } from "../tenancy/auth";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { DomainError, notFound, validation } from "../lib/errors";
import type { ApprovalRow as Row, ApprovalStatus, AutomationRepositories } from "../storage/automation";

export const APPROVAL_STATUSES: readonly ApprovalStatus[] = ["pending", "approved", "rejected", "expired"];
export type { ApprovalStatus };

/** What the run executor offers the approval service. */
export interface ParkedRuns {
  resume(runId: string): void | Promise<void>;
  failParked(runId: string, reason: string, code: "approval_rejected" | "approval_expired"): void | Promise<void>;
}

/** Emits approval.pending to webhooks and the event stream, when the events service is present. */
export type ApprovalEmitter = (projectId: string, type: string, payload: Record<string, unknown>) => void;

export interface ParkRequest {
  runId: string;
  projectId: string;
  stepIndex: number;
  action: string;
  targetResourceType: string;
  targetResourceId: string;
  /** Exactly what will be done: resolved inputs with secrets already redacted. */
  snapshot: Record<string, unknown>;
}

export class ApprovalService {
  constructor(
    private readonly ctx: AppContext,
    private readonly runs: ParkedRuns,
    private readonly emit: ApprovalEmitter | null,
  ) {}

  private get store() {
    return this.ctx.storage.approvals;
  }

  /**
   * Creates the pending approval for a parked step (idempotent per run and step), with the
   * repositories of the transaction that parks the run. `created` says whether it is new; a new
   * one is announced (announce) once that transaction has committed.
   */
  async park(
    repos: Pick<AutomationRepositories, "approvals">,
    req: ParkRequest,
  ): Promise<{ approval: ReturnType<typeof view>; created: boolean }> {
    const existing = await repos.approvals.pendingFor(req.runId, req.stepIndex);
    if (existing) return { approval: view(existing), created: false };
    const row: Row = {
      id: newId(),
      project_id: req.projectId,
      run_id: req.runId,
      step_index: req.stepIndex,
      status: "pending",
      action: req.action,
      target_resource_type: req.targetResourceType,
      target_resource_id: req.targetResourceId,
      binding_snapshot: JSON.stringify(req.snapshot),
      expires_at: new Date(Date.now() + this.ctx.config.approvalTtlSeconds * 1000).toISOString(),
      decided_at: null,
      decided_by: null,
      decision_reason: null,
      self_approved: 0,
      created_at: nowIso(),
    };
    await repos.approvals.insert(row);
    return { approval: view(row), created: true };
  }

  /** approval.pending to webhooks and the event stream. */
  announce(projectId: string, approval: ReturnType<typeof view>): void {
    try {
      // The emitter may be async: its failure is logged, not left unhandled.
      const r: unknown = this.emit?.(projectId, "approval.pending", { approval });
      if (r instanceof Promise) r.catch((e) => console.error("approval.pending emit failed", e));
    } catch (e) {
      console.error("approval.pending emit failed", e);
    }
  }

  async list(p: Principal, project: ProjectRef, status: string | undefined, cursor: string | undefined, limit: number) {
    requireDecider(p);
    if (status !== undefined && !APPROVAL_STATUSES.includes(status as ApprovalStatus)) {
      throw validation(`status must be one of ${APPROVAL_STATUSES.join(", ")}`, { field: "status", allowed: APPROVAL_STATUSES });
    }
    await this.expireDue(); // a listed "pending" row is never already past its expiry
    return (await this.store.list(project.id, status || null, cursor ?? null, limit + 1)).map(view);
  }

  async approve(p: Principal, project: ProjectRef, id: string) {
    const row = await this.decidable(p, project, id);
    const selfApproved = (await this.launchedBy(row.run_id)) === p.userId;
    const changed = await this.store.decide(id, {
      status: "approved",
      decided_by: p.userId,
      decision_reason: null,
      self_approved: selfApproved ? 1 : 0,
      at: nowIso(),
    });
    if (!changed) throw await this.lostRace(project.id, id);
    await this.runs.resume(row.run_id);
    return view(await this.get(project.id, id));
  }

  async reject(p: Principal, project: ProjectRef, id: string, reason: string | null) {
    // Who may decide is answered before what was sent: an API key learns nothing but 403.
    requireDecider(p);
    if (reason !== null && [...reason].length > 500) {
      throw validation("reason is at most 500 characters", { field: "reason", max: 500, length: [...reason].length });
    }
    const row = await this.decidable(p, project, id);
    const selfApproved = (await this.launchedBy(row.run_id)) === p.userId;
    const changed = await this.store.decide(id, {
      status: "rejected",
      decided_by: p.userId,
      decision_reason: reason,
      self_approved: selfApproved ? 1 : 0,
      at: nowIso(),
    });
    if (!changed) throw await this.lostRace(project.id, id);
    await this.runs.failParked(row.run_id, reason ?? "rejected by an approver", "approval_rejected");
    return view(await this.get(project.id, id));
  }

  /**
   * A parked run that ends without a decision (cancelled) closes its pending approval as
   * `expired` with `reason` as decision_reason, so nobody can approve a step of a finished run.
   */
  closeForRun(runId: string, reason: string): Promise<number> {
    return this.store.closeForRun(runId, reason);
  }

  /** Moves pending approvals past expires_at to expired and fails their runs. Safe with several workers. */
  async expireDue(): Promise<number> {
    const due = await this.store.expireDue(nowIso());
    for (const runId of due) {
      void Promise.resolve()
        .then(() => this.runs.failParked(runId, "the approval expired before anyone decided", "approval_expired"))
        .catch((e) => console.error(`run ${runId}: failing the parked run failed`, e));
    }
    // Safety net for a process that died between ending a parked run and closing its approval
    // (closeForRun): a pending approval always belongs to a run that is still parked.
    await this.store.closeOrphaned();
    return due.length;
  }

  private async decidable(p: Principal, project: ProjectRef, id: string): Promise<Row> {
    requireDecider(p);
    const row = await this.get(project.id, id);
    if (row.status === "expired" || (row.status === "pending" && Date.parse(row.expires_at) <= Date.now())) {
      if (row.status === "pending") await this.expireDue();
      throw expiredError(row);
    }
    if (row.status !== "pending") throw stateError(row.status);
    return row;
  }

  /** The guarded decision changed nothing: someone else decided first, or it expired meanwhile. */
  private async lostRace(projectId: string, id: string): Promise<DomainError> {
    const row = await this.get(projectId, id);
    if (row.status === "pending" || row.status === "expired") {
      await this.expireDue();
      return expiredError(row);
    }
    return stateError(row.status);
  }

  private async launchedBy(runId: string): Promise<string | null> {
    return (await this.ctx.storage.runs.byId(runId))?.launched_by_user ?? null;
  }

  async get(projectId: string, id: string): Promise<Row> {
    const row = await this.store.inProject(projectId, id);
    if (!row) throw notFound("approval");
    return row;
  }
}

function expiredError(row: Row): DomainError {
  const why = row.decision_reason ? ` (${row.decision_reason})` : "";
  return new DomainError("gone", "approval_expired", `the approval expired before it was decided${why}`, {
    expires_at: row.expires_at,
    ...(row.decision_reason ? { reason: row.decision_reason } : {}),
  });
}

function stateError(status: string): DomainError {
  return new DomainError("conflict", "invalid_state", `the approval is already ${status}`, { status });
}

function requireDecider(p: Principal): void {
  if (p.kind !== "device") {
    throw new DomainError("forbidden", "principal_not_permitted", "approvals are decided by people: use a device session, not an API key");
  }
  if (p.role !== "owner" && p.role !== "admin") {
    throw new DomainError("forbidden", "principal_not_permitted", "only a team owner or admin may list or decide approvals", {
      role: p.role,
    });
  }
}

export function view(r: Row) {
  return {
    ulid: r.id,
    status: r.status,
    action: r.action,
    run_ulid: r.run_id,
    step_index: r.step_index,
    target_resource_type: r.target_resource_type,
    target_resource_id: r.target_resource_id,
    binding_snapshot: JSON.parse(r.binding_snapshot) as Record<string, unknown>,
    expires_at: r.expires_at,
    decided_at: r.decided_at,
    decision_reason: r.decision_reason,
    self_approved: r.self_approved === 1,
    created_at: r.created_at,
  };
}
