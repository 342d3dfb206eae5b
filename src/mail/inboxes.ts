// Inboxes: disposable (a lifetime) on the project's shared subdomain, or persistent on a custom
// domain. Owns every inbox rule of the contract (ttl ranges and clamp, local_part, address_taken,
// plan limits, watch flag) and the inbox resource's shape.
import { and, desc, eq, lt, sql } from "drizzle-orm";
import type { AppContext } from "../context";
import { inboxes, inboxWatches } from "../storage/sqlite/schema";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { randomToken } from "../lib/crypto";
import { DomainError, notFound, validation } from "../lib/errors";
import type { Principal, ProjectRef } from "../tenancy/auth";
import { planOf, type Plan } from "../tenancy/plans";
import { storageBlock } from "./storage-state";
import { generateLocalPart, isValidLocalPart } from "./addresses";

export type InboxRow = typeof inboxes.$inferSelect;

export const TTL_MIN = 60;
export const TTL_MAX = 2_592_000;
export const DEFAULT_TTL = 86_400;

export interface CreateInboxInput {
  name?: string | null;
  ttl_seconds?: number | null;
  domain_id?: string;
  local_part?: string;
  watch?: boolean;
}

/** What a custom domain looks like to the inbox service (domains.ts provides it). */
export interface DomainResolver {
  forInbox(projectId: string, domainId: string): { id: string; domain: string };
}

export class InboxService {
  domains: DomainResolver | null = null;

  constructor(private readonly ctx: AppContext) {}

  private get orm() {
    return this.ctx.db.orm;
  }

  sharedDomain(project: ProjectRef): string {
    return `${project.slug}.${this.ctx.config.mailDomain}`;
  }

  create(principal: Principal, project: ProjectRef, input: CreateInboxInput, createdBySession: string | null = null) {
    const plan = planOf(project.plan);
    if (input.watch === true && principal.kind !== "device") {
      throw validation("watch is for device sessions; an API key has no device to subscribe", { field: "watch" });
    }
    if (input.name != null && input.name.length > 100) throw validation("name is at most 100 characters", { field: "name" });
    if (input.local_part !== undefined && input.local_part.length > 64) {
      throw validation("local_part is at most 64 characters", { field: "local_part" });
    }
    if (input.local_part !== undefined && !isValidLocalPart(input.local_part)) {
      throw validation("local_part is not a valid mailbox name (letters, digits and . _ + - ; no leading, trailing or double dot)", {
        field: "local_part",
      });
    }

    let type: "disposable" | "persistent" = "disposable";
    let domain = this.sharedDomain(project);
    let domainId: string | null = null;
    let expiresAt: string | null;

    if (input.domain_id !== undefined) {
      if (input.ttl_seconds != null) {
        throw validation("ttl_seconds cannot be combined with domain_id: a persistent mailbox has no expiry", {
          field: "ttl_seconds",
        });
      }
      if (input.local_part === undefined) throw validation("domain_id requires local_part", { field: "local_part" });
      if (!this.domains) throw notFound("domain");
      const d = this.domains.forInbox(project.id, input.domain_id);
      type = "persistent";
      domain = d.domain;
      domainId = d.id;
      expiresAt = null;
    } else {
      const ttl = input.ttl_seconds ?? DEFAULT_TTL;
      if (!Number.isInteger(ttl) || ttl < TTL_MIN || ttl > TTL_MAX) {
        throw validation(`ttl_seconds must be an integer ${TTL_MIN}..${TTL_MAX}`, { field: "ttl_seconds" });
      }
      expiresAt = new Date(Date.now() + Math.min(ttl, plan.maxInboxTtlSeconds) * 1000).toISOString();
    }

    const localPart = (input.local_part ?? generateLocalPart(input.name ?? null)).toLowerCase();
    const address = `${localPart}@${domain}`;

    return this.ctx.db.tx(() => {
      this.enforceInboxLimit(project, plan);
      if (this.orm.select({ id: inboxes.id }).from(inboxes).where(eq(inboxes.address, address)).get()) {
        if (input.local_part === undefined) throw new DomainError("internal", "internal", "generated address collided; retry");
        throw new DomainError("invalid", "address_taken", `the address ${address} is in use`, { field: "local_part", address });
      }
      const row: InboxRow = {
        id: newId(),
        projectId: project.id,
        address,
        localPart,
        domain,
        domainId,
        name: input.name ?? null,
        type,
        status: "active",
        passwordEnc: this.ctx.sealer.seal(randomToken(18)),
        uidValidity: Math.floor(Date.now() / 1000),
        uidNext: 1,
        expiresAt,
        expiringAlertedAt: null,
        createdBySession,
        messageCount: 0,
        unreadCount: 0,
        usedBytes: 0,
        createdAt: nowIso(),
      };
      this.orm.insert(inboxes).values(row).run();
      if (input.watch === true) this.watch(principal, row.id);
      return row;
    });
  }

  private enforceInboxLimit(project: ProjectRef, plan: Plan): void {
    if (plan.concurrentInboxes < 0) return;
    const n = this.countTeamInboxes(project.teamId);
    if (n >= plan.concurrentInboxes) {
      throw new DomainError("invalid", "plan_limit_exceeded", `the ${plan.name} plan allows ${plan.concurrentInboxes} concurrent inboxes`, {
        limit: "concurrent_inboxes",
        quota: plan.concurrentInboxes,
        used: n,
      });
    }
  }

