// The plan table of the contract. -1 means unlimited. Values the contract leaves open (Pro's
// limits, custom-domain counts below Business) are our decisions, listed in docs/plans.md.
import type { PlanSlug } from "../runtime/config";

export interface Plan {
  slug: PlanSlug;
  name: string;
  retentionDays: number;
  concurrentInboxes: number;
  teamMembers: number;
  inboxStorageBytes: number;
  teamStorageBytes: number;
  customDomains: number;
  /** Longest lifetime a disposable inbox may have on this plan (ttl clamp). */
  maxInboxTtlSeconds: number;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const DAY = 86400;

export const PLANS: Record<PlanSlug, Plan> = {
  // The default of a self-hosted instance (INBOXD_PLAN unset): a CI suite creating inboxes in
  // parallel must not hit the free plan's 25, and the disk is the operator's own. Generous
  // storage bounds remain, so a runaway sender cannot fill the disk unnoticed.
  "self-hosted": {
    slug: "self-hosted",
    name: "Self-hosted",
    retentionDays: 30,
    concurrentInboxes: -1,
    teamMembers: -1,
    inboxStorageBytes: 2 * GiB,
    teamStorageBytes: 50 * GiB,
    customDomains: -1,
    maxInboxTtlSeconds: 30 * DAY,
  },
  free: {
    slug: "free",
    name: "Free",
    retentionDays: 3,
    concurrentInboxes: 25,
    teamMembers: 3,
    inboxStorageBytes: 50 * MiB,
    teamStorageBytes: 250 * MiB,
    customDomains: 0,
    maxInboxTtlSeconds: 3 * DAY,
  },
  starter: {
    slug: "starter",
    name: "Starter",
    retentionDays: 7,
    concurrentInboxes: -1,
    teamMembers: 5,
    inboxStorageBytes: 250 * MiB,
    teamStorageBytes: 2 * GiB,
    customDomains: 1,
    maxInboxTtlSeconds: 7 * DAY,
  },
  pro: {
    slug: "pro",
    name: "Pro",
    retentionDays: 30,
    concurrentInboxes: -1,
    teamMembers: 20,
    inboxStorageBytes: 1 * GiB,
    teamStorageBytes: 10 * GiB,
    customDomains: 3,
    maxInboxTtlSeconds: 30 * DAY,
  },
  business: {
    slug: "business",
    name: "Business",
    retentionDays: 90,
    concurrentInboxes: -1,
    teamMembers: -1,
    inboxStorageBytes: 5 * GiB,
    teamStorageBytes: 50 * GiB,
    customDomains: 10,
    maxInboxTtlSeconds: 90 * DAY,
  },
};

export function planOf(slug: string): Plan {
  return PLANS[(slug in PLANS ? slug : "free") as PlanSlug];
}

export const TRIAL_DAYS = 14;
