// The services of one server, built once and handed to every listener (HTTP, SMTP, IMAP, POP3)
// so that each rule lives in exactly one place whatever the channel.
import type { AppContext } from "../context";
import { AuthService } from "./auth";
import { IdentityService } from "./identity";
import { ApiKeyService } from "./api-keys";
import { InboxService } from "./inboxes";
import { MailRemoval } from "./mail-removal";
import { UsageService } from "./usage";
import { MailAccessService } from "./mail-access";
import { IngestService } from "./ingest";
import { MessageService } from "./messages";
import { LatestService } from "./latest";
import { DomainService } from "./domains";
import { AgentService } from "./agents";
import { buildAutomation } from "./automation";
import { attachEventProducers, buildEventServices } from "./events";
import { Metrics } from "../http/metrics";

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
    ...buildAutomation(ctx, { auth, inboxes, removal, agents }, (projectId, type, payload) => (services as any).events?.emit(projectId, type, payload)),
  };
  inboxes.domains = domains;
  services.ingest.recipientResolvers.push((address) => domains.catchAllFor(address));
  attachEventProducers(ctx, services);
  return services;
}

export type Services = ReturnType<typeof buildServices>;
