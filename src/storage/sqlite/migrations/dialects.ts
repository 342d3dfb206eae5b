// From 0026 on a migration is one file carrying both engines' SQL (docs/scaling.md, "Schema and
// migrations"): SQLite's index reads `.sqlite`, PostgreSQL's (../../postgres/migrations) reads
// `.postgres`, under the same version. The SQLite text of a released migration is never edited
// (the runner records versions only, so an edit would never run where it already ran); a
// PostgreSQL half is written next to it.
export interface TwoDialectMigration {
  sqlite: string;
  postgres: string;
}
