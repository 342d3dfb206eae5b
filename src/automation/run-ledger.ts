// A run's cleanup ledger: every resource a run creates is written down when it is created, and
// removed when the run ends, whatever its status, through the one removal path of the service.
import type { AppContext } from "../context";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import type { MailRemoval } from "../mail/removal";
import type { RunService } from "./runs";

export type CleanupStatus = "pending" | "not_needed" | "completed" | "failed";

interface LedgerRow {
  id: string;
  resource_type: string;
  resource_id: string;
  removed_at: string | null;
}

export class RunLedger {
  constructor(
    private readonly ctx: AppContext,
    private readonly runs: RunService,
    private readonly removal: MailRemoval,
  ) {}

  private get sql() {
    return this.ctx.db.sqlite;
  }

  record(run: { id: string; project_id: string }, resourceType: string, resourceId: string): void {
    this.sql
      .query("INSERT INTO run_cleanup (id, run_id, project_id, resource_type, resource_id, created_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(newId(), run.id, run.project_id, resourceType, resourceId, nowIso());
    this.runs.appendEvent(run.id, run.project_id, "resource.created", { resource_type: resourceType, resource_id: resourceId });
  }

  /** The scenario removed the resource itself (e.g. an inbox.delete step). */
  markRemoved(runId: string, resourceType: string, resourceId: string): void {
    this.sql
      .query("UPDATE run_cleanup SET removed_at = ? WHERE run_id = ? AND resource_type = ? AND resource_id = ? AND removed_at IS NULL")
      .run(nowIso(), runId, resourceType, resourceId);
  }

  /** Removes whatever is still there; safe to repeat (a worker may die half-way). */
  async apply(run: { id: string; project_id: string }): Promise<{ status: CleanupStatus; error: string | null }> {
    const all = this.sql.query("SELECT id, resource_type, resource_id, removed_at FROM run_cleanup WHERE run_id = ?").all(run.id) as LedgerRow[];
    const open = all.filter((l) => !l.removed_at);
    const errors: string[] = [];
    const event = (type: string, payload: Record<string, unknown>) => this.runs.appendEvent(run.id, run.project_id, type, payload);
    if (open.length) event("cleanup.started", { resources: open.map((l) => ({ resource_type: l.resource_type, resource_id: l.resource_id })) });
    for (const l of open) {
      try {
        // Already gone (expired, deleted by hand) counts as removed.
        if (l.resource_type === "inbox") await this.removal.deleteInbox(run.project_id, l.resource_id);
        this.sql.query("UPDATE run_cleanup SET removed_at = ?, error = NULL WHERE id = ?").run(nowIso(), l.id);
      } catch (e) {
        const msg = `${l.resource_type} ${l.resource_id}: ${(e as Error)?.message ?? e}`;
        errors.push(msg);
        this.sql.query("UPDATE run_cleanup SET error = ? WHERE id = ?").run(msg, l.id);
      }
    }
    if (open.length) event(errors.length ? "cleanup.failed" : "cleanup.completed", { removed: open.length - errors.length, ...(errors.length ? { errors } : {}) });
    if (all.length === 0) return { status: "not_needed", error: null };
    return errors.length ? { status: "failed", error: errors.join("; ") } : { status: "completed", error: null };
  }
}