  countTeamInboxes(teamId: string): number {
    const r = this.ctx.db.sqlite
      .query("SELECT COUNT(*) AS n FROM inboxes i JOIN projects p ON p.id = i.project_id WHERE p.team_id = ?")
      .get(teamId) as { n: number };
    return r.n;
  }

  /** An inbox of the project, or 404 (cross-project access is indistinguishable from absence). */
  get(projectId: string, id: string): InboxRow {
    const row = this.ctx.db.sqlite
      .query("SELECT * FROM inboxes WHERE id = ? AND project_id = ?")
      .get(id, projectId) as Record<string, any> | null;
    if (!row) throw notFound("inbox");
    return fromSql(row);
  }

  byAddress(address: string): InboxRow | null {
    const row = this.ctx.db.sqlite.query("SELECT * FROM inboxes WHERE address = ?").get(address.toLowerCase()) as Record<string, any> | null;
    return row ? fromSql(row) : null;
  }

  list(projectId: string, cursor: string | undefined, limit: number): InboxRow[] {
    const conds = [eq(inboxes.projectId, projectId)];
    if (cursor) conds.push(lt(inboxes.id, cursor));
    return this.orm.select().from(inboxes).where(and(...conds)).orderBy(desc(inboxes.id)).limit(limit + 1).all();
  }

  update(project: ProjectRef, id: string, input: { name?: string | null; ttl_seconds?: number }) {
    if (input.name === undefined && input.ttl_seconds === undefined) {
      throw validation("send at least one of name or ttl_seconds", { fields: ["name", "ttl_seconds"] });
    }
    const row = this.get(project.id, id);
    const patch: Partial<InboxRow> = {};
    if (input.name !== undefined) {
      if (input.name !== null && input.name.length > 100) throw validation("name is at most 100 characters", { field: "name" });
      patch.name = input.name;
    }
    if (input.ttl_seconds !== undefined) {
      if (row.type === "persistent") {
        throw validation("ttl_seconds does not apply to a persistent mailbox", { field: "ttl_seconds" });
      }
      if (!Number.isInteger(input.ttl_seconds) || input.ttl_seconds < 1) {
        throw validation("ttl_seconds must be an integer >= 1", { field: "ttl_seconds" });
      }
      // Counts from now (never extends the remainder) and is clamped to the plan's ceiling.
      const ttl = Math.min(input.ttl_seconds, planOf(project.plan).maxInboxTtlSeconds);
      patch.expiresAt = new Date(Date.now() + ttl * 1000).toISOString();
      patch.expiringAlertedAt = null;
    }
    this.orm.update(inboxes).set(patch).where(eq(inboxes.id, id)).run();
    return { ...row, ...patch };
  }

  password(row: InboxRow): string {
    return this.ctx.sealer.open(row.passwordEnc);
  }

  watch(p: Principal, inboxId: string): void {
    this.ctx.db.sqlite
      .query("INSERT OR IGNORE INTO inbox_watches (inbox_id, device_session_id, user_id, created_at) VALUES (?, ?, ?, ?)")
      .run(inboxId, p.id, p.userId!, nowIso());
  }

  unwatch(p: Principal, inboxId: string): void {
    this.ctx.db.sqlite.query("DELETE FROM inbox_watches WHERE inbox_id = ? AND device_session_id = ?").run(inboxId, p.id);
  }

  watchedBy(p: Principal, ids: string[]): Set<string> {
    if (p.kind !== "device" || ids.length === 0) return new Set();
    const rows = this.orm
      .select({ id: inboxWatches.inboxId })
      .from(inboxWatches)
      .where(and(eq(inboxWatches.deviceSessionId, p.id), sql`${inboxWatches.inboxId} IN ${ids}`))
      .all();
    return new Set(rows.map((r) => r.id));
  }

  teamUsedBytes(teamId: string): number {
    const r = this.ctx.db.sqlite.query("SELECT used_bytes FROM teams WHERE id = ?").get(teamId) as { used_bytes: number } | null;
    return r?.used_bytes ?? 0;
  }

  view(row: InboxRow, project: ProjectRef, watched: boolean, teamUsed = this.teamUsedBytes(project.teamId)) {
    const plan = planOf(project.plan);
    const { config, ports } = this.ctx;
    return {
      id: row.id,
      address: row.address,
      name: row.name,
      type: row.type,
      status: row.status,
      message_count: row.messageCount,
      unread_count: row.unreadCount,
      pop3: { host: config.publicHost, port: ports.pop3 },
      imap: { host: config.publicHost, port: ports.imap },
      retention_days: plan.retentionDays,
      expires_at: row.expiresAt,
      created_at: row.createdAt,
      storage: {
        inbox: storageBlock(row.usedBytes, plan.inboxStorageBytes),
        team: storageBlock(teamUsed, plan.teamStorageBytes),
      },
      watched,
      domain_id: row.domainId,
    };
  }
}

/** Rows read with raw SQL (hot path) mapped to the drizzle shape. */
export function fromSql(r: Record<string, any>): InboxRow {
  return {
    id: r.id,
    projectId: r.project_id,
    address: r.address,
    localPart: r.local_part,
    domain: r.domain,
    domainId: r.domain_id,
    name: r.name,
    type: r.type,
    status: r.status,
    passwordEnc: r.password_enc,
    uidValidity: r.uid_validity,
    uidNext: r.uid_next,
    expiresAt: r.expires_at,
    expiringAlertedAt: r.expiring_alerted_at,
    createdBySession: r.created_by_session,
    messageCount: r.message_count,
    unreadCount: r.unread_count,
    usedBytes: r.used_bytes,
    createdAt: r.created_at,
  };
}
