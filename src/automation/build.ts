// Builds the automation layer (agents, origins, scenario secrets, scenarios, runs, the run
// executor, approvals and MCP agent sessions) from the services it stands on.
//
// Runs, the executor and approvals call one another (a cancel closes a pending approval and ends
// an idle run; parking creates an approval; a decision resumes or fails the parked run). Each
// takes what it needs of the others as a hook object built here, bound to the services by
// closures, so nothing is assigned after construction.
import type { AppContext } from "../runtime/context";
import type { AuthService } from "../tenancy/auth";
import type { InboxService } from "../mail/inboxes";
import type { MailRemoval } from "../mail/removal";
import type { AgentService } from "./agents";
import { AgentSessionService } from "./agent-sessions";
import { ApprovalService, type ApprovalEmitter } from "./approvals";
import type { OriginService } from "./origins";
import type { MessageService } from "../mail/messages";
import type { MessageAnalyses } from "../mail/analyses";
import { ScenarioSecretService } from "./scenario-secrets";
import { ScenarioService } from "./scenarios";
import { RunService } from "./runs";
import { RunExecutor } from "./run-executor";
import { RunLedger } from "./run-ledger";

export function buildAutomation(
  ctx: AppContext,
  base: {
    auth: AuthService;
    inboxes: InboxService;
    messages: MessageService;
    analyses: MessageAnalyses;
    removal: MailRemoval;
    agents: AgentService;
    origins: OriginService;
  },
  /** Emits a domain event (webhooks, event stream): run.finished and approval.pending. */
  emit: ApprovalEmitter,
) {
  const { origins } = base;
  const scenarioSecrets = new ScenarioSecretService(ctx);
  const scenarios = new ScenarioService(ctx, scenarioSecrets);
  const runs = new RunService(ctx, base.agents, scenarios, {
    kick: (runId) => runExecutor.kick(runId),
    finishIdle: (runId, status) => runExecutor.finishIdle(runId, status),
    closeApproval: async (runId) => void (await approvals.closeForRun(runId, "run cancelled")),
  });
  const approvals = new ApprovalService(
    ctx,
    {
      resume: async (runId) => void (await runExecutor.resume(runId)),
      failParked: async (runId, reason, code) => void (await runExecutor.failParked(runId, reason, code)),
    },
    emit,
  );
  const ledger = new RunLedger(ctx, runs, base.removal);
  const runExecutor = new RunExecutor(
    ctx,
    runs,
    scenarios,
    base.agents,
    scenarioSecrets,
    base.auth,
    { inboxes: base.inboxes, messages: base.messages, analyses: base.analyses, removal: base.removal, origins },
    ledger,
    emit,
    {
      park: async (tx, p) => {
        const { approval, created } = await approvals.park(tx, {
          runId: p.run.id,
          projectId: p.run.project_id,
          stepIndex: p.stepIndex,
          action: p.snapshot.action,
          targetResourceType: p.snapshot.target_resource_type,
          targetResourceId: p.snapshot.target_resource_id,
          snapshot: p.snapshot,
        });
        return created ? () => approvals.announce(p.run.project_id, approval) : undefined;
      },
    },
  );
  const agentSessions = new AgentSessionService(ctx, base.agents, { runs, ledger, emit }, base.auth);
  return { agents: base.agents, origins, scenarioSecrets, scenarios, runs, runExecutor, approvals, agentSessions };
}
