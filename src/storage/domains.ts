// The domains capability's repositories: what its services keep, as typed records and small
// interfaces. Engines implement them in src/storage/<engine>/domains.ts.
import type { InboxRecord } from "./mail";

export type DomainStatus = "pending" | "verified" | "failed";

/** A custom domain (snake_case: the shape the domain service and its view read). */
export interface DomainRecord {
  id: string;
  project_id: string;
  domain: string;
  mode: string;
  status: DomainStatus;
  dkim_selector: string;
  dkim_private_key_enc: string;
  dkim_public_key: string;
  ownership_token: string;
  catch_all_inbox_id: string | null;
  verified_at: string | null;
  last_checked_at: string | null;
  failure_reason: string | null;
  /** JSON: per-record check results. */
  record_status: string;
  check_claimed_until: string | null;
  created_at: string;
}

/** The result of one DNS check of a domain. */
export interface DomainCheck {
  at: string;
  /** JSON: per-record check results. */
  recordStatus: string;
}

export interface RelatedDomainClaim {
  domain: string;
  projectId: string;
  teamId: string;
  status: DomainRecord["status"];
}

export interface DomainRepository {
  inProject(projectId: string, id: string): Promise<DomainRecord | null>;
  /** Newest first, ids below `before` when given; at most `limit` records. */
  listInProject(projectId: string, before: string | null, limit: number): Promise<DomainRecord[]>;
  /** Domains of every project of the team. */
  countForTeam(teamId: string): Promise<number>;
  /** Claims on this (normalised) name, on a parent of it or under it, by any project of any team. */
  related(domain: string): Promise<RelatedDomainClaim[]>;
  insert(r: DomainRecord): Promise<void>;
  deleteInProject(projectId: string, id: string): Promise<void>;
  setCatchAll(projectId: string, id: string, inboxId: string | null): Promise<void>;
  /** The inbox ids (persistent mailboxes) of the project living on the domain, in id order. */
  mailboxIds(projectId: string, id: string): Promise<string[]>;
  /** The catch-all inbox of a verified domain with this name (the inbox of the domain's project). */
  catchAllInbox(domain: string): Promise<InboxRecord | null>;

  /** On-demand check results: a verified domain keeps its status, only the check is recorded. */
  recordCheck(id: string, check: DomainCheck): Promise<void>;
  /** False (nothing changed) when another claim on the same name is verified already: the first verified wins. */
  markVerified(id: string, check: DomainCheck): Promise<boolean>;
  markFailed(id: string, check: DomainCheck, reason: string): Promise<void>;

  /**
   * Scheduler: claims (check_claimed_until = claimUntil) at most `limit` pending domains last
   * checked at or before dueBefore (or never) whose claim lapsed before now, never-checked first.
   * Atomic, so several workers never check the same domain twice.
   */
  claimDue(claimUntil: string, dueBefore: string, now: string, limit: number): Promise<DomainRecord[]>;
  /**
   * Scheduler: stores the outcome of a claimed check and releases the claim; applies only while
   * the domain is still pending. status null: still pending (only the check is recorded). False
   * when "verified" was refused because another claim on the name is verified (nothing changed).
   */
  finishClaimedCheck(
    id: string,
    check: DomainCheck,
    outcome: { status: "verified" | "failed" | null; reason: string | null },
  ): Promise<boolean>;
}

export interface DomainsRepositories {
  domains: DomainRepository;
}
