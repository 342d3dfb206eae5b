// PostgreSQL migrations, embedded in the binary like SQLite's (../../sqlite/migrations).
//
// One source of truth for both engines: PostgreSQL starts from one baseline equal to SQLite's
// schema after 0025 (version 25, so both engines' schema_migrations agree on what is applied),
// and from 0026 on every migration is one file under src/storage/sqlite/migrations exporting both
// dialects ({ sqlite, postgres }), listed in both indexes with the same version. The schema parity
// test (test/storage/schema-parity.test.ts) compares the two catalogues after migrating, so a
// migration written for one engine only fails the suite.
//
// Append only: a released migration is never edited; add the next number instead.
import baseline from "./0025_baseline";

export const postgresMigrations: { version: number; name: string; sql: string }[] = [
  { version: 25, name: "baseline_sqlite_0025", sql: baseline },
];
