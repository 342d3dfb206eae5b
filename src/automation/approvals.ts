// Approvals: a person's decision on a run step marked `approval: true`. The run executor parks
// the run and calls park(); approve resumes the run at the same step, reject fails it, expiry
// (INBOXD_APPROVAL_TTL) fails it too. Only a team owner or admin on a device session decides.
import type { AppContext } from "../context";
import type { Principal, ProjectRef } from "../tenancy/auth";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { DomainError, notFound, validation } from "../lib/errors";

export const APPROVAL_STATUSES = ["pending", "approved", "rejected", "expired"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** What the run executor offers the approval service. */
export interface ParkedRuns {
  resume(runId: string): void | Promise<void>;
  failParked(runId: string, reason: string, code: "approval_rejected" | "approval_expired"): void | Promise<void>;
}

/** Emits approval.pending to webhooks and the event stream, when the events service is present. */
export type ApprovalEmitter = (projectId: string, type: string, payload: Record<string, unknown>) => void;

interface Row {
  id: string;
  project_id: string;
  run_id: string;
  step_index: number;
  status: ApprovalStatus;
  action: string;
  target_resource_type: string;
  target_resource_id: string;
  binding_snapshot: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  decision_reason: string | null;
  self_approved: number;
  created_at: string;
}

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
  runs: ParkedRuns | null = null;
  emit: ApprovalEmitter | null = null;

  constructor(private readonly ctx: AppContext) {}

  private get sql() {
    return this.ctx.db.sqlite;
  }

  /** Creates the pending approval for a parked step (idempotent per run and step). */
  park(req: ParkRequest) {
    const existing = this.sql
      .query("SELECT * FROM approvals WHERE run_id = ? AND step_index = ? AND status = 'pending'")
      .get(req.runId, req.stepIndex) as Row | null;
    if (existing) return view(existing);
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
    this.sql
      .query(
        `INSERT INTO approvals (id, project_id, run_id, step_index, status, action, target_resource_type, target_resource_id,
           binding_snapshot, expires_at, created_at) VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?)`,
      )
      .run(row.id, row.project_id, row.run_id, row.step_index, row.action, row.target_resource_type, row.target_resource_id, row.binding_snapshot, row.expires_at, row.created_at);
    const v = view(row);
    this.emit?.(req.projectId, "approval.pending", { approval: v });
    return v;
  }

  list(p: Principal, project: ProjectRef, status: string | undefined, cursor: string | undefined, limit: number) {
    requireDecider(p);
    if (status !== undefined && !APPROVAL_STATUSES.includes(status as ApprovalStatus)) {
      throw validation(`status must be one of ${APPROVAL_STATUSES.join(", ")}`, { field: "status", allowed: APPROVAL_STATUSES });
    }
    this.expireDue(); // a listed "pending" row is never already past its expiry
    const args: (string | number)[] = [project.id];
    let where = "project_id = ?";
    if (status) {
      where += " AND status = ?";
      args.push(status);
    }
    if (cursor) {
      where += " AND id < ?";
      args.push(cursor);
    }
    args.push(limit + 1);
    return (this.sql.query(`SELECT * FROM approvals WHERE ${where} ORDER BY id DESC LIMIT ?`).all(...args) as Row[]).map(view);
  }

  async approve(p: Principal, project: ProjectRef, id: string) {
    const row = this.decidable(p, project, id);
    const selfApproved = this.launchedBy(row.run_id) === p.userId;
    const now = nowIso();
    const changed = this.sql
      .query("UPDATE approvals SET status = 'approved', decided_at = ?, decided_by = ?, self_approved = ? WHERE id = ? AND status = 'pending' AND expires_at > ?")
      .run(now, p.userId, selfApproved ? 1 : 0, id, now).changes;
    if (changed === 0) throw this.lostRace(project.id, id);
    await this.runs?.resume(row.run_id);
    return view(this.get(project.id, id));
  }

  async reject(p: Principal, project: ProjectRef, id: string, reason: string | null) {
    // Who may decide is answered before what was sent: an API key learns nothing but 403.
    requireDecider(p);
    if (reason !== null && [...reason].length > 500) {
      throw validation("reason is at most 500 characters", { field: "reason", max: 500, length: [...reason].length });
    }
    const row = this.decidable(p, project, id);
    const now = nowIso();
    const changed = this.sql
      .query(
        `UPDATE approvals SET status = 'rejected', decided_at = ?, decided_by = ?, decision_reason = ?, self_approved = ?
         WHERE id = ? AND status = 'pending' AND expires_at > ?`,
      )
      .run(now, p.userId, reason, this.launchedBy(row.run_id) === p.userId ? 1 : 0, id, now).changes;
    if (changed === 0) throw this.lostRace(project.id, id);
    await this.runs?.failParked(row.run_id, reason ?? "rejected by an approver", "approval_rejected");
    return view(this.get(project.id, id));
  }

  /**
   * A parked run that ends without a decision (cancelled) closes its pending approval as
   * `expired` with `reason` as decision_reason, so nobody can approve a step of a finished run.
   */
  closeForRun(runId: string, reason: string): number {
    return this.sql
      .query("UPDATE approvals SET status = 'expired', decision_reason = ? WHERE run_id = ? AND status = 'pending'")
      .run(reason, runId).changes;
  }

  /** Moves pending approvals past expires_at to expired and fails their runs. Safe with several workers. */
  expireDue(): number {
    const due = this.sql
      .query("UPDATE approvals SET status = 'expired' WHERE status = 'pending' AND expires_at <= ? RETURNING run_id")
      .all(nowIso()) as { run_id: string }[];
    for (const d of due) void this.runs?.failParked(d.run_id, "the approval expired before anyone decided", "approval_expired");
    // Safety net for a process that died between ending a parked run and closing its approval
    // (closeForRun): a pending approval always belongs to a run that is still parked.
    this.sql
      .query(
        `UPDATE approvals SET status = 'expired', decision_reason = 'run ended'
         WHERE status = 'pending' AND EXISTS (SELECT 1 FROM runs r WHERE r.id = approvals.run_id
           AND r.status IN ('succeeded','failed','cancelled','timed_out'))`,
      )
      .run();
    return due.length;
  }

  private decidable(p: Principal, project: ProjectRef, id: string): Row {
    requireDecider(p);
    const row = this.get(project.id, id);
    if (row.status === "expired" || (row.status === "pending" && Date.parse(row.expires_at) <= Date.now())) {
      if (row.status === "pending") this.expireDue();
      throw expiredError(row);
    }
    if (row.status !== "pending") throw stateError(row.status);
    return row;
  }

  /** The guarded UPDATE changed nothing: someone else decided first, or it expired meanwhile. */
  private lostRace(projectId: string, id: string): DomainError {
    const row = this.get(projectId, id);
    if (row.status === "pending" || row.status === "expired") {
      this.expireDue();
      return expiredError(row);
    }
    return stateError(row.status);
  }

  private launchedBy(runId: string): string | null {
    return (this.sql.query("SELECT launched_by_user FROM runs WHERE id = ?").get(runId) as { launched_by_user: string | null } | null)?.launched_by_user ?? null;
  }

  get(projectId: string, id: string): Row {
    const row = this.sql.query("SELECT * FROM approvals WHERE id = ? AND project_id = ?").get(id, projectId) as Row | null;
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
    throw new DomainError("forbidden", "principal_not_permitted", "only a team owner or admin may list or decide approvals", { role: p.role });
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
