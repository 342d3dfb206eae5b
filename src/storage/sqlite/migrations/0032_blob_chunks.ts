// Large blobs on PostgreSQL in chunks (issue 20, docs/scaling.md "Blobs"). A blob above the inline
// limit was one bytea value: written from one buffer of the whole message, and every 1 MiB slice a
// download read decompressed the whole TOASTed value again. Now its bytes are rows of blob_chunks
// (~1 MiB each, written one at a time from the spool file) and its blobs_inline row is a head
// (codec 2, empty bytes, raw_size) written last, in the same transaction: a blob is present when
// its head is, so no crash leaves a head over missing chunks.
//
// SQLite needs nothing: its large blobs are files (blobs-tiered.ts), streamed from the file system.
import type { TwoDialectMigration } from "./dialects";

// Nothing on SQLite (a function: bun:sqlite refuses an exec without a statement); the version is
// recorded all the same, so both engines list the same migrations.
const sqlite = (): void => {};

const postgres = /* sql */ `
CREATE TABLE blob_chunks (
  key TEXT NOT NULL,
  seq INTEGER NOT NULL,
  bytes BYTEA NOT NULL,
  PRIMARY KEY (key, seq)
);
`;

export default { sqlite, postgres } satisfies TwoDialectMigration;
