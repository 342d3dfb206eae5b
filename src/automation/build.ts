// Builds the automation layer (agents, origins, scenario secrets, scenarios, runs and the run
// executor) from the services it stands on.
import type { AppContext } from "../context";
import type { AuthService } from "../tenancy/auth";
import type { InboxService } from "../mail/inboxes";
import type { MailRemoval } from "../mail/removal";
import { AgentService } from "./agents";
import { OriginService } from "./origins";
import { ScenarioSecretService } from "./scenario-secrets";
import { ScenarioService } from "./scenarios";
import { RunService } from "./runs";
import { RunExecutor } from "./run-executor";
import { RunLedger } from "./run-ledger";

export function buildAutomation(
  ctx: AppContext,
  base: { auth: AuthService; inboxes: InboxService; removal: MailRemoval; agents: AgentService },
  emit: (projectId: string, type: string, payload: Record<string, unknown>) => void,
) {
  const origins = new OriginService(ctx);
  const scenarioSecrets = new ScenarioSecretService(ctx);
  const scenarios = new ScenarioService(ctx, scenarioSecrets);
  const runs = new RunService(ctx, base.agents, scenarios);
  const runExecutor = new RunExecutor(ctx, runs, scenarios, base.agents, scenarioSecrets, base.auth, { inboxes: base.inboxes, removal: base.removal, origins }, new RunLedger(ctx, runs, base.removal), emit);
  return { agents: base.agents, origins, scenarioSecrets, scenarios, runs, runExecutor };
}
