// Fault injection at connect (docs/chaos.md "Connection faults"): rules of the instance's SMTP and
// LMTP listeners, not of a project (nothing names one before the first RCPT). One row per rule, tried
// in `position` order. code NULL: a slow greeting (the 220 late); 421 or 554: a refused connection.
import type { TwoDialectMigration } from "./dialects";

const table = (real: string) => /* sql */ `
CREATE TABLE smtp_chaos_rules (
  position INTEGER PRIMARY KEY,
  stage TEXT NOT NULL CHECK (stage IN ('connect')),
  code INTEGER CHECK (code IN (421, 554)),
  message TEXT,
  rate ${real} NOT NULL DEFAULT 1 CHECK (rate >= 0 AND rate <= 1),
  delay_ms INTEGER NOT NULL DEFAULT 0 CHECK (delay_ms >= 0),
  created_at TEXT NOT NULL
);
`;

export default { sqlite: table("REAL"), postgres: table("DOUBLE PRECISION") } satisfies TwoDialectMigration;
