// Builds the event capability (event log + stream, webhooks and their dispatcher, alerts) and
// attaches it to the producers: ingest (message stored, quota refused) and the expiry sweep.
import { log } from "../lib/log";
import type { AppContext } from "../runtime/context";
import type { Transaction } from "../storage";
import { EventLog } from "./event-stream";
import { WebhookService } from "./webhooks";
import { WebhookDispatcher, type OriginUse } from "./webhook-dispatcher";
import { AlertService } from "./alerts";
import type { InboxService, InboxRow } from "../mail/inboxes";
import type { QuotaRefusal, StoredMessage } from "../mail/ingest";
import type { ExpiredInbox, ExpiryHooks } from "../mail/expiry";

export function buildEventServices(ctx: AppContext, inboxes: InboxService, origins: OriginUse) {
  // The log, the webhooks and their dispatcher call one another (an appended event fans out to the
  // webhook outbox; the test operation sends through the dispatcher): each takes the others as a
  // hook object bound here by closures, so nothing is assigned after construction.
  const events: EventLog = new EventLog(ctx, {
    fanout: (tx, e) => webhooks.enqueue(tx, e),
    bodiesWanted: (repos, projectId, inboxId) => webhooks.wantsBodies(repos, projectId, inboxId),
  });
  const webhooks: WebhookService = new WebhookService(ctx, inboxes, origins, { sendNow: (d) => webhookDispatcher.send(d) });
  const webhookDispatcher = new WebhookDispatcher(ctx, webhooks, origins);
  const alerts = new AlertService(ctx, events);
  return { events, webhooks, webhookDispatcher, alerts };
}

type EventServices = ReturnType<typeof buildEventServices>;

/** What the expiry sweep calls (awaited, one inbox at a time; a throw is logged by the sweep). */
export function eventExpiryHooks(s: EventServices): ExpiryHooks {
  return {
    /** The inbox entered its expiring window: the event (webhooks) and the watchers' alerts, in one transaction. */
    inboxExpiring: async (inbox: InboxRow, tx: Transaction): Promise<void> => {
      await s.events.emitInTx(
        tx,
        inbox.projectId,
        "inbox.expiring",
        { inbox_id: inbox.id, address: inbox.address, name: inbox.name, expires_at: inbox.expiresAt },
        { inboxId: inbox.id },
      );
      await s.alerts.onInboxExpiring(inbox, tx);
    },
    /** The expired inbox's row is being deleted. */
    inboxExpired: async (i: ExpiredInbox, tx: Transaction): Promise<void> => {
      await s.events.emitInTx(
        tx,
        i.project_id,
        "inbox.expired",
        { inbox_id: i.id, address: i.address, expired_at: i.expires_at },
        { inboxId: i.id },
      );
    },
  };
}

/** What ingest calls: inside the transaction that stores the message (the outbox rows and alerts commit with it), and on a quota refusal. */
export function eventIngestHooks(s: EventServices) {
  return {
    storedInTx: async (m: StoredMessage, tx: Transaction): Promise<void> => {
      await s.events.messageReceived(m, tx);
      await s.alerts.onMessageStored(m, tx);
    },
    quotaRefused: (r: QuotaRefusal): Promise<void> =>
      s.alerts.onQuotaRefused(r).catch((e) => log.error({ err: e }, "quotaRefused hook failed")),
  };
}

/** Live-view changes that producers only announce on the bus, logged so SSE clients can resume. */
export function relayBusEvents(ctx: AppContext, s: EventServices): void {
  const failed = (e: unknown) => log.error({ err: e }, "event log append failed");
  ctx.bus.subscribe((e) => {
    if (e.type === "run.changed") s.events.emit(e.projectId, "run.changed", { run_id: e.runId }).catch(failed);
    else if (e.type === "inbox.deleted")
      s.events.emit(e.projectId, "inbox.deleted", { inbox_id: e.inboxId }, { inboxId: e.inboxId }).catch(failed);
  });
}
