// PostgreSQL's search index is tokenized by inboxd (src/storage/postgres/search-vector.ts) so that
// it finds what SQLite's FTS5 finds. This compares the two tokenizers on text in several scripts:
// every sample's words, as FTS5 (unicode61 remove_diacritics 2, the tokenizer of
// storage/sqlite/search-index.ts) puts them in its vocabulary, against tokens().
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { tokens } from "../../src/storage/postgres/search-vector";

const SAMPLES = [
  "Crème Brûlée, façade, naïve CAFÉ",
  "Привет МИР, Ελληνικά",
  "हिन्दी भाषा",
  "alice@shop.example ib_m O'Brien https://x.example/a?b=c#d",
  "Ærøskøbing ŁÓDŹ straße İstanbul",
  "日本語のテキスト 한국어",
  "decomposed: cafe\u0301 x\u0301y",
  "ǅemal ﬁne ½ ①",
  "code 482913, ABC-77; 1.5e3 v2.0",
];

test("tokens() gives FTS5 unicode61's words for text in several scripts", () => {
  const db = new Database(":memory:");
  db.exec(`CREATE VIRTUAL TABLE f USING fts5(x, tokenize = 'unicode61 remove_diacritics 2');
    CREATE VIRTUAL TABLE v USING fts5vocab(f, 'row');`);
  for (const text of SAMPLES) {
    db.run("DELETE FROM f");
    db.run("INSERT INTO f VALUES (?)", [text]);
    const fts5 = (db.query("SELECT term FROM v ORDER BY term").all() as { term: string }[]).map((r) => r.term);
    expect({ text, words: [...new Set(tokens(text))].sort() }).toEqual({ text, words: fts5 });
  }
  db.close();
});
