// The services of one server, built once and handed to every listener (HTTP, SMTP, IMAP, POP3)
// so that each rule lives in exactly one place whatever the channel.
import type { AppContext } from "./context";
import { AuthService } from "./tenancy/auth";
import { IdentityService } from "./tenancy/identity";
import { ApiKeyService } from "./tenancy/api-keys";
import { InboxService } from "./mail/inboxes";
import { MailRemoval } from "./mail/removal";
import { UsageService } from "./tenancy/usage";
import { MailAccessService } from "./mail/mail-access";
import { IngestService } from "./mail/ingest";
import { MessageService } from "./mail/messages";
import { LatestService } from "./mail/latest";
import { DomainService } from "./domains/domains";
import { AgentSessionService } from "./automation/agent-sessions";
import { ApprovalService } from "./automation/approvals";
import { AgentService } from "./automation/agents";
import { buildAutomation } from "./automation/build";
import { attachEventProducers, buildEventServices } from "./events/build";
import { Metrics } from "./http/metrics";

export function buildServices(ctx: AppContext) {
  const auth = new AuthService(ctx);
  const inboxes = new InboxService(ctx);
  const messages = new MessageService(ctx);
  const removal = new MailRemoval(ctx);
  const domains = new DomainService(ctx, removal);
  const agents = new AgentService(ctx);
  const services = {
    metrics: new Metrics(),
    auth,
    identity: new IdentityService(ctx),
    apiKeys: new ApiKeyService(ctx, auth),
    inboxes,
    mailAccess: new MailAccessService(ctx, inboxes),
    removal,
    domains,
    usage: new UsageService(ctx),
    ingest: new IngestService(ctx, (id) => auth.project(id)),
    messages,
    latest: new LatestService(ctx, messages),
    ...buildEventServices(ctx, inboxes),
    agentSessions: new AgentSessionService(ctx, agents, removal),
    ...buildAutomation(ctx, { auth, inboxes, removal, agents }, (projectId, type, payload) => (services as any).events?.emit(projectId, type, payload)),
    approvals: new ApprovalService(ctx),
  };
  inboxes.domains = domains;
  services.ingest.recipientResolvers.push((address) => domains.catchAllFor(address));
  attachEventProducers(ctx, services);
  // Approvals park and resume scenario runs through the run executor.
  services.approvals.runs = {
    resume: (runId) => void services.runExecutor.resume(runId),
    failParked: async (runId, reason, code) => void (await services.runExecutor.failParked(runId, reason, code)),
  };
  services.approvals.emit ??= (projectId, type, payload) => void services.events.emit(projectId, type, payload);
  services.runs.closeApproval = (runId) => void services.approvals.closeForRun(runId, "run cancelled");
  // Webhook tries to an allowed origin count as its use (last_used_at), like http.request steps.
  services.webhookDispatcher.origins = services.origins;
  services.runExecutor.onPark = (p) =>
    void services.approvals.park({
      runId: p.run.id,
      projectId: p.run.project_id,
      stepIndex: p.stepIndex,
      action: p.snapshot.action,
      targetResourceType: p.snapshot.target_resource_type,
      targetResourceId: p.snapshot.target_resource_id,
      snapshot: p.snapshot,
    });
  return services;
}

export type Services = ReturnType<typeof buildServices>;
