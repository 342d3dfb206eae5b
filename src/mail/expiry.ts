// Expiry and retention: disposable inboxes disappear at expires_at (with their messages and
// blobs), messages at their own expires_at (received_at + the plan's retention), and inboxes
// about to expire are announced once (expiring_alerted_at is the claim). Every effect is keyed
// on timestamps in the database, so a sweep after downtime catches up, and two workers sweeping
// together only race to delete the same rows (deletes are idempotent; the alert claim is one
// conditional update).
import { log } from "../lib/log";
import type { AppContext } from "../runtime/context";
import type { ExpiredInbox } from "../storage/mail";
import type { InboxRow } from "./inboxes";
import type { MailRemoval } from "./removal";

const BATCH = 500;
/** Announce expiry this long ahead, or a fifth of the inbox's lifetime if that is shorter. */
const EXPIRING_LEAD_DAYS = 1 / 24;

export type { ExpiredInbox };

/** What the sweep announces, awaited one inbox at a time. */
export interface ExpiryHooks {
  /** Called once per inbox when it enters its expiring window (events and alerts listen). */
  inboxExpiring(inbox: InboxRow): Promise<void>;
  /** Called after an expired inbox was deleted (webhooks: inbox.expired). */
  inboxExpired(inbox: ExpiredInbox): Promise<void>;
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
        if (!(await this.removal.deleteInbox(i.project_id, i.id))) continue;
        inboxes++;
        await announce("inboxExpired", () => this.hooks.inboxExpired(i));
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

    const expiring = await storage.inboxes.claimExpiring(now, EXPIRING_LEAD_DAYS);
    for (const inbox of expiring) await announce("inboxExpiring", () => this.hooks.inboxExpiring(inbox));
    return { inboxes, messages, expiring: expiring.length };
  }
}

/** A failing hook is logged; the sweep goes on with the next inbox. */
async function announce(name: string, hook: () => Promise<void>): Promise<void> {
  try {
    await hook();
  } catch (e) {
    log.error({ err: e }, `${name} hook failed`);
  }
}
