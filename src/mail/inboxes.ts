// Inboxes: disposable (a lifetime) on the project's shared subdomain, or persistent on a custom
// domain. Owns every inbox rule of the contract (ttl ranges and clamp, local_part, address_taken,
// plan limits, watch flag) and the inbox resource's shape.
import { inboxLookupChanged } from "./inbox-lookups";
import { publishRevoked } from "../tenancy/revocation";
import type { MailRemoval } from "./removal";
import type { AppContext } from "../runtime/context";
import type { Transaction } from "../storage";
import type { InboxPatch, InboxRecord } from "../storage/mail";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { randomToken } from "../lib/crypto";
import { conflict, DomainError, notFound, validation } from "../lib/errors";
import type { Principal, ProjectRef } from "../tenancy/auth";
import { planOf, type Plan } from "../tenancy/plans";
import { storageBlock } from "../tenancy/storage-quota";
import { generateLocalPart, isValidLocalPart } from "./addresses";

/** An inbox as the services see it (the storage record). */
export type InboxRow = InboxRecord;

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
  forInbox(projectId: string, domainId: string): Promise<{ id: string; domain: string }> | { id: string; domain: string };
}

export class InboxService {
  constructor(
    private readonly ctx: AppContext,
    private readonly domains: DomainResolver,
    private readonly removal: MailRemoval,
  ) {}

  /**
   * The instance's catch-all inbox, created in this project when there is none (at start-up, while
   * INBOXD_CATCH_ALL is on): persistent, no expiry, outside the plan's inbox count.
   */
  async ensureCatchAll(project: ProjectRef): Promise<InboxRow> {
    const existing = await this.ctx.storage.inboxes.catchAll();
    if (existing) return existing;
    const domain = this.sharedDomain(project);
    const passwordEnc = this.ctx.sealer.seal(randomToken(18));
    return this.ctx.storage.transaction(async (tx) => {
      let localPart = "catch-all";
      if (await tx.inboxes.byAddress(`${localPart}@${domain}`)) localPart = `catch-all-${randomToken(4).toLowerCase()}`;
      const row = newInboxRow({
        projectId: project.id,
        localPart,
        domain,
        domainId: null,
        name: "Catch-all",
        type: "catch_all",
        passwordEnc,
        expiresAt: null,
        createdBySession: null,
      });
      await tx.inboxes.insert(row);
      return row;
    });
  }

  /** Deletes an inbox with its messages. The catch-all inbox stays (INBOXD_CATCH_ALL=off turns capture off). */
  async delete(projectId: string, id: string): Promise<void> {
    const row = await this.get(projectId, id);
    if (row.type === "catch_all") {
      throw conflict("catch_all_inbox", "the catch-all inbox cannot be deleted; delete its messages, or set INBOXD_CATCH_ALL=off");
    }
    if (!(await this.removal.deleteInbox(projectId, id))) throw notFound("inbox");
  }

  sharedDomain(project: ProjectRef): string {
    return `${project.slug}.${this.ctx.config.mailDomain}`;
  }

  async create(
    principal: Principal,
    project: ProjectRef,
    input: CreateInboxInput,
    createdBySession: string | null = null,
  ): Promise<InboxRow> {
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
      const d = await this.domains.forInbox(project.id, input.domain_id);
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

    // Sealing is CPU work: done before the transaction, which holds the writer.
    const passwordEnc = this.ctx.sealer.seal(randomToken(18));
    return this.ctx.storage.transaction(async (tx) => {
      await this.enforceInboxLimit(tx, project, plan);
      if (await tx.inboxes.byAddress(address)) {
        if (input.local_part === undefined) throw new DomainError("internal", "internal", "generated address collided; retry");
        throw new DomainError("invalid", "address_taken", `the address ${address} is in use`, { field: "local_part", address });
      }
      const row = newInboxRow({
        projectId: project.id,
        localPart,
        domain,
        domainId,
        name: input.name ?? null,
        type,
        passwordEnc,
        expiresAt,
        createdBySession,
      });
      await tx.inboxes.insert(row);
      if (input.watch === true)
        await tx.inboxWatches.add({ inboxId: row.id, deviceSessionId: principal.id, userId: principal.userId!, createdAt: nowIso() });
      return row;
    });
  }

  private async enforceInboxLimit(tx: Transaction, project: ProjectRef, plan: Plan): Promise<void> {
    if (plan.concurrentInboxes < 0) return;
    const n = await tx.inboxes.countForTeam(project.teamId);
    if (n >= plan.concurrentInboxes) {
      throw new DomainError("invalid", "plan_limit_exceeded", `the ${plan.name} plan allows ${plan.concurrentInboxes} concurrent inboxes`, {
        limit: "concurrent_inboxes",
        quota: plan.concurrentInboxes,
        used: n,
      });
    }
  }

