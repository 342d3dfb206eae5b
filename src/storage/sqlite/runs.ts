// SQLite implementation of the automation repositories of a run's life (src/storage/automation.ts):
// runs with their leases, run events, the cleanup ledger, approvals. Every method is synchronous
// inside (see connection.ts).
import type {
  ApprovalRepository,
  ApprovalRow,
  LedgerEntry,
  NewRun,
  RunEventRepository,
  RunEventRow,
  RunLedgerRepository,
  RunRepository,
  RunRow,
} from "../automation";
import type { SqliteConnection } from "./connection";

export class SqliteRuns implements RunRepository {
  constructor(private readonly c: SqliteConnection) {}

  async insert(r: NewRun): Promise<void> {
    this.c.run(
      `INSERT INTO runs (id, project_id, agent_id, agent_name, scenario_id, scenario_name, version_id, version, trigger_type, trigger, status,
         inputs, step_count, steps, launched_by_user, started_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      r.id,
      r.project_id,
      r.agent_id,
      r.agent_name,
      r.scenario_id,
      r.scenario_name,
      r.version_id,
      r.version,
      r.trigger_type,
      r.trigger,
      r.status,
      r.inputs,
      r.step_count,
      r.steps,
      r.launched_by_user,
      r.started_at,
      r.created_at,
      r.updated_at,
    );
  }

  async byId(id: string): Promise<RunRow | null> {
    return this.c.get<RunRow>("SELECT * FROM runs WHERE id = ?", id);
  }

  async inProject(projectId: string, id: string): Promise<RunRow | null> {
    return this.c.get<RunRow>("SELECT * FROM runs WHERE id = ? AND project_id = ?", id, projectId);
  }

  async list(projectId: string, statuses: string[], before: string | null, limit: number): Promise<RunRow[]> {
    if (statuses.length === 0) {
      return before
        ? this.c.all<RunRow>("SELECT * FROM runs WHERE project_id = ? AND id < ? ORDER BY id DESC LIMIT ?", projectId, before, limit)
        : this.c.all<RunRow>("SELECT * FROM runs WHERE project_id = ? ORDER BY id DESC LIMIT ?", projectId, limit);
    }
    const set = JSON.stringify(statuses);
    return before
      ? this.c.all<RunRow>(
          "SELECT * FROM runs WHERE project_id = ? AND status IN (SELECT value FROM json_each(?)) AND id < ? ORDER BY id DESC LIMIT ?",
          projectId,
          set,
          before,
          limit,
        )
      : this.c.all<RunRow>(
          "SELECT * FROM runs WHERE project_id = ? AND status IN (SELECT value FROM json_each(?)) ORDER BY id DESC LIMIT ?",
          projectId,
          set,
          limit,
        );
  }

  async requestCancel(id: string, at: string): Promise<boolean> {
    return (
      this.c.get("UPDATE runs SET cancel_requested = 1, updated_at = ? WHERE id = ? AND cancel_requested = 0 RETURNING id", at, id) !== null
    );
  }

  async claimable(now: string, limit: number): Promise<string[]> {
    return this.c
      .all<{ id: string }>(
        "SELECT id FROM runs WHERE status IN ('queued','running') AND version_id IS NOT NULL AND (claimed_until IS NULL OR claimed_until < ?) ORDER BY id LIMIT ?",
        now,
        limit,
      )
      .map((r) => r.id);
  }

  async claim(id: string, statuses: string[], worker: string, until: string, now: string): Promise<RunRow | null> {
    return this.c.get<RunRow>(
      `UPDATE runs SET claimed_by = ?, claimed_until = ?, updated_at = ?
       WHERE id = ? AND version_id IS NOT NULL AND status IN (SELECT value FROM json_each(?)) AND (claimed_until IS NULL OR claimed_until < ?) RETURNING *`,
      worker,
      until,
      now,
      id,
      JSON.stringify(statuses),
      now,
    );
  }

  async renewLease(id: string, worker: string, until: string): Promise<{ cancel_requested: number } | null> {
    return this.c.get<{ cancel_requested: number }>(
      "UPDATE runs SET claimed_until = ? WHERE id = ? AND claimed_by = ? RETURNING cancel_requested",
      until,
      id,
      worker,
    );
  }

  async releaseLease(id: string, worker: string): Promise<void> {
    this.c.run("UPDATE runs SET claimed_by = NULL, claimed_until = NULL WHERE id = ? AND claimed_by = ?", id, worker);
  }

  async markStarted(id: string, startedAt: string, deadlineAt: string, at: string): Promise<void> {
    this.c.run(
      "UPDATE runs SET status = 'running', started_at = ?, deadline_at = ?, updated_at = ? WHERE id = ?",
      startedAt,
      deadlineAt,
      at,
      id,
    );
  }

  async saveProgress(id: string, p: { steps: string; outputs: string; current_step_index: number; at: string }): Promise<void> {
    this.c.run(
      "UPDATE runs SET steps = ?, outputs = ?, current_step_index = ?, updated_at = ? WHERE id = ?",
      p.steps,
      p.outputs,
      p.current_step_index,
      p.at,
      id,
    );
  }

  async park(id: string, worker: string, at: string): Promise<void> {
    this.c.run(
      "UPDATE runs SET status = 'awaiting_approval', claimed_by = NULL, claimed_until = NULL, updated_at = ? WHERE id = ? AND claimed_by = ?",
      at,
      id,
      worker,
    );
  }

  async unpark(id: string, deadlineAt: string | null, at: string): Promise<boolean> {
    return (
      this.c.get(
        "UPDATE runs SET status = 'running', approved_step_index = current_step_index, deadline_at = ?, updated_at = ? WHERE id = ? AND status = 'awaiting_approval' RETURNING id",
        deadlineAt,
        at,
        id,
      ) !== null
    );
  }

  async markFinishing(
    id: string,
    f: { status: string; error_code: string | null; error_message: string | null; steps: string; failed_assertions: string; at: string },
  ): Promise<void> {
    this.c.run(
      "UPDATE runs SET finishing_status = ?, error_code = ?, error_message = ?, steps = ?, failed_assertions = ?, updated_at = ? WHERE id = ?",
      f.status,
      f.error_code,
      f.error_message,
      f.steps,
      f.failed_assertions,
      f.at,
      id,
    );
  }

  async markFinished(id: string, f: { status: string; cleanup_status: string; cleanup_error: string | null; at: string }): Promise<void> {
    this.c.run(
      `UPDATE runs SET status = ?, finished_at = ?, started_at = COALESCE(started_at, ?), cleanup_status = ?, cleanup_error = ?, finishing_status = NULL,
         claimed_by = NULL, claimed_until = NULL, updated_at = ? WHERE id = ?`,
      f.status,
      f.at,
      f.at,
      f.cleanup_status,
      f.cleanup_error,
      f.at,
      id,
    );
  }

  async countSessionCall(id: string, at: string): Promise<void> {
    this.c.run("UPDATE runs SET step_count = step_count + 1, current_step_index = step_count, updated_at = ? WHERE id = ?", at, id);
  }

  async endSession(id: string, f: { status: string; cleanup_status: string; cleanup_error: string | null; at: string }): Promise<void> {
    this.c.run(
      `UPDATE runs SET status = CASE WHEN status IN ('running','queued') THEN ? ELSE status END,
         cleanup_status = ?, cleanup_error = ?, finished_at = COALESCE(finished_at, ?), updated_at = ? WHERE id = ?`,
      f.status,
      f.cleanup_status,
      f.cleanup_error,
      f.at,
      f.at,
      id,
    );
  }
}

export class SqliteRunEvents implements RunEventRepository {
  constructor(private readonly c: SqliteConnection) {}

  async append(e: Omit<RunEventRow, "sequence">): Promise<void> {
    // One statement: the next sequence is taken and used atomically, even across processes.
    this.c.run(
      `INSERT INTO run_events (id, run_id, project_id, sequence, type, payload, occurred_at)
       SELECT ?, ?, ?, COALESCE(MAX(sequence), 0) + 1, ?, ?, ? FROM run_events WHERE run_id = ?`,
      e.id,
      e.run_id,
      e.project_id,
      e.type,
      e.payload,
      e.occurred_at,
      e.run_id,
    );
  }

  async sequenceOf(runId: string, eventId: string): Promise<number | null> {
    return (
      this.c.get<{ sequence: number }>("SELECT sequence FROM run_events WHERE id = ? AND run_id = ?", eventId, runId)?.sequence ?? null
    );
  }

  async after(runId: string, after: number, limit: number): Promise<RunEventRow[]> {
    return this.c.all<RunEventRow>(
      "SELECT * FROM run_events WHERE run_id = ? AND sequence > ? ORDER BY sequence ASC LIMIT ?",
      runId,
      after,
      limit,
    );
  }
}

export class SqliteRunLedger implements RunLedgerRepository {
  constructor(private readonly c: SqliteConnection) {}

  async add(e: Omit<LedgerEntry, "removed_at" | "error">): Promise<void> {
    this.c.run(
      "INSERT INTO run_cleanup (id, run_id, project_id, resource_type, resource_id, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      e.id,
      e.run_id,
      e.project_id,
      e.resource_type,
      e.resource_id,
      e.created_at,
    );
  }

  async ofRun(runId: string): Promise<LedgerEntry[]> {
    return this.c.all<LedgerEntry>("SELECT * FROM run_cleanup WHERE run_id = ?", runId);
  }

  async markRemoved(id: string, at: string): Promise<void> {
    this.c.run("UPDATE run_cleanup SET removed_at = ?, error = NULL WHERE id = ?", at, id);
  }

  async markResourceRemoved(runId: string, resourceType: string, resourceId: string, at: string): Promise<void> {
    this.c.run(
      "UPDATE run_cleanup SET removed_at = ? WHERE run_id = ? AND resource_type = ? AND resource_id = ? AND removed_at IS NULL",
      at,
      runId,
      resourceType,
      resourceId,
    );
  }

  async markFailed(id: string, error: string): Promise<void> {
    this.c.run("UPDATE run_cleanup SET error = ? WHERE id = ?", error, id);
  }
}

export class SqliteApprovals implements ApprovalRepository {
  constructor(private readonly c: SqliteConnection) {}

  async pendingFor(runId: string, stepIndex: number): Promise<ApprovalRow | null> {
    return this.c.get<ApprovalRow>("SELECT * FROM approvals WHERE run_id = ? AND step_index = ? AND status = 'pending'", runId, stepIndex);
  }

  async insert(r: ApprovalRow): Promise<void> {
    this.c.run(
      `INSERT INTO approvals (id, project_id, run_id, step_index, status, action, target_resource_type, target_resource_id,
         binding_snapshot, expires_at, created_at) VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?)`,
      r.id,
      r.project_id,
      r.run_id,
      r.step_index,
      r.action,
      r.target_resource_type,
      r.target_resource_id,
      r.binding_snapshot,
      r.expires_at,
      r.created_at,
    );
  }

  async inProject(projectId: string, id: string): Promise<ApprovalRow | null> {
    return this.c.get<ApprovalRow>("SELECT * FROM approvals WHERE id = ? AND project_id = ?", id, projectId);
  }

  async list(projectId: string, status: string | null, before: string | null, limit: number): Promise<ApprovalRow[]> {
    if (status) {
      return before
        ? this.c.all<ApprovalRow>(
            "SELECT * FROM approvals WHERE project_id = ? AND status = ? AND id < ? ORDER BY id DESC LIMIT ?",
            projectId,
            status,
            before,
            limit,
          )
        : this.c.all<ApprovalRow>(
            "SELECT * FROM approvals WHERE project_id = ? AND status = ? ORDER BY id DESC LIMIT ?",
            projectId,
            status,
            limit,
          );
    }
    return before
      ? this.c.all<ApprovalRow>(
          "SELECT * FROM approvals WHERE project_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
          projectId,
          before,
          limit,
        )
      : this.c.all<ApprovalRow>("SELECT * FROM approvals WHERE project_id = ? ORDER BY id DESC LIMIT ?", projectId, limit);
  }

  async decide(
    id: string,
    d: { status: "approved" | "rejected"; decided_by: string | null; decision_reason: string | null; self_approved: number; at: string },
  ): Promise<boolean> {
    return (
      this.c.run(
        `UPDATE approvals SET status = ?, decided_at = ?, decided_by = ?, decision_reason = ?, self_approved = ?
         WHERE id = ? AND status = 'pending' AND expires_at > ?`,
        d.status,
        d.at,
        d.decided_by,
        d.decision_reason,
        d.self_approved,
        id,
        d.at,
      ).changes > 0
    );
  }

  async closeForRun(runId: string, reason: string): Promise<number> {
    return this.c.run("UPDATE approvals SET status = 'expired', decision_reason = ? WHERE run_id = ? AND status = 'pending'", reason, runId)
      .changes;
  }

  async expireDue(now: string): Promise<string[]> {
    return this.c
      .all<{ run_id: string }>("UPDATE approvals SET status = 'expired' WHERE status = 'pending' AND expires_at <= ? RETURNING run_id", now)
      .map((r) => r.run_id);
  }

  async closeOrphaned(): Promise<void> {
    this.c.run(
      `UPDATE approvals SET status = 'expired', decision_reason = 'run ended'
       WHERE status = 'pending' AND EXISTS (SELECT 1 FROM runs r WHERE r.id = approvals.run_id
         AND r.status IN ('succeeded','failed','cancelled','timed_out'))`,
    );
  }
}
