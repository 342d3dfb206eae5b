// Blobs freed safely across nodes (issue 20, docs/scaling.md "Blobs"). Blobs are content addressed:
// node B storing a message whose bytes are already there writes nothing, and node A, freeing the
// blob of a message it deleted, must not remove it before B's message row is visible. Every put of
// an existing key now updates its head row (touched_at): an inline put inside the ingest transaction
// holds that row's lock until the message commits, and the freer locks the row before it looks for
// references (postgres/blob-release.ts). A large blob's put commits before its message does, so a
// head touched within the grace period is never freed.
//
// SQLite needs nothing: one process, whose deliveries in flight pin their blobs (mail/blob-refs.ts).
import type { TwoDialectMigration } from "./dialects";

// Nothing on SQLite (a function: bun:sqlite refuses an exec without a statement); the version is
// recorded all the same, so both engines list the same migrations.
const sqlite = (): void => {};

// now() is stable, so existing rows take the migration's time without a table rewrite.
const postgres = /* sql */ `
ALTER TABLE blobs_inline ADD COLUMN touched_at TIMESTAMPTZ NOT NULL DEFAULT now();
`;

export default { sqlite, postgres } satisfies TwoDialectMigration;
