// The automation capability's repositories on PostgreSQL (src/storage/automation.ts), assembled from
// their files: agents.ts (agents, origins, agent sessions), scenarios.ts (scenarios, versions,
// secrets), runs.ts (runs, run events, cleanup ledger, approvals).
import type { AutomationRepositories } from "../automation";
import { PgAgentSessions, PgAgents, PgOrigins } from "./agents";
import type { PgClient } from "./connection";
import { PgApprovals, PgRunEvents, PgRunLedger, PgRuns } from "./runs";
import { PgScenarioSecrets, PgScenarios, PgScenarioVersions } from "./scenarios";

export function postgresAutomationRepositories(c: PgClient): AutomationRepositories {
  return {
    agents: new PgAgents(c),
    origins: new PgOrigins(c),
    scenarioSecrets: new PgScenarioSecrets(c),
    scenarios: new PgScenarios(c),
    scenarioVersions: new PgScenarioVersions(c),
    runs: new PgRuns(c),
    runEvents: new PgRunEvents(c),
    runLedger: new PgRunLedger(c),
    agentSessions: new PgAgentSessions(c),
    approvals: new PgApprovals(c),
  };
}
