// Custom domains: create (normalise, plan limit, DKIM key pair, ownership token), the DNS records a
// user must publish, verification (on demand and by the scheduler), delete, the catch-all inbox,
// and what the inbox service and SMTP ingest need to know about a domain.
import { generateKeyPair } from "node:crypto";
import { isIP } from "node:net";
import { domainToASCII } from "node:url";
import { promisify } from "node:util";
import type { AppContext } from "../runtime/context";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { randomToken } from "../lib/crypto";
import { DomainError, conflict, notFound, validation } from "../lib/errors";
import type { ProjectRef } from "../tenancy/auth";
import type { DomainResolver, InboxRow } from "../mail/inboxes";
import type { Repositories } from "../storage";
import type { DomainRecord } from "../storage/domains";
import type { MailRemoval } from "../mail/removal";
import { planOf } from "../tenancy/plans";
import { DnsChecker, type ExpectedRecord, type RecordCheck } from "./dns-check";

const generateKeyPairAsync = promisify(generateKeyPair);

/** A pending domain the scheduler could not verify within this window becomes failed. */
export const PENDING_WINDOW_MS = 72 * 3600 * 1000;
/** How long one scheduler worker holds a domain while its lookups run. */
const CLAIM_MS = 60_000;
const DUE_BATCH = 25;
/** Why a claim whose records match still fails: another project's claim on the name was verified first. */
const VERIFIED_ELSEWHERE = "the records match, but this domain was verified by another project on this instance first";

export type DomainRow = DomainRecord;

export interface CreateDomainInput {
  domain: string;
  catch_all_inbox_id?: string | null;
}

export class DomainService implements DomainResolver {
  constructor(
    private readonly ctx: AppContext,
    private readonly removal: MailRemoval,
  ) {}

  private get store() {
    return this.ctx.storage.domains;
  }

  private get verifyOff(): boolean {
    return this.ctx.config.domainVerify === "off";
  }