  /** An inbox of the project, or 404 (cross-project access is indistinguishable from absence). */
  async get(projectId: string, id: string): Promise<InboxRow> {
    const row = await this.ctx.storage.inboxes.inProject(projectId, id);
    if (!row) throw notFound("inbox");
    return row;
  }

  async byAddress(address: string): Promise<InboxRow | null> {
    return this.ctx.storage.inboxes.byAddress(address.toLowerCase());
  }

  /** Newest first; `rows.length` may be limit+1 (toPage trims). */
  list(projectId: string, cursor: string | undefined, limit: number, type: InboxRow["type"] | null = null): Promise<InboxRow[]> {
    return this.ctx.storage.inboxes.listInProject(projectId, cursor || null, limit + 1, type);
  }

  async update(project: ProjectRef, id: string, input: { name?: string | null; ttl_seconds?: number }): Promise<InboxRow> {
    if (input.name === undefined && input.ttl_seconds === undefined) {
      throw validation("send at least one of name or ttl_seconds", { fields: ["name", "ttl_seconds"] });
    }
    const row = await this.get(project.id, id);
    const patch: InboxPatch = {};
    if (input.name !== undefined) {
      if (input.name !== null && input.name.length > 100) throw validation("name is at most 100 characters", { field: "name" });
      patch.name = input.name;
    }
    if (input.ttl_seconds !== undefined) {
      if (row.type !== "disposable") {
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
    await this.ctx.storage.inboxes.update(id, patch);
    return { ...row, ...patch };
  }

  password(row: InboxRow): string {
    return this.ctx.sealer.open(row.passwordEnc);
  }

  /** What `GET …/credentials` and its rotation answer: the log-in and where to use it. */
  credentials(row: InboxRow, project: ProjectRef) {
    const v = this.view(row, project, false, 0);
    return { username: row.address, password: this.password(row), pop3: v.pop3, imap: v.imap };
  }

  /**
   * Gives the inbox a new IMAP/POP3 password; sessions logged in with the old one are ended
   * (`principal.revoked {kind: "inbox"}`, tenancy/revocation.ts). Returns the updated row.
   */
  async rotatePassword(projectId: string, id: string): Promise<InboxRow> {
    const row = await this.get(projectId, id);
    const passwordEnc = this.ctx.sealer.seal(randomToken(18));
    await this.ctx.storage.inboxes.setPassword(id, passwordEnc);
    publishRevoked(this.ctx, "inbox", id);
    return { ...row, passwordEnc };
  }

  async watch(p: Principal, inboxId: string): Promise<void> {
    await this.ctx.storage.inboxWatches.add({ inboxId, deviceSessionId: p.id, userId: p.userId!, createdAt: nowIso() });
    inboxLookupChanged(this.ctx.bus, "watchers", inboxId);
  }

  async unwatch(p: Principal, inboxId: string): Promise<void> {
    await this.ctx.storage.inboxWatches.remove(inboxId, p.id);
    inboxLookupChanged(this.ctx.bus, "watchers", inboxId);
  }

  async watchedBy(p: Principal, ids: string[]): Promise<Set<string>> {
    if (p.kind !== "device" || ids.length === 0) return new Set();
    return new Set(await this.ctx.storage.inboxWatches.watchedAmong(p.id, ids));
  }

  teamUsedBytes(teamId: string): Promise<number> {
    return this.ctx.storage.inboxes.teamUsedBytes(teamId);
  }

  /** The inbox resource. teamUsed: the team's stored bytes (teamUsedBytes; fetched once for a page). */
  view(row: InboxRow, project: ProjectRef, watched: boolean, teamUsed: number) {
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

/** A new, empty, active inbox (its UID validity from the clock, as IMAP wants it to change when an address is reused). */
function newInboxRow(
  f: Pick<InboxRow, "projectId" | "localPart" | "domain" | "domainId" | "name" | "type" | "passwordEnc" | "expiresAt" | "createdBySession">,
): InboxRow {
  return {
    ...f,
    id: newId(),
    address: `${f.localPart}@${f.domain}`,
    status: "active",
    uidValidity: Math.floor(Date.now() / 1000),
    uidNext: 1,
    expiringAlertedAt: null,
    messageCount: 0,
    unreadCount: 0,
    usedBytes: 0,
    createdAt: nowIso(),
  };
}
