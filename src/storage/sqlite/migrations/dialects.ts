// From 0026 on a migration is one file carrying both engines' SQL (docs/scaling.md, "Schema and
// migrations"): SQLite's index reads `.sqlite`, PostgreSQL's (../../postgres/migrations) reads
// `.postgres`, under the same version. The SQLite text of a released migration is never edited
// (the runner records versions only, so an edit would never run where it already ran); a
// PostgreSQL half is written next to it.
import type { Database } from "bun:sqlite";

export interface TwoDialectMigration {
  /** SQL, or a function for a table rebuild that reads the stored schema (see index.ts). */
  sqlite: string | ((db: Database) => void);
  postgres: string;
}
