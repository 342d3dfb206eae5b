// The search database's own vocabulary (index_terms, search-index.ts): every term the full-text
// index was given, with an FTS5 trigram index over the terms, so "which terms contain this
// fragment" (IMAP SEARCH's substring semantics, protocols/imap/search-text.ts) is one indexed
// MATCH instead of a walk of fts5vocab, which reads the doclists of the whole index (2.1 s at a
// million messages, issue 19).
//
// - Terms come from FTS5's own tokenizer, never a copy of it: the batch's texts go through a
//   scratch contentless FTS5 table with the index's tokenize string, and its fts5vocab (the batch's
//   words only) feeds index_terms in the index's transaction. Tokenizing twice costs the worker
//   thread, not the event loop.
// - Terms are never removed: a term whose messages are gone costs one lookup, and the candidates it
//   names are checked by the index query and the substring test anyway.
// - An index built before index_terms existed is copied in once from fts5vocab, a page per worker
//   turn between queue batches (fillIndexTerms); until done is set, readers use the old walk.
import type { Database } from "bun:sqlite";

/** The full-text index's tokenizer (messages_fts): the scratch table must split words the same way. */
export const TOKENIZE = "unicode61 remove_diacritics 2";
/** Vocabulary entries copied per transaction by the upgrade fill. */
const FILL_PAGE = 20_000;

const prepared = new WeakSet<Database>();

function scratch(db: Database): void {
  if (prepared.has(db)) return;
  db.exec(`
    CREATE VIRTUAL TABLE IF NOT EXISTS temp.scratch_fts USING fts5(t, content = '', detail = none, columnsize = 0, tokenize = '${TOKENIZE}');
    CREATE VIRTUAL TABLE IF NOT EXISTS temp.scratch_terms USING fts5vocab(temp, scratch_fts, 'row');
  `);
  prepared.add(db);
}

/** Runs fn with the texts' words in temp.scratch_terms (distinct), emptied afterwards. */
function withWords<T>(db: Database, texts: string[], fn: () => T): T {
  scratch(db);
  const add = db.query("INSERT INTO temp.scratch_fts (rowid, t) VALUES (?, ?)");
  texts.forEach((t, i) => add.run(i + 1, t));
  try {
    return fn();
  } finally {
    db.exec("INSERT INTO temp.scratch_fts (scratch_fts) VALUES ('delete-all')");
  }
}

/** The distinct words the index makes of the texts (unordered). */
export function wordsOf(db: Database, texts: string[]): string[] {
  return withWords(db, texts, () =>
    db
      .query("SELECT term FROM temp.scratch_terms")
      .values()
      .map((r) => r[0] as string),
  );
}

/** Adds the texts' words to `schema`.index_terms (inside the caller's transaction). */
export function addTermsOf(db: Database, schema: string, texts: string[]): void {
  if (texts.length === 0) return;
  withWords(db, texts, () => db.exec(`INSERT OR IGNORE INTO ${schema}.index_terms (term) SELECT term FROM temp.scratch_terms`));
}

/**
 * One page of the upgrade fill: copies the next FILL_PAGE terms of fts5vocab into index_terms and
 * marks the fill done after the last. Returns whether more remain.
 */
export function fillIndexTerms(db: Database, schema: string): boolean {
  const state = db.query(`SELECT after, done FROM ${schema}.index_terms_fill WHERE id = 1`).get() as { after: string; done: number } | null;
  if (!state || state.done) return false;
  const page = db
    .query(`SELECT term FROM ${schema}.messages_fts_terms WHERE term > ? ORDER BY term LIMIT ${FILL_PAGE}`)
    .values(state.after)
    .map((r) => r[0] as string);
  const done = page.length < FILL_PAGE;
  const insert = db.query(`INSERT OR IGNORE INTO ${schema}.index_terms (term) VALUES (?)`);
  db.transaction(() => {
    for (const t of page) insert.run(t);
    db.query(`UPDATE ${schema}.index_terms_fill SET after = ?, done = ? WHERE id = 1`).run(page.at(-1) ?? state.after, done ? 1 : 0);
  })();
  return !done;
}
