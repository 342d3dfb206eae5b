// Alerts: per-user notification records within a project (CONTRACT.md "Alert", "Alerts
// operations", "Watch rules"). A device's watch on an inbox subscribes its user to that inbox's
// arrivals (message.arrived), expiry (inbox.expiring) and quota (inbox.quota) alerts; team.quota
// goes to the team's owners. Alerts are read through the list and pushed on the event stream.
import type { AppContext } from "../runtime/context";
import type { Repositories, Transaction } from "../storage";
import type { AlertRecord } from "../storage/events";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { DomainError, validation } from "../lib/errors";
import type { Principal } from "../tenancy/auth";
import { requireDevice } from "../tenancy/auth";
import type { EventLog } from "./event-stream";
import type { QuotaRefusal, StoredMessage } from "../mail/ingest";
import type { InboxRow } from "../mail/inboxes";
import { InboxLookupCache } from "../mail/inbox-lookups";

export const ALERT_TYPES = ["message.arrived", "inbox.expiring", "inbox.quota", "team.quota"] as const;
export const ALERT_CHANNELS = ["arrivals", "failures"] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

const CHANNEL: Record<AlertType, (typeof ALERT_CHANNELS)[number]> = {
  "message.arrived": "arrivals",
  "inbox.expiring": "failures",
  "inbox.quota": "failures",
  "team.quota": "failures",
};
const SEVERITY: Record<AlertType, string> = {
  "message.arrived": "success",
  "inbox.expiring": "warning",
  "inbox.quota": "error",
  "team.quota": "error",
};

export interface AlertRow extends AlertRecord {
  type: AlertType;
}

interface Raise {
  projectId: string;
  userId: string;
  type: AlertType;
  inbox: { id: string; address: string };
  resourceType: "inbox" | "team";
  resourceId: string;
  /** Title for a count (coalesced alerts say how many). */
  title: (count: number) => string;
  detail: string;
}

export class AlertService {
  /** Watchers per inbox, read in every delivery's transaction: kept in memory, dropped on change (mail/inbox-lookups.ts). */
  private readonly watching: InboxLookupCache<string[]>;

  constructor(
    private readonly ctx: AppContext,
    private readonly events: EventLog,
  ) {
    this.watching = new InboxLookupCache("watchers", ctx.bus, (id) => ctx.storage.inboxWatches.watcherUserIds(id));
  }

  /** Users (not devices: one alert per person) whose devices watch the inbox. */
  watchers(repos: Repositories, inboxId: string): Promise<string[]> {
    return repos.inboxWatches.watcherUserIds(inboxId);
  }

  /** Ingest hook, inside the transaction that stores the message. */
  async onMessageStored(m: StoredMessage, tx: Transaction): Promise<void> {
    const users = await this.watching.get(m.inbox.id, (id) => this.watchers(tx, id));
    if (users.length === 0) return;
    const from = m.parsed.from.name || m.parsed.from.email || "unknown sender";
    for (const userId of users) {
      await this.raise(tx, {
        projectId: m.projectId,
        userId,
        type: "message.arrived",
        inbox: { id: m.inbox.id, address: m.inbox.address },
        resourceType: "inbox",
        resourceId: m.inbox.id,
        title: (n) => (n === 1 ? `New message in ${m.inbox.address}` : `${n} new messages in ${m.inbox.address}`),
        detail: `Latest from ${from}: ${m.parsed.subject || "(no subject)"}`.slice(0, 500),
      });
    }
  }

  /** Ingest hook for a refused delivery (no transaction is open): raises in a transaction of its own. */
  onQuotaRefused(r: QuotaRefusal): Promise<void> {
    const detail = `${r.messageBytes > 0 ? `A message of ${r.messageBytes} bytes was refused` : "Mail is being refused"}: ${r.usedBytes} of ${r.quotaBytes} bytes used.`;
    return this.ctx.storage.transaction(async (tx) => {
      if (r.kind === "inbox") {
        for (const userId of await this.watchers(tx, r.inbox.id)) {
          await this.raise(tx, {
            projectId: r.projectId,
            userId,
            type: "inbox.quota",
            inbox: { id: r.inbox.id, address: r.inbox.address },
            resourceType: "inbox",
            resourceId: r.inbox.id,
            title: (n) => `${r.inbox.address} is out of storage` + (n > 1 ? ` (${n} refusals)` : ""),
            detail,
          });
        }
      } else {
        for (const ownerId of await tx.alerts.teamOwnerIds(r.teamId)) {
          await this.raise(tx, {
            projectId: r.projectId,
            userId: ownerId,
            type: "team.quota",
            inbox: { id: r.inbox.id, address: r.inbox.address },
            resourceType: "team",
            resourceId: r.teamId,
            title: (n) => "Team storage is full" + (n > 1 ? ` (${n} refusals)` : ""),
            detail: `${detail} Latest refused for ${r.inbox.address}.`,
          });
        }
      }
    });
  }

