// Schema pieces whose PostgreSQL half may not be applied yet, read once when the storage opens.
// Today one: messages.modseq (CONDSTORE, SQLite migration 0028), whose PostgreSQL half comes from
// a sibling branch. Once it is merged the column always exists and this file goes (docs/scaling.md).
import type { PgClient } from "./connection";

export interface PgSchemaFeatures {
  /** messages.modseq exists: inserts and flag writes set it as SQLite's do. */
  modseq: boolean;
}

export async function readSchemaFeatures(c: PgClient): Promise<PgSchemaFeatures> {
  const r = await c.row(
    "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'messages' AND column_name = 'modseq'",
  );
  return { modseq: r !== null };
}
