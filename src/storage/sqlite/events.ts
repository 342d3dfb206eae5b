// SQLite implementation of the events repositories (src/storage/events.ts).
import type { EventsRepositories } from "../events";
import type { SqliteConnection } from "./connection";

export function sqliteEventsRepositories(_c: SqliteConnection): EventsRepositories {
  return {};
}
