// Expiry and retention: disposable inboxes disappear at expires_at (with their messages and
// blobs), messages at their own expires_at (received_at + the plan's retention), and inboxes
// about to expire are announced once (expiring_alerted_at is the claim). Every effect is keyed
// on timestamps in the database, so a sweep after downtime catches up, and two workers sweeping
// together only race to delete the same rows (deletes are idempotent; the alert claim is one
// conditional update).
import { log } from "../lib/log";
import type { AppContext } from "../runtime/context";
import type { ExpiredInbox } from "../storage/mail";
import type { Transaction } from "../storage";
import type { InboxRow } from "./inboxes";
import type { MailRemoval } from "./removal";

const BATCH = 500;
/** Announce expiry this long ahead, or a fifth of the inbox's lifetime if that is shorter. */
const EXPIRING_LEAD_DAYS = 1 / 24;

export type { ExpiredInbox };

/**
 * What the sweep announces, inside the transaction of the change announced (the claim of the expiring
 * window, the deletion of the inbox row), so a crash between the two cannot lose the announcement:
 * the outbox rows commit with the change, or neither does and the next sweep does both.
 */
export interface ExpiryHooks {
  /** Once per inbox, when it enters its expiring window (events and alerts listen). */
  inboxExpiring(inbox: InboxRow, tx: Transaction): Promise<void>;
  /** An expired inbox's row is being deleted (webhooks: inbox.expired). */
  inboxExpired(inbox: ExpiredInbox, tx: Transaction): Promise<void>;
}

export interface SweepResult {
  inboxes: number;
  messages: number;
  expiring: number;
}

export class ExpiryService {
  constructor(
    private readonly ctx: AppContext,
    private readonly removal: MailRemoval,
    /** Extension points for other capabilities; a failing hook is logged and does not stop the sweep. */
    private readonly hooks: ExpiryHooks,
  ) {}

  /** One pass: expired inboxes, expired messages, then inboxes entering their expiring window. */
  async sweep(now = new Date().toISOString()): Promise<SweepResult> {
    const { storage } = this.ctx;
    let inboxes = 0;
    let messages = 0;

    for (;;) {
      const due = await storage.inboxes.expired(now, BATCH);
      for (const i of due) {
        try {
          if (await this.removal.deleteInbox(i.project_id, i.id, (tx) => this.hooks.inboxExpired(i, tx))) inboxes++;
        } catch (e) {
          // Nothing of this inbox's last transaction was kept; the next sweep tries again.
          log.error({ err: e, inbox_id: i.id }, "deleting an expired inbox failed");
        }
      }
      if (due.length < BATCH) break;
    }

    for (;;) {
      const due = await storage.messages.expired(now, BATCH);
      const byProject = new Map<string, string[]>();
      for (const m of due) byProject.set(m.project_id, [...(byProject.get(m.project_id) ?? []), m.id]);
      for (const [projectId, ids] of byProject) messages += await this.removal.deleteMessages(projectId, ids);
      if (due.length < BATCH) break;
    }

    let expiring = 0;
    try {
      expiring = await storage.transaction(async (tx) => {
        const claimed = await tx.inboxes.claimExpiring(now, EXPIRING_LEAD_DAYS);
        for (const inbox of claimed) await this.hooks.inboxExpiring(inbox, tx);
        return claimed.length;
      });
    } catch (e) {
      // The claims were rolled back with the announcements: the next sweep makes both.
      log.error({ err: e }, "announcing expiring inboxes failed");
    }
    return { inboxes, messages, expiring };
  }
}
