// SQLite implementation of the domains repositories (src/storage/domains.ts).
import type { DomainsRepositories } from "../domains";
import type { SqliteConnection } from "./connection";

export function sqliteDomainsRepositories(_c: SqliteConnection): DomainsRepositories {
  return {};
}
