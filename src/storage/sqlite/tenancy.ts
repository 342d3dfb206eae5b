// SQLite implementation of the tenancy repositories (src/storage/tenancy.ts).
import type { TenancyRepositories } from "../tenancy";
import type { SqliteConnection } from "./connection";

export function sqliteTenancyRepositories(_c: SqliteConnection): TenancyRepositories {
  return {};
}