  /** Called by the expiring sweep inside its transaction. */
  async onInboxExpiring(inbox: InboxRow, tx: Transaction): Promise<void> {
    for (const userId of await this.watchers(tx, inbox.id)) {
      await this.raise(tx, {
        projectId: inbox.projectId,
        userId,
        type: "inbox.expiring",
        inbox: { id: inbox.id, address: inbox.address },
        resourceType: "inbox",
        resourceId: inbox.id,
        title: () => `${inbox.address} expires soon`,
        detail: `The inbox and its messages are deleted at ${inbox.expiresAt}.`,
      });
    }
  }

  /**
   * Creates the alert, or bumps the user's unread alert of the same type and resource: one
   * statement decides (alerts.raise), so nodes raising it at once coalesce as one node does.
   */
  private async raise(tx: Transaction, a: Raise): Promise<void> {
    const now = nowIso();
    const raised = await tx.alerts.raise({
      id: newId(),
      project_id: a.projectId,
      user_id: a.userId,
      type: a.type,
      channel: CHANNEL[a.type],
      severity: SEVERITY[a.type],
      title: a.title(1),
      detail: a.detail,
      resource_type: a.resourceType,
      resource_id: a.resourceId,
      inbox_id: a.inbox.id,
      inbox_address: a.inbox.address,
      count: 1,
      occurred_at: now,
      read_at: null,
    });
    // The row stays locked until this transaction commits: the title matches the count it stores.
    const row = raised.created ? raised.row : await tx.alerts.setTitle(raised.row.id, a.title(raised.row.count));
    await this.events.emitInTx(tx, a.projectId, raised.created ? "alert.created" : "alert.updated", view(row), {
      userId: a.userId,
      inboxId: a.inbox.id,
    });
  }

  async list(
    p: Principal,
    projectId: string,
    f: { unread?: boolean; channel?: string; type?: string },
    cursor: string | undefined,
    limit: number,
  ) {
    const userId = this.userOf(p);
    const rows = (await this.ctx.storage.alerts.list(
      userId,
      projectId,
      { unread: f.unread ?? null, channel: f.channel ?? null, type: f.type ?? null },
      cursor ?? "~",
      limit + 1,
    )) as AlertRow[];
    return { rows, unreadCount: await this.unreadCount(userId, projectId) };
  }

  /**
   * Marks the given alerts (or, without ids, every unread alert of the user in the project) read.
   * Every id must be the caller's in this project; otherwise nothing changes and the answer is 422.
   */
  async markRead(p: Principal, projectId: string, ids: string[] | undefined): Promise<number> {
    const userId = this.userOf(p);
    const now = nowIso();
    await this.ctx.storage.transaction(async (tx) => {
      if (ids === undefined) {
        await tx.alerts.markAllRead(userId, projectId, now);
        return;
      }
      const unique = [...new Set(ids)];
      const found = new Set(await tx.alerts.existing(userId, projectId, unique));
      const foreign = unique.filter((id) => !found.has(id));
      if (foreign.length > 0) {
        throw validation("ids must name alerts of the calling user in this project", { field: "ids", invalid_ids: foreign });
      }
      await tx.alerts.markRead(userId, projectId, unique, now);
    });
    const unread = await this.unreadCount(userId, projectId);
    await this.events.emit(projectId, "alert.read", { ids: ids ?? null, unread_count: unread }, { userId });
    return unread;
  }

  unreadCount(userId: string, projectId: string): Promise<number> {
    return this.ctx.storage.alerts.unreadCount(userId, projectId);
  }

  private userOf(p: Principal): string {
    requireDevice(p, "principal_not_permitted", "alerts");
    if (!p.userId) throw new DomainError("forbidden", "principal_not_permitted", "alerts belong to users; this credential has none");
    return p.userId;
  }
}

export function view(r: AlertRecord) {
  return {
    id: r.id,
    type: r.type,
    channel: r.channel,
    severity: r.severity,
    title: r.title,
    detail: r.detail,
    resource_type: r.resource_type,
    resource_id: r.resource_id,
    inbox: { id: r.inbox_id, address: r.inbox_address },
    count: r.count,
    occurred_at: r.occurred_at,
    read_at: r.read_at,
  };
}
