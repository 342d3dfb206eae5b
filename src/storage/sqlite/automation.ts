// The automation capability's repositories on SQLite (src/storage/automation.ts), assembled from
// their files: agents.ts (agents, origins, agent sessions), scenarios.ts (scenarios, versions,
// secrets), runs.ts (runs, run events, cleanup ledger, approvals).
import type { AutomationRepositories } from "../automation";
import { SqliteAgentSessions, SqliteAgents, SqliteOrigins } from "./agents";
import type { SqliteConnection } from "./connection";
import { SqliteApprovals, SqliteRunEvents, SqliteRunLedger, SqliteRuns } from "./runs";
import { SqliteScenarioSecrets, SqliteScenarios, SqliteScenarioVersions } from "./scenarios";

export function sqliteAutomationRepositories(c: SqliteConnection): AutomationRepositories {
  return {
    agents: new SqliteAgents(c),
    origins: new SqliteOrigins(c),
    scenarioSecrets: new SqliteScenarioSecrets(c),
    scenarios: new SqliteScenarios(c),
    scenarioVersions: new SqliteScenarioVersions(c),
    runs: new SqliteRuns(c),
    runEvents: new SqliteRunEvents(c),
    runLedger: new SqliteRunLedger(c),
    agentSessions: new SqliteAgentSessions(c),
    approvals: new SqliteApprovals(c),
  };
}
