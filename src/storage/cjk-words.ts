// Chinese and Japanese write words without spaces between them (and Korean joins particles to its
// words), so the full-text index's rule, a word is the letters and digits between two separators
// (FTS5 unicode61 on SQLite, postgres/search-vector.ts), made a whole run one word: "日本語の件名"
// was found by itself or its start only, never by "件名". Both engines index each such character as
// a word of its own, and a query's run becomes the phrase of its characters, so a run is found
// wherever it appears in the text, as a substring search (Mailpit's) finds it. Pure.

/** Han, kana, Hangul, and the marks written inside their words (々, 〆, ー). */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3005\u3006\u30fc\uff70]/u;
const EACH_CJK = new RegExp(CJK.source, "gu");

/** The text with every CJK character set apart by spaces: a word of its own for any tokenizer. */
export function spaceCjk(text: string): string {
  return CJK.test(text) ? text.replace(EACH_CJK, " $& ") : text;
}