  /**
   * Lower case, no trailing dot, IDN to punycode; refuses IP literals, single labels, the shared
   * mail domain and its subdomains, and anything that is not a host name.
   */
  normalise(input: string): string {
    const raw = input.trim().replace(/\.$/, "");
    const bad = (why: string) => validation(`domain ${JSON.stringify(input)} ${why}`, { field: "domain" });
    if (raw === "") throw bad("is empty");
    if (/[\s@/\\:?#*[\]]/.test(raw)) throw bad("is not a domain name (no scheme, port, path, address or wildcard)");
    if (isIP(raw)) throw bad("is an IP address; a custom domain must be a DNS name");
    const ascii = domainToASCII(raw);
    if (!ascii) throw bad("is not a valid domain name");
    const domain = ascii.toLowerCase();
    // The URL host parser reads "127.1" as an IPv4 address; a numeric last label is never a TLD.
    if (isIP(domain) || /^\d+$/.test(domain.split(".").pop()!)) throw bad("is an IP address; a custom domain must be a DNS name");
    const labels = domain.split(".");
    if (labels.length < 2) throw bad("is a single label; use a registered domain such as mail.example.com");
    if (domain.length > 253) throw bad("is longer than 253 characters");
    for (const l of labels) {
      if (l.length < 1 || l.length > 63 || !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(l)) {
        throw bad(`has an invalid label "${l}" (1..63 letters, digits and inner hyphens)`);
      }
    }
    const shared = this.ctx.config.mailDomain;
    if (domain === shared || domain.endsWith(`.${shared}`)) {
      throw bad(`is the shared mail domain ${shared} or under it; those addresses are the projects' shared subdomains`);
    }
    return domain;
  }

  async create(project: ProjectRef, input: CreateDomainInput): Promise<DomainRow> {
    const domain = this.normalise(input.domain);
    const catchAll = input.catch_all_inbox_id ?? null;
    if (catchAll !== null) await this.projectInbox(this.ctx.storage, project.id, catchAll);
    // Checked before and after the key generation: fail fast, then decide under the write lock.
    await this.checkAvailable(this.ctx.storage, project, domain);
    const { publicKey, privateKey } = await generateKeyPairAsync("rsa", {
      modulusLength: 2048,
      publicKeyEncoding: { type: "spki", format: "der" },
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
    });
    const now = nowIso();
    const row: DomainRow = {
      id: newId(),
      project_id: project.id,
      domain,
      mode: "normal",
      status: this.verifyOff ? "verified" : "pending",
      dkim_selector: `inboxd${now.slice(0, 7).replace("-", "")}`,
      dkim_private_key_enc: this.ctx.sealer.seal(privateKey as unknown as string),
      dkim_public_key: (publicKey as unknown as Buffer).toString("base64"),
      ownership_token: randomToken(24),
      catch_all_inbox_id: catchAll,
      verified_at: this.verifyOff ? now : null,
      last_checked_at: null,
      failure_reason: null,
      record_status: "{}",
      check_claimed_until: null,
      created_at: now,
    };
    await this.ctx.storage.transaction(async (tx) => {
      await this.checkAvailable(tx, project, domain);
      if (catchAll !== null) await this.projectInbox(tx, project.id, catchAll);
      await tx.domains.insert(row);
    });
    return row;
  }

  /** Plan limit (counted per team, as plans are) and global uniqueness of the name. */
  private async checkAvailable(repos: Repositories, project: ProjectRef, domain: string): Promise<void> {
    const plan = planOf(project.plan);
    const used = await repos.domains.countForTeam(project.teamId);
    if (plan.customDomains >= 0 && used >= plan.customDomains) {
      const message =
        plan.customDomains === 0
          ? `the ${plan.name} plan includes no custom domains; custom domains need the Starter plan or above`
          : `the ${plan.name} plan allows ${plan.customDomains} custom domains`;
      throw new DomainError("invalid", "plan_limit_exceeded", message, { limit: "custom_domains", quota: plan.customDomains, used });
    }
    const claims = await repos.domains.related(domain);
    const taken = () => new DomainError("invalid", "domain_taken", `the domain ${domain} is not available`, { field: "domain", domain });
    // The caller's own team: say so plainly (which of its projects holds it is the team's business).
    if (claims.some((c) => c.domain === domain && c.teamId === project.teamId)) {
      throw new DomainError("invalid", "domain_taken", `the domain ${domain} is already registered in a project of your team`, {
        field: "domain",
        domain,
      });
    }
    const others = claims.filter((c) => c.teamId !== project.teamId);
    if (this.verifyOff) {
      // Every claim is verified at once, so nothing but first come decides: the name, a parent of
      // it and anything under it are another team's once it holds one of them.
      if (others.length > 0) throw taken();
    } else if (others.some((c) => c.domain === domain && c.status === "verified")) {
      // A verified name's MX already points here for anyone to see; a pending claim of another
      // team is not revealed (it may be squatting) and does not block: the first verified wins.
      throw taken();
    }
  }

  private async projectInbox(repos: Repositories, projectId: string, inboxId: string): Promise<void> {
    if (!(await repos.inboxes.inProject(projectId, inboxId))) {
      throw notFound("inbox");
    }
  }

  async get(projectId: string, id: string): Promise<DomainRow> {
    const row = await this.store.inProject(projectId, id);
    if (!row) throw notFound("domain");
    return row;
  }

  list(projectId: string, cursor: string | undefined, limit: number): Promise<DomainRow[]> {
    return this.store.listInProject(projectId, cursor || null, limit + 1);
  }

  /** The records a user publishes, as the resource shows them (without status). */
  expectedRecords(row: DomainRow): ExpectedRecord[] {
    const d = row.domain;
    return [
      { key: "mx", type: "MX", host: d, value: this.ctx.config.publicHost, priority: 10, required: true },
      { key: "spf", type: "TXT", host: d, value: "v=spf1 mx ~all", priority: 0, required: false },
      {
        key: "dkim",
        type: "TXT",
        host: `${row.dkim_selector}._domainkey.${d}`,
        value: `v=DKIM1; k=rsa; p=${row.dkim_public_key}`,
        priority: 0,
        required: false,
      },
      { key: "dmarc", type: "TXT", host: `_dmarc.${d}`, value: "v=DMARC1; p=none", priority: 0, required: false },
      {
        key: "ownership",
        type: "TXT",
        host: `_inboxd.${d}`,
        value: `inboxd-verification=${row.ownership_token}`,
        priority: 0,
        required: true,
      },
    ];
  }

  /**
   * Checks the records now. pending or failed → verified when every required record matches,
   * else failed with the reason. A verified domain stays verified (mailboxes depend on it); the
   * check refreshes its per-record status so drift is visible.
   */
  async verify(projectId: string, id: string): Promise<DomainRow> {
    const row = await this.get(projectId, id);
    if (this.verifyOff) return row;
    const checks = await this.lookup(row);
    const outcome = summarise(this.expectedRecords(row), checks);
    const now = nowIso();
    const check = { at: now, recordStatus: JSON.stringify(checks) };
    if (row.status === "verified") await this.store.recordCheck(id, check);
    else if (!outcome.ok) await this.store.markFailed(id, check, outcome.reason);
    else if (!(await this.store.markVerified(id, check))) await this.store.markFailed(id, check, VERIFIED_ELSEWHERE);
    return this.get(projectId, id);
  }

  private lookup(row: DomainRow): Promise<Record<string, RecordCheck>> {
    return new DnsChecker(this.ctx.config.dnsServers).check(this.expectedRecords(row));
  }

  /**
   * Scheduler: re-checks pending domains whose last check is older than the interval. Rows are
   * claimed with one UPDATE … RETURNING so that several workers never check the same domain twice.
   */
  async checkDue(): Promise<number> {
    if (this.verifyOff) return 0;
    const now = Date.now();
    const dueBefore = new Date(now - this.ctx.config.domainCheckSeconds * 1000).toISOString();
    const nowS = new Date(now).toISOString();
    const claimed = await this.store.claimDue(new Date(now + CLAIM_MS).toISOString(), dueBefore, nowS, DUE_BATCH);
    await Promise.all(
      claimed.map(async (row) => {
        const checks = await this.lookup(row);
        const outcome = summarise(this.expectedRecords(row), checks);
        const check = { at: nowIso(), recordStatus: JSON.stringify(checks) };
        if (outcome.ok) {
          const won = await this.store.finishClaimedCheck(row.id, check, { status: "verified", reason: null });
          if (!won) await this.store.finishClaimedCheck(row.id, check, { status: "failed", reason: VERIFIED_ELSEWHERE });
        } else if (Date.now() - Date.parse(row.created_at) > PENDING_WINDOW_MS) {
          const reason = `not verified within ${PENDING_WINDOW_MS / 3600_000} hours: ${outcome.reason}`;
          await this.store.finishClaimedCheck(row.id, check, { status: "failed", reason });
        } else {
          await this.store.finishClaimedCheck(row.id, check, { status: null, reason: null });
        }
      }),
    );
    return claimed.length;
  }

  /**
   * Deletes a domain. While persistent mailboxes live on it the answer is 409 domain_in_use,
   * unless force: then those mailboxes (with their messages) are deleted first.
   */
  async remove(projectId: string, id: string, force: boolean): Promise<void> {
    await this.get(projectId, id);
    let ids = await this.store.mailboxIds(projectId, id);
    if (ids.length > 0 && !force) {
      throw conflict("domain_in_use", `${ids.length} persistent mailbox(es) use this domain; delete them first or pass ?force=true`, {
        inbox_count: ids.length,
        inbox_ids: ids.slice(0, 20),
      });
    }
    // A mailbox created while we delete would survive its domain: loop until the set is empty
    // inside the transaction that removes the domain.
    for (let round = 0; round < 5; round++) {
      for (const inboxId of ids) await this.removal.deleteInbox(projectId, inboxId);
      const done = await this.ctx.storage.transaction(async (tx) => {
        ids = await tx.domains.mailboxIds(projectId, id);
        if (ids.length > 0) return false;
        await tx.domains.deleteInProject(projectId, id);
        return true;
      });
      if (done) return;
    }
    throw conflict("domain_in_use", "mailboxes keep being created on this domain; retry the delete", { inbox_count: ids.length });
  }

  /** Designates (or with null clears) the inbox that receives mail for unknown local parts. */
  async setCatchAll(projectId: string, id: string, inboxId: string | null): Promise<DomainRow> {
    await this.get(projectId, id);
    await this.ctx.storage.transaction(async (tx) => {
      if (inboxId !== null) await this.projectInbox(tx, projectId, inboxId);
      await tx.domains.setCatchAll(projectId, id, inboxId);
    });
    return this.get(projectId, id);
  }

  /** DomainResolver for the inbox service: only a verified domain of the project takes mailboxes. */
  async forInbox(projectId: string, domainId: string): Promise<{ id: string; domain: string }> {
    const row = await this.store.inProject(projectId, domainId);
    if (!row) throw notFound("domain");
    if (row.status !== "verified") {
      throw new DomainError(
        "invalid",
        "domain_not_verified",
        `the domain ${row.domain} is ${row.status}; verify it before creating mailboxes on it`,
        {
          field: "domain_id",
          domain_id: row.id,
          status: row.status,
        },
      );
    }
    return { id: row.id, domain: row.domain };
  }

  /** SMTP ingest: the catch-all inbox of a verified domain, for an address no inbox has. */
  async catchAllFor(address: string): Promise<InboxRow | null> {
    const at = address.lastIndexOf("@");
    if (at < 0) return null;
    const domain = domainToASCII(address.slice(at + 1).replace(/\.$/, "")).toLowerCase();
    if (!domain) return null;
    return this.store.catchAllInbox(domain);
  }

  view(row: DomainRow, project: ProjectRef) {
    let checks: Record<string, RecordCheck> = {};
    try {
      checks = JSON.parse(row.record_status);
    } catch {}
    const unchecked = this.verifyOff ? "skipped" : "pending";
    return {
      id: row.id,
      domain: row.domain,
      mode: row.mode,
      status: row.status,
      verified_at: row.verified_at,
      last_checked_at: row.last_checked_at,
      failure_reason: row.failure_reason,
      dkim: { selector: row.dkim_selector },
      project: { id: project.id, slug: project.slug },
      records: this.expectedRecords(row).map((r) => ({ ...r, status: checks[r.key]?.status ?? unchecked })),
      catch_all_inbox_id: row.catch_all_inbox_id,
      created_at: row.created_at,
    };
  }
}

/** All required records valid → ok; otherwise the reason names each required record that is not. */
function summarise(expected: ExpectedRecord[], checks: Record<string, RecordCheck>): { ok: boolean; reason: string } {
  const bad = expected.filter((r) => r.required && checks[r.key]?.status !== "valid");
  return { ok: bad.length === 0, reason: bad.map((r) => `${r.key}: ${checks[r.key]?.detail ?? "not checked"}`).join("; ") };
}
