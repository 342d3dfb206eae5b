// Alerts: per-user notification records within a project (CONTRACT.md "Alert", "Alerts
// operations", "Watch rules"). A device's watch on an inbox subscribes its user to that inbox's
// arrivals (message.arrived), expiry (inbox.expiring) and quota (inbox.quota) alerts; team.quota
// goes to the team's owners. Alerts are read through the list and pushed on the event stream.
import type { AppContext } from "../context";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { DomainError, validation } from "../lib/errors";
import type { Principal } from "../tenancy/auth";
import { requireDevice } from "../tenancy/auth";
import type { EventLog } from "./event-stream";
import type { QuotaRefusal, StoredMessage } from "../mail/ingest";
import type { InboxRow } from "../mail/inboxes";

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

export interface AlertRow {
  id: string;
  project_id: string;
  user_id: string;
  type: AlertType;
  channel: string;
  severity: string;
  title: string;
  detail: string;
  resource_type: string;
  resource_id: string;
  inbox_id: string;
  inbox_address: string;
  count: number;
  occurred_at: string;
  read_at: string | null;
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
  constructor(
    private readonly ctx: AppContext,
    private readonly events: EventLog,
  ) {}

  private get sqlite() {
    return this.ctx.db.sqlite;
  }

  /** Users (not devices: one alert per person) whose devices watch the inbox. */
  watchers(inboxId: string): string[] {
    // Read once per synchronous turn: a group commit stores many messages of one inbox at once.
    let users = this.watching.get(inboxId);
    if (!users) {
      if (this.watching.size === 0) queueMicrotask(() => this.watching.clear());
      users = (this.sqlite.query("SELECT DISTINCT user_id FROM inbox_watches WHERE inbox_id = ?").all(inboxId) as { user_id: string }[]).map(
        (r) => r.user_id,
      );
      this.watching.set(inboxId, users);
    }
    return users;
  }

  private readonly watching = new Map<string, string[]>();

  /** Ingest hook, inside the transaction that stores the message. */
  onMessageStored(m: StoredMessage): void {
    const users = this.watchers(m.inbox.id);
    if (users.length === 0) return;
    const from = m.parsed.from.name || m.parsed.from.email || "unknown sender";
    for (const userId of users) {
      this.raise({
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

  /** Ingest hook for a refused delivery (no transaction is open). */
  onQuotaRefused(r: QuotaRefusal): void {
    const detail = `${r.messageBytes > 0 ? `A message of ${r.messageBytes} bytes was refused` : "Mail is being refused"}: ${r.usedBytes} of ${r.quotaBytes} bytes used.`;
    this.ctx.db.tx(() => {
      if (r.kind === "inbox") {
        for (const userId of this.watchers(r.inbox.id)) {
          this.raise({
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
        const owners = this.sqlite.query("SELECT id FROM users WHERE team_id = ? AND role = 'owner'").all(r.teamId) as { id: string }[];
        for (const o of owners) {
          this.raise({
            projectId: r.projectId,
            userId: o.id,
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
  onInboxExpiring(inbox: InboxRow): void {
    for (const userId of this.watchers(inbox.id)) {
      this.raise({
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

  /** Creates the alert, or bumps the user's unread alert of the same type and resource. */
  private raise(a: Raise): void {
    const now = nowIso();
    const bumped = this.sqlite
      .query(
        `UPDATE alerts SET count = count + 1, occurred_at = ?, detail = ?, inbox_id = ?, inbox_address = ?
         WHERE user_id = ? AND project_id = ? AND type = ? AND resource_id = ? AND read_at IS NULL RETURNING *`,
      )
      .get(now, a.detail, a.inbox.id, a.inbox.address, a.userId, a.projectId, a.type, a.resourceId) as AlertRow | null;
    let row: AlertRow;
    if (bumped) {
      row = this.sqlite.query("UPDATE alerts SET title = ? WHERE id = ? RETURNING *").get(a.title(bumped.count), bumped.id) as AlertRow;
    } else {
      row = this.sqlite
        .query(
          `INSERT INTO alerts (id, project_id, user_id, type, channel, severity, title, detail, resource_type, resource_id,
             inbox_id, inbox_address, count, occurred_at, read_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, NULL) RETURNING *`,
        )
        .get(newId(), a.projectId, a.userId, a.type, CHANNEL[a.type], SEVERITY[a.type], a.title(1), a.detail, a.resourceType,
          a.resourceId, a.inbox.id, a.inbox.address, now) as AlertRow;
    }
    this.events.emit(a.projectId, bumped ? "alert.updated" : "alert.created", view(row), { userId: a.userId, inboxId: a.inbox.id });
  }

  list(p: Principal, projectId: string, f: { unread?: boolean; channel?: string; type?: string }, cursor: string | undefined, limit: number) {
    const userId = this.userOf(p);
    const rows = this.sqlite
      .query(
        `SELECT * FROM alerts WHERE user_id = ? AND project_id = ? AND id < ?
           AND (?4 IS NULL OR (?4 = 1 AND read_at IS NULL) OR (?4 = 0 AND read_at IS NOT NULL))
           AND (?5 IS NULL OR channel = ?5) AND (?6 IS NULL OR type = ?6)
         ORDER BY id DESC LIMIT ?7`,
      )
      .all(userId, projectId, cursor ?? "~", f.unread === undefined ? null : f.unread ? 1 : 0, f.channel ?? null, f.type ?? null, limit + 1) as AlertRow[];
    return { rows, unreadCount: this.unreadCount(userId, projectId) };
  }

  /**
   * Marks the given alerts (or, without ids, every unread alert of the user in the project) read.
   * Every id must be the caller's in this project; otherwise nothing changes and the answer is 422.
   */
  markRead(p: Principal, projectId: string, ids: string[] | undefined): number {
    const userId = this.userOf(p);
    const now = nowIso();
    this.ctx.db.tx(() => {
      if (ids === undefined) {
        this.sqlite.query("UPDATE alerts SET read_at = ? WHERE user_id = ? AND project_id = ? AND read_at IS NULL").run(now, userId, projectId);
        return;
      }
      const unique = [...new Set(ids)];
      const found = new Set(
        (this.sqlite
          .query("SELECT id FROM alerts WHERE user_id = ? AND project_id = ? AND id IN (SELECT value FROM json_each(?))")
          .all(userId, projectId, JSON.stringify(unique)) as { id: string }[]).map((r) => r.id),
      );
      const foreign = unique.filter((id) => !found.has(id));
      if (foreign.length > 0) {
        throw validation("ids must name alerts of the calling user in this project", { field: "ids", invalid_ids: foreign });
      }
      this.sqlite
        .query("UPDATE alerts SET read_at = ? WHERE user_id = ? AND project_id = ? AND read_at IS NULL AND id IN (SELECT value FROM json_each(?))")
        .run(now, userId, projectId, JSON.stringify(unique));
    });
    const unread = this.unreadCount(userId, projectId);
    this.events.emit(projectId, "alert.read", { ids: ids ?? null, unread_count: unread }, { userId });
    return unread;
  }

  unreadCount(userId: string, projectId: string): number {
    return (this.sqlite.query("SELECT COUNT(*) AS n FROM alerts WHERE user_id = ? AND project_id = ? AND read_at IS NULL").get(userId, projectId) as {
      n: number;
    }).n;
  }

  private userOf(p: Principal): string {
    requireDevice(p, "principal_not_permitted", "alerts");
    if (!p.userId) throw new DomainError("forbidden", "principal_not_permitted", "alerts belong to users; this credential has none");
    return p.userId;
  }
}

export function view(r: AlertRow) {
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
