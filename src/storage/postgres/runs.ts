// PostgreSQL implementation of the automation repositories of a run's life (runs with leases, run
// events, cleanup ledger, approvals; src/storage/automation.ts), the SQLite ones (../sqlite/runs.ts)
// statement for statement; the conformance test runs both.
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
import type { PgClient } from "./connection";

export class PgRuns implements RunRepository {
  constructor(private readonly c: PgClient) {}

  async insert(r: NewRun): Promise<void> {
    await this.c.run(
      `INSERT INTO runs (id, project_id, agent_id, agent_name, scenario_id, scenario_name, version_id, version, trigger_type, trigger, status,
         inputs, step_count, steps, launched_by_user, started_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
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
    return await this.c.row<RunRow>("SELECT * FROM runs WHERE id = $1", id);
  }

  async inProject(projectId: string, id: string): Promise<RunRow | null> {
    return await this.c.row<RunRow>("SELECT * FROM runs WHERE id = $1 AND project_id = $2", id, projectId);
  }

  async list(projectId: string, statuses: string[], before: string | null, limit: number): Promise<RunRow[]> {
    if (statuses.length === 0) {
      return before
        ? await this.c.rows<RunRow>(
            "SELECT * FROM runs WHERE project_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3",
            projectId,
            before,
            limit,
          )
        : await this.c.rows<RunRow>("SELECT * FROM runs WHERE project_id = $1 ORDER BY id DESC LIMIT $2", projectId, limit);
    }
    const set = statuses;
    return before
      ? await this.c.rows<RunRow>(
          "SELECT * FROM runs WHERE project_id = $1 AND status = ANY($2::text[]) AND id < $3 ORDER BY id DESC LIMIT $4",
          projectId,
          set,
          before,
          limit,
        )
      : await this.c.rows<RunRow>(
          "SELECT * FROM runs WHERE project_id = $1 AND status = ANY($2::text[]) ORDER BY id DESC LIMIT $3",
          projectId,
          set,
          limit,
        );
  }

  async requestCancel(id: string, at: string): Promise<boolean> {
    return (
      (await this.c.row(
        "UPDATE runs SET cancel_requested = 1, updated_at = $1 WHERE id = $2 AND cancel_requested = 0 RETURNING id",
        at,
        id,
      )) !== null
    );
  }

  async claimable(now: string, limit: number): Promise<string[]> {
    // Candidates only: claim() below is the conditional UPDATE by id that decides, and PostgreSQL
    // re-checks its WHERE on the row a concurrent claimer just changed, so one node wins.
    const rows = await this.c.rows<{ id: string }>(
      "SELECT id FROM runs WHERE status IN ('queued','running') AND version_id IS NOT NULL AND (claimed_until IS NULL OR claimed_until < $1) ORDER BY id LIMIT $2",
      now,
      limit,
    );
    return rows.map((r) => r.id);
  }

  async claim(id: string, statuses: string[], worker: string, until: string, now: string): Promise<RunRow | null> {
    return await this.c.row<RunRow>(
      `UPDATE runs SET claimed_by = $1, claimed_until = $2, updated_at = $3
       WHERE id = $4 AND version_id IS NOT NULL AND status = ANY($5::text[]) AND (claimed_until IS NULL OR claimed_until < $6) RETURNING *`,
      worker,
      until,
      now,
      id,
      statuses,
      now,
    );
  }

  async renewLease(id: string, worker: string, until: string): Promise<{ cancel_requested: number } | null> {
    return await this.c.row<{ cancel_requested: number }>(
      "UPDATE runs SET claimed_until = $1 WHERE id = $2 AND claimed_by = $3 RETURNING cancel_requested",
      until,
      id,
      worker,
    );
  }

  async releaseLease(id: string, worker: string): Promise<void> {
    await this.c.run("UPDATE runs SET claimed_by = NULL, claimed_until = NULL WHERE id = $1 AND claimed_by = $2", id, worker);
  }

  async markStarted(id: string, startedAt: string, deadlineAt: string, at: string): Promise<void> {
    await this.c.run(
      "UPDATE runs SET status = 'running', started_at = $1, deadline_at = $2, updated_at = $3 WHERE id = $4",
      startedAt,
      deadlineAt,
      at,
      id,
    );
  }

  async saveProgress(id: string, p: { steps: string; outputs: string; current_step_index: number; at: string }): Promise<void> {
    await this.c.run(
      "UPDATE runs SET steps = $1, outputs = $2, current_step_index = $3, updated_at = $4 WHERE id = $5",
      p.steps,
      p.outputs,
      p.current_step_index,
      p.at,
      id,
    );
  }

  async park(id: string, worker: string, at: string): Promise<void> {
    await this.c.run(
      "UPDATE runs SET status = 'awaiting_approval', claimed_by = NULL, claimed_until = NULL, updated_at = $1 WHERE id = $2 AND claimed_by = $3",
      at,
      id,
      worker,
    );
  }

  async unpark(id: string, deadlineAt: string | null, at: string): Promise<boolean> {
    return (
      (await this.c.row(
        "UPDATE runs SET status = 'running', approved_step_index = current_step_index, deadline_at = $1, updated_at = $2 WHERE id = $3 AND status = 'awaiting_approval' RETURNING id",
        deadlineAt,
        at,
        id,
      )) !== null
    );
  }

  async markFinishing(
    id: string,
    f: { status: string; error_code: string | null; error_message: string | null; steps: string; failed_assertions: string; at: string },
  ): Promise<void> {
    await this.c.run(
      "UPDATE runs SET finishing_status = $1, error_code = $2, error_message = $3, steps = $4, failed_assertions = $5, updated_at = $6 WHERE id = $7",
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
    await this.c.run(
      `UPDATE runs SET status = $1, finished_at = $2, started_at = COALESCE(started_at, $3), cleanup_status = $4, cleanup_error = $5, finishing_status = NULL,
         claimed_by = NULL, claimed_until = NULL, updated_at = $6 WHERE id = $7`,
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
    await this.c.run("UPDATE runs SET step_count = step_count + 1, current_step_index = step_count, updated_at = $1 WHERE id = $2", at, id);
  }

  async endSession(id: string, f: { status: string; cleanup_status: string; cleanup_error: string | null; at: string }): Promise<void> {
    await this.c.run(
      `UPDATE runs SET status = CASE WHEN status IN ('running','queued') THEN $1 ELSE status END,
         cleanup_status = $2, cleanup_error = $3, finished_at = COALESCE(finished_at, $4), updated_at = $5 WHERE id = $6`,
      f.status,
      f.cleanup_status,
      f.cleanup_error,
      f.at,
      f.at,
      id,
    );
  }
}

export class PgRunEvents implements RunEventRepository {
  constructor(private readonly c: PgClient) {}

  async append(e: Omit<RunEventRow, "sequence">): Promise<void> {
    // MAX + 1 in one statement, as on SQLite; but under MVCC two nodes can compute the same number.
    // The loser's insert waits for the winner's commit, does nothing on the (run_id, sequence)
    // key, and the next try (a new snapshot) sees the winner's row. A lock taken in the same
    // statement would not do: the MAX would still be read from the statement's older snapshot.
    for (;;) {
      const n = await this.c.run(
        `INSERT INTO run_events (id, run_id, project_id, sequence, type, payload, occurred_at)
         SELECT $1, $2, $3, COALESCE(MAX(sequence), 0) + 1, $4, $5, $6 FROM run_events WHERE run_id = $2
         ON CONFLICT (run_id, sequence) DO NOTHING`,
        e.id,
        e.run_id,
        e.project_id,
        e.type,
        e.payload,
        e.occurred_at,
      );
      if (n > 0) return;
    }
  }

  async sequenceOf(runId: string, eventId: string): Promise<number | null> {
    return (
      (await this.c.row<{ sequence: number }>("SELECT sequence FROM run_events WHERE id = $1 AND run_id = $2", eventId, runId))?.sequence ??
      null
    );
  }

  async after(runId: string, after: number, limit: number): Promise<RunEventRow[]> {
    return await this.c.rows<RunEventRow>(
      "SELECT * FROM run_events WHERE run_id = $1 AND sequence > $2 ORDER BY sequence ASC LIMIT $3",
      runId,
      after,
      limit,
    );
  }
}

export class PgRunLedger implements RunLedgerRepository {
  constructor(private readonly c: PgClient) {}

  async add(e: Omit<LedgerEntry, "removed_at" | "error">): Promise<void> {
    await this.c.run(
      "INSERT INTO run_cleanup (id, run_id, project_id, resource_type, resource_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
      e.id,
      e.run_id,
      e.project_id,
      e.resource_type,
      e.resource_id,
      e.created_at,
    );
  }

  async ofRun(runId: string): Promise<LedgerEntry[]> {
    return await this.c.rows<LedgerEntry>("SELECT * FROM run_cleanup WHERE run_id = $1", runId);
  }

  async markRemoved(id: string, at: string): Promise<void> {
    await this.c.run("UPDATE run_cleanup SET removed_at = $1, error = NULL WHERE id = $2", at, id);
  }

  async markResourceRemoved(runId: string, resourceType: string, resourceId: string, at: string): Promise<void> {
    await this.c.run(
      "UPDATE run_cleanup SET removed_at = $1 WHERE run_id = $2 AND resource_type = $3 AND resource_id = $4 AND removed_at IS NULL",
      at,
      runId,
      resourceType,
      resourceId,
    );
  }

  async markFailed(id: string, error: string): Promise<void> {
    await this.c.run("UPDATE run_cleanup SET error = $1 WHERE id = $2", error, id);
  }
}

export class PgApprovals implements ApprovalRepository {
  constructor(private readonly c: PgClient) {}

  async pendingFor(runId: string, stepIndex: number): Promise<ApprovalRow | null> {
    return await this.c.row<ApprovalRow>(
      "SELECT * FROM approvals WHERE run_id = $1 AND step_index = $2 AND status = 'pending'",
      runId,
      stepIndex,
    );
  }

  async insert(r: ApprovalRow): Promise<void> {
    await this.c.run(
      `INSERT INTO approvals (id, project_id, run_id, step_index, status, action, target_resource_type, target_resource_id,
         binding_snapshot, expires_at, created_at) VALUES ($1, $2, $3, $4, 'pending', $5, $6, $7, $8, $9, $10)`,
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
    return await this.c.row<ApprovalRow>("SELECT * FROM approvals WHERE id = $1 AND project_id = $2", id, projectId);
  }

  async list(projectId: string, status: string | null, before: string | null, limit: number): Promise<ApprovalRow[]> {
    if (status) {
      return before
        ? await this.c.rows<ApprovalRow>(
            "SELECT * FROM approvals WHERE project_id = $1 AND status = $2 AND id < $3 ORDER BY id DESC LIMIT $4",
            projectId,
            status,
            before,
            limit,
          )
        : await this.c.rows<ApprovalRow>(
            "SELECT * FROM approvals WHERE project_id = $1 AND status = $2 ORDER BY id DESC LIMIT $3",
            projectId,
            status,
            limit,
          );
    }
    return before
      ? await this.c.rows<ApprovalRow>(
          "SELECT * FROM approvals WHERE project_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3",
          projectId,
          before,
          limit,
        )
      : await this.c.rows<ApprovalRow>("SELECT * FROM approvals WHERE project_id = $1 ORDER BY id DESC LIMIT $2", projectId, limit);
  }

  async decide(
    id: string,
    d: { status: "approved" | "rejected"; decided_by: string | null; decision_reason: string | null; self_approved: number; at: string },
  ): Promise<boolean> {
    return (
      (await this.c.run(
        `UPDATE approvals SET status = $1, decided_at = $2, decided_by = $3, decision_reason = $4, self_approved = $5
         WHERE id = $6 AND status = 'pending' AND expires_at > $7`,
        d.status,
        d.at,
        d.decided_by,
        d.decision_reason,
        d.self_approved,
        id,
        d.at,
      )) > 0
    );
  }

  async closeForRun(runId: string, reason: string): Promise<number> {
    return await this.c.run(
      "UPDATE approvals SET status = 'expired', decision_reason = $1 WHERE run_id = $2 AND status = 'pending'",
      reason,
      runId,
    );
  }

  async expireDue(now: string): Promise<string[]> {
    const rows = await this.c.rows<{ run_id: string }>(
      "UPDATE approvals SET status = 'expired' WHERE status = 'pending' AND expires_at <= $1 RETURNING run_id",
      now,
    );
    return rows.map((r) => r.run_id);
  }

  async closeOrphaned(): Promise<void> {
    await this.c.run(
      `UPDATE approvals SET status = 'expired', decision_reason = 'run ended'
       WHERE status = 'pending' AND EXISTS (SELECT 1 FROM runs r WHERE r.id = approvals.run_id
         AND r.status IN ('succeeded','failed','cancelled','timed_out'))`,
    );
  }
}
