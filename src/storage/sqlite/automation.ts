// SQLite implementation of the automation repositories (src/storage/automation.ts).
import type { AutomationRepositories } from "../automation";
import type { SqliteConnection } from "./connection";

export function sqliteAutomationRepositories(_c: SqliteConnection): AutomationRepositories {
  return {};
}
