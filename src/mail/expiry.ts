// Expiry and retention: disposable inboxes disappear at expires_at (with their messages and
// blobs), messages at their own expires_at (received_at + the plan's retention), and inboxes
// about to expire are announced once (expiring_alerted_at is the claim). Every effect is keyed
// on timestamps in the database, so a sweep after downtime catches up, and two workers sweeping
// together only race to delete the same rows (deletes are idempotent; the alert claim is one
// UPDATE … RETURNING).
import type { AppContext } from "../context";
import type { Services } from "../services";
import type { Job } from "../scheduler";
import { fromSql, type InboxRow } from "./inboxes";

const BATCH = 500;
/** Announce expiry this long ahead, or a fifth of the inbox's lifetime if that is shorter. */
const EXPIRING_LEAD_DAYS = 1 / 24;

/** Called once per inbox when it enters its expiring window (the alerts capability listens). */
export const expiryHooks = {
  inboxExpiring: [] as Array<(inbox: InboxRow) => void>,
  /** Called after an expired inbox was deleted (webhooks: inbox.expired). */
  inboxExpired: [] as Array<(inbox: { id: string; project_id: string; address: string; expires_at: string }) => void>,
};

export async function sweepExpiry(ctx: AppContext, s: Services): Promise<{ inboxes: number; messages: number; expiring: number }> {
  const { sqlite } = ctx.db;
  const now = new Date().toISOString();
  let inboxes = 0;
  let messages = 0;

  for (;;) {
    const due = sqlite
      .query("SELECT id, project_id, address, expires_at FROM inboxes WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?")
      .all(now, BATCH) as { id: string; project_id: string; address: string; expires_at: string }[];
    for (const i of due) {
      if (!(await s.removal.deleteInbox(i.project_id, i.id))) continue;
      inboxes++;
      for (const hook of expiryHooks.inboxExpired) {
        try {
          hook(i);
        } catch (e) {
          console.error("inboxExpired hook failed", e);
        }
      }
    }
    if (due.length < BATCH) break;
  }

  for (;;) {
    const due = sqlite
      .query("SELECT id, project_id FROM messages WHERE expires_at <= ? ORDER BY expires_at LIMIT ?")
      .all(now, BATCH) as { id: string; project_id: string }[];
    const byProject = new Map<string, string[]>();
    for (const m of due) byProject.set(m.project_id, [...(byProject.get(m.project_id) ?? []), m.id]);
    for (const [projectId, ids] of byProject) messages += await s.removal.deleteMessages(projectId, ids);
    if (due.length < BATCH) break;
  }

  const expiring = sqlite
    .query(
      `UPDATE inboxes SET expiring_alerted_at = ?1
       WHERE expires_at IS NOT NULL AND expiring_alerted_at IS NULL AND expires_at > ?1
         AND julianday(expires_at) - julianday(?1) <= MIN(?2, 0.2 * (julianday(expires_at) - julianday(created_at)))
       RETURNING *`,
    )
    .all(now, EXPIRING_LEAD_DAYS) as Record<string, any>[];
  for (const row of expiring) {
    const inbox = fromSql(row);
    for (const hook of expiryHooks.inboxExpiring) {
      try {
        hook(inbox);
      } catch (e) {
        console.error("inboxExpiring hook failed", e);
      }
    }
  }
  return { inboxes, messages, expiring: expiring.length };
}

let intervalMs = 5000;

/** Runs at start-up (catch-up) and then every INBOXD_SWEEP_INTERVAL_MS. */
export const expiryJob: Job = {
  name: "expiry",
  get everyMs() {
    return intervalMs;
  },
  run: (ctx, s) => {
    intervalMs = ctx.config.sweepIntervalMs;
    return sweepExpiry(ctx, s);
  },
};
