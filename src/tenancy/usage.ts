// GET /v1/usage: the plan's quotas and the real counts against them. -1 is unlimited.
import type { AppContext } from "../runtime/context";
import type { ProjectRef } from "./auth";
import { planOf, TRIAL_DAYS } from "./plans";
import { storageBlock } from "./storage-quota";

export class UsageService {
  constructor(private readonly ctx: AppContext) {}

  async usage(project: ProjectRef) {
    const plan = planOf(project.plan);
    const n = await this.ctx.storage.usage.counts(project.teamId, project.id);
    if (!n) throw new Error(`team ${project.teamId} of project ${project.id} is gone`);
    const trialEnds = new Date(Date.parse(n.teamCreatedAt) + TRIAL_DAYS * 86400_000);
    return {
      project: { id: project.id, slug: project.slug },
      plan: { slug: plan.slug, name: plan.name },
      quotas: {
        concurrent_inboxes: plan.concurrentInboxes,
        retention_days: plan.retentionDays,
        team_members: plan.teamMembers,
        inbox_storage_bytes: plan.inboxStorageBytes,
        team_storage_bytes: plan.teamStorageBytes,
        custom_domains: plan.customDomains,
      },
      usage: {
        concurrent_inboxes: n.teamInboxes,
        project_inboxes: n.projectInboxes,
        messages: n.projectMessages,
        team_members: n.teamMembers,
        team_storage_bytes: n.teamUsedBytes,
        project_storage_bytes: n.projectStorageBytes,
        custom_domains: n.teamCustomDomains,
        api_keys: n.projectApiKeys,
      },
      trial: {
        days: TRIAL_DAYS,
        started_at: n.teamCreatedAt,
        ends_at: trialEnds.toISOString(),
        active: trialEnds.getTime() > Date.now(),
      },
      subscription: { status: "self_hosted", plan: plan.slug, source: "INBOXD_PLAN" },
      storage: { team: storageBlock(n.teamUsedBytes, plan.teamStorageBytes) },
    };
  }
}
