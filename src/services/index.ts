// The services of one server, built once and handed to every listener (HTTP, SMTP, IMAP, POP3)
// so that each rule lives in exactly one place whatever the channel. This is the only place that
// wires capabilities together: every service receives its collaborators through its constructor,
// and producers announce through their typed hooks (ingest, expiry) or the bus.
import { log } from "../lib/log";
import type { AppContext } from "../runtime/context";
import { loginLimits } from "../runtime/config";
import { AuthService } from "../tenancy/auth";
import { Revocations } from "../tenancy/revocation";
import { IdentityService } from "../tenancy/identity";
import { ApiKeyService } from "../tenancy/api-keys";
import { UsageService } from "../tenancy/usage";
import { InboxService } from "../mail/inboxes";
import { MailRemoval } from "../mail/removal";
import { FolderService } from "../mail/imap-folders";
import { MailAccessService } from "../mail/mail-access";
import { IngestService } from "../mail/ingest";
import { ImportService } from "../mail/import";
import { MessageService } from "../mail/messages";
import { buildAnalyses } from "../mail/analyses";
import { LatestService } from "../mail/latest";
import { SearchService } from "../mail/search";
import { ExpiryService } from "../mail/expiry";
import { ChaosService } from "../mail/chaos";
import { SmtpChaosService } from "../mail/smtp-chaos";
import { InstanceOperators } from "../tenancy/operator";
import { DomainService } from "../domains/domains";
import { AgentService } from "../automation/agents";
import { OriginService } from "../automation/origins";
import { buildAutomation } from "../automation/build";
import { buildEventServices, eventExpiryHooks, eventIngestHooks, relayBusEvents } from "../events/build";

export function buildServices(ctx: AppContext) {
  const auth = new AuthService(ctx);
  const removal = new MailRemoval(ctx);
  const domains = new DomainService(ctx, removal);
  const inboxes = new InboxService(ctx, domains, removal);
  const messages = new MessageService(ctx);
  const analyses = buildAnalyses(ctx, messages);
  const agents = new AgentService(ctx);
  const origins = new OriginService(ctx);
  const events = buildEventServices(ctx, inboxes, origins);
  const ingest = new IngestService(ctx, (id) => auth.project(id), [(address) => domains.catchAllFor(address)]);
  const ingestHooks = eventIngestHooks(events);
  ingest.hooks.storedInTx.push(ingestHooks.storedInTx);
  ingest.hooks.quotaRefused.push(ingestHooks.quotaRefused);
  ingest.hooks.storedInTx.push(analyses.auth.queueAtReceipt);
  const expiry = new ExpiryService(ctx, removal, eventExpiryHooks(events));
  const automation = buildAutomation(ctx, { auth, inboxes, messages, analyses, removal, agents, origins }, (projectId, type, payload) =>
    events.events.emit(projectId, type, payload).then(
      () => undefined,
      (e) => log.error({ err: e }, `event ${type} failed`),
    ),
  );
  relayBusEvents(ctx, events);
  return {
    metrics: ctx.metrics,
    auth,
    revocations: new Revocations(ctx, auth),
    identity: new IdentityService(ctx),
    apiKeys: new ApiKeyService(ctx, auth),
    inboxes,
    mailAccess: new MailAccessService(inboxes, loginLimits(ctx.config)),
    removal,
    folders: new FolderService(ctx, removal),
    domains,
    usage: new UsageService(ctx),
    ingest,
    imports: new ImportService(ctx, inboxes, ingest),
    chaos: new ChaosService(ctx, inboxes),
    smtpChaos: new SmtpChaosService(ctx, new InstanceOperators(ctx)),
    messages,
    latest: new LatestService(ctx, messages),
    analyses,
    search: new SearchService(ctx),
    expiry,
    ...events,
    ...automation,
  };
}

export type Services = ReturnType<typeof buildServices>;
