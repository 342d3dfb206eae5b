// A run's cleanup ledger: every resource a run creates is written down when it is created, and
// removed when the run ends, whatever its status, through the one removal path of the service.
import type { AppContext } from "../runtime/context";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import type { MailRemoval } from "../mail/removal";
import type { RunService } from "./runs";

export type CleanupStatus = "pending" | "not_needed" | "completed" | "failed";

export class RunLedger {
  constructor(
    private readonly ctx: AppContext,
    private readonly runs: RunService,
    private readonly removal: MailRemoval,
  ) {}

  private get store() {
    return this.ctx.storage.runLedger;
  }

  async record(run: { id: string; project_id: string }, resourceType: string, resourceId: string): Promise<void> {
    await this.store.add({
      id: newId(),
      run_id: run.id,
      project_id: run.project_id,
      resource_type: resourceType,
      resource_id: resourceId,
      created_at: nowIso(),
    });
    await this.runs.appendEvent(run.id, run.project_id, "resource.created", { resource_type: resourceType, resource_id: resourceId });
  }

  /** The scenario removed the resource itself (e.g. an inbox.delete step). */
  markRemoved(runId: string, resourceType: string, resourceId: string): Promise<void> {
    return this.store.markResourceRemoved(runId, resourceType, resourceId, nowIso());
  }

  /** Removes whatever is still there; safe to repeat (a worker may die half-way). */
  async apply(run: { id: string; project_id: string }): Promise<{ status: CleanupStatus; error: string | null }> {
    const all = await this.store.ofRun(run.id);
    const open = all.filter((l) => !l.removed_at);
    const errors: string[] = [];
    const event = (type: string, payload: Record<string, unknown>) => this.runs.appendEvent(run.id, run.project_id, type, payload);
    if (open.length)
      await event("cleanup.started", { resources: open.map((l) => ({ resource_type: l.resource_type, resource_id: l.resource_id })) });
    for (const l of open) {
      try {
        // Already gone (expired, deleted by hand) counts as removed.
        if (l.resource_type === "inbox") await this.removal.deleteInbox(run.project_id, l.resource_id);
        await this.store.markRemoved(l.id, nowIso());
      } catch (e) {
        const msg = `${l.resource_type} ${l.resource_id}: ${(e as Error)?.message ?? e}`;
        errors.push(msg);
        await this.store.markFailed(l.id, msg);
      }
    }
    if (open.length)
      await event(errors.length ? "cleanup.failed" : "cleanup.completed", {
        removed: open.length - errors.length,
        ...(errors.length ? { errors } : {}),
      });
    if (all.length === 0) return { status: "not_needed", error: null };
    return errors.length ? { status: "failed", error: errors.join("; ") } : { status: "completed", error: null };
  }
}
