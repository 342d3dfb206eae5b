// The search database's indexing and term lookups outside a server, for bench/search-terms.ts
// (SQL stays in src/storage/): a file of its own with the real schema, batches indexed as the
// worker indexes them (with or without index_terms), and the two ways of finding the terms that
// contain a fragment.
import { Database } from "bun:sqlite";
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { createSearchSchema } from "./search-index";
import { addTermsOf } from "./search-terms";

export type IndexRow = readonly [rowid: number, subject: string, body: string, sender: string, recipients: string];

export class SearchFileProbe {
  private readonly db: Database;
  private readonly insert;

  constructor(private readonly dir: string) {
    this.db = new Database(join(dir, "search.db"));
    this.db.exec("PRAGMA journal_mode = WAL");
    createSearchSchema(this.db, "main");
    this.insert = this.db.query("INSERT INTO messages_fts (rowid, subject, body, sender, recipients) VALUES (?, ?, ?, ?, ?)");
  }

  /** One worker transaction: the rows into the index, and their words into index_terms if asked. */
  indexBatch(rows: IndexRow[], withTerms: boolean): void {
    this.db.transaction(() => {
      for (const r of rows) this.insert.run(...r);
      if (withTerms)
        addTermsOf(
          this.db,
          "main",
          rows.map((r) => r.slice(1).join(" ")),
        );
    })();
  }

  /** The file's size after a checkpoint. */
  bytes(): number {
    this.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    return statSync(join(this.dir, "search.db")).size;
  }

  termCount(): number {
    return (this.db.query("SELECT COUNT(*) AS n FROM index_terms").get() as { n: number }).n;
  }

  /** Terms containing the fragment through the trigram index (as SqliteMessages.indexTermsContaining). */
  viaTrigram(fragment: string): string[] {
    return this.db
      .query("SELECT term FROM index_terms_trigram WHERE index_terms_trigram MATCH ? LIMIT 501")
      .values(`"${fragment.replaceAll('"', '""')}"`)
      .map((r) => r[0] as string);
  }

  /** The same through fts5vocab in pages of 20,000, as IMAP SEARCH walked it before. */
  viaWalk(fragment: string): string[] {
    const out: string[] = [];
    for (let after = ""; ; ) {
      const page = this.db
        .query("SELECT term FROM messages_fts_terms WHERE term > ? ORDER BY term LIMIT 20000")
        .values(after)
        .map((r) => r[0] as string);
      out.push(...page.filter((t) => t.includes(fragment)));
      if (page.length < 20_000) return out;
      after = page.at(-1)!;
    }
  }

  /** Closes and removes the directory. */
  destroy(): void {
    this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
