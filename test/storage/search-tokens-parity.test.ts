// PostgreSQL's search index is tokenized by inboxd (src/storage/postgres/search-vector.ts) so that
// it finds what SQLite's FTS5 finds. This compares the two tokenizers on text in several scripts:
// every sample's words as the SQLite engine's own index makes them (its real schema and
// tokenizer, storage/sqlite/search-index.ts) against tokens().
import { expect, test } from "bun:test";
import { tokens } from "../../src/storage/postgres/search-vector";
import { indexWordsOf } from "../../src/storage/sqlite/search-index";

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

test("tokens() gives the SQLite index's words for text in several scripts", () => {
  for (const text of SAMPLES) {
    const words = [...new Set(tokens(text))].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect({ text, words }).toEqual({ text, words: indexWordsOf(text) });
  }
});
