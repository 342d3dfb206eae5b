// Message rows written behind the repositories, for conformance tests of repositories that read
// messages (IMAP folders) without going through the message repository (any UID, any mailbox):
// one plain INSERT, the same text on both engines, as the mail repository writes the columns the
// readers look at. SQLite is reached as an outside inspector (sqlite-file.ts), PostgreSQL as a
// second client; both see the store's committed state.
import { SQL } from "bun";
import type { EngineUnderTest } from "./storage-engines";
import { withDatabaseFile } from "./sqlite-file";

export interface MessageRow {
  id: string;
  inboxId: string;
  projectId: string;
  uid: number;
  /** null: INBOX. */
  mailboxId?: string | null;
  read?: 0 | 1;
  sizeBytes?: number;
  subject?: string;
  imapFlags?: string | null;
}

// modseq: the next value of its mailbox's counter, as the mail repository's insert puts it (on
// PostgreSQL the insert trigger takes that value itself).
const INSERT = `INSERT INTO messages (id, inbox_id, project_id, uid, blob_key, size_bytes, logical_size_bytes, envelope_to,
  subject, read, mailbox_id, imap_flags, received_at, expires_at, modseq)
VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8, $9, $10, $11, $12, $12,
  1 + COALESCE((SELECT highest_modseq FROM imap_mailboxes WHERE id = $10), (SELECT highest_modseq FROM inboxes WHERE id = $2)))`;

function params(m: MessageRow) {
  return [
    m.id,
    m.inboxId,
    m.projectId,
    m.uid,
    `blob-${m.id}`,
    m.sizeBytes ?? 100,
    `${m.inboxId}@example.test`,
    m.subject ?? `subject ${m.id}`,
    m.read ?? 0,
    m.mailboxId ?? null,
    m.imapFlags ?? null,
    "2026-01-01T00:00:00.000Z",
  ];
}

/**
 * Runs statements (text with $1-style parameters, the same on both engines) in one transaction on
 * the engine's store and returns each one's rows.
 */
export async function sqlOn(engine: EngineUnderTest, statements: Array<[string, unknown[]]>): Promise<Record<string, unknown>[][]> {
  if (engine.name === "sqlite") {
    return withDatabaseFile(engine.location(), (db) =>
      db.transaction(() => statements.map(([text, p]) => db.query(text.replace(/\$(\d+)/g, "?$1")).all(...(p as never[]))))(),
    ) as Record<string, unknown>[][];
  }
  const sql = new SQL(engine.location(), { max: 1 });
  try {
    return (await sql.begin(async (tx) => {
      const out: Record<string, unknown>[][] = [];
      for (const [text, p] of statements) out.push((await tx.unsafe(text, p)) as Record<string, unknown>[]);
      return out;
    })) as Record<string, unknown>[][];
  } finally {
    await sql.close();
  }
}

/** Inserts the rows in one transaction on the engine's store. */
export async function insertMessageRows(engine: EngineUnderTest, rows: MessageRow[]): Promise<void> {
  await sqlOn(
    engine,
    rows.map((m) => [INSERT, params(m)]),
  );
}
