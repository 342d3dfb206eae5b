// GET /v1/usage: the plan's quotas and the real counts against them. -1 is unlimited.
import type { AppContext } from "../context";
import type { ProjectRef } from "./auth";
import { planOf, TRIAL_DAYS } from "./plans";
import { storageBlock } from "../mail/storage-state";

export class UsageService {
  constructor(private readonly ctx: AppContext) {}

  usage(project: ProjectRef) {
    const plan = planOf(project.plan);
    const q = (sql: string, ...args: string[]) => (this.ctx.db.sqlite.query(sql).get(...args) as { n: number }).n;
    const team = this.ctx.db.sqlite.query("SELECT used_bytes, created_at FROM teams WHERE id = ?").get(project.teamId) as {
      used_bytes: number;
      created_at: string;
    };
    const teamInboxes = q("SELECT COUNT(*) AS n FROM inboxes i JOIN projects p ON p.id = i.project_id WHERE p.team_id = ?", project.teamId);
    const hasDomains = !!this.ctx.db.sqlite.query("SELECT 1 FROM sqlite_master WHERE type='table' AND name='domains'").get();
    const trialEnds = new Date(Date.parse(team.created_at) + TRIAL_DAYS * 86400_000);
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
        concurrent_inboxes: teamInboxes,
        project_inboxes: q("SELECT COUNT(*) AS n FROM inboxes WHERE project_id = ?", project.id),
        messages: q("SELECT COUNT(*) AS n FROM messages WHERE project_id = ?", project.id),
        team_members: q("SELECT COUNT(*) AS n FROM users WHERE team_id = ?", project.teamId),
        team_storage_bytes: team.used_bytes,
        project_storage_bytes: q("SELECT COALESCE(SUM(used_bytes), 0) AS n FROM inboxes WHERE project_id = ?", project.id),
        custom_domains: hasDomains
          ? q("SELECT COUNT(*) AS n FROM domains d JOIN projects p ON p.id = d.project_id WHERE p.team_id = ?", project.teamId)
          : 0,
        api_keys: q("SELECT COUNT(*) AS n FROM api_keys WHERE project_id = ? AND revoked_at IS NULL", project.id),
      },
      trial: {
        days: TRIAL_DAYS,
        started_at: team.created_at,
        ends_at: trialEnds.toISOString(),
        active: trialEnds.getTime() > Date.now(),
      },
      subscription: { status: "self_hosted", plan: plan.slug, source: "INBOXD_PLAN" },
      storage: { team: storageBlock(team.used_bytes, plan.teamStorageBytes) },
    };
  }
}
