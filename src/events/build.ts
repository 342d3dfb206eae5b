// Builds the event capability (event log + stream, webhooks and their dispatcher, alerts) and
// attaches it to the producers: ingest (message stored, quota refused) and the expiry sweep.
import type { AppContext } from "../context";
import { EventLog } from "./event-stream";
import { WebhookService } from "./webhooks";
import { WebhookDispatcher } from "./webhook-dispatcher";
import { AlertService } from "./alerts";
import type { InboxService } from "../mail/inboxes";
import type { IngestService } from "../mail/ingest";
import { expiryHooks } from "../mail/expiry";

export function buildEventServices(ctx: AppContext, inboxes: InboxService) {
  const events = new EventLog(ctx);
  const webhooks = new WebhookService(ctx, events, inboxes);
  const webhookDispatcher = new WebhookDispatcher(ctx, webhooks);
  const alerts = new AlertService(ctx, events);
  return { events, webhooks, webhookDispatcher, alerts };
}

export function attachEventProducers(
  ctx: AppContext,
  s: ReturnType<typeof buildEventServices> & { ingest: IngestService },
): void {
  // Inside the transaction that stores the message: the outbox rows and alerts commit with it.
  s.ingest.hooks.storedInTx.push((m) => {
    s.events.messageReceived(m);
    s.alerts.onMessageStored(m);
  });
  s.ingest.hooks.quotaRefused.push((r) => s.alerts.onQuotaRefused(r));
  expiryHooks.inboxExpiring.push((inbox) =>
    ctx.db.tx(() => {
      s.events.emit(
        inbox.projectId,
        "inbox.expiring",
        { inbox_id: inbox.id, address: inbox.address, name: inbox.name, expires_at: inbox.expiresAt },
        { inboxId: inbox.id },
      );
      s.alerts.onInboxExpiring(inbox);
    }),
  );
  // Live-view changes that producers only announce on the bus: logged so SSE clients can resume.
  ctx.bus.subscribe((e) => {
    if (e.type === "run.changed") s.events.emit(e.projectId, "run.changed", { run_id: e.runId });
    else if (e.type === "inbox.deleted") s.events.emit(e.projectId, "inbox.deleted", { inbox_id: e.inboxId }, { inboxId: e.inboxId });
  });
  expiryHooks.inboxExpired.push((i) =>
    s.events.emit(i.project_id, "inbox.expired", { inbox_id: i.id, address: i.address, expired_at: i.expires_at }, { inboxId: i.id }),
  );
}
