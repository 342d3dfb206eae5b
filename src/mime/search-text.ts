// The words of a message that full-text search indexes (docs/search.md): the text body, plus the
// HTML body's text when it says something else. Computed from what a message row keeps, by the
// search indexer (storage/sqlite/search-index.ts), off the path that answers the SMTP 250.
import { htmlToText } from "./html-text";

/** The body the search index holds: the text body, plus the HTML body's text when it is not the same words. */
export function searchBodyOf(text: string | null, htmlText: string | null): string {
  if (!htmlText) return text ?? "";
  if (!text) return htmlText;
  const words = (s: string) => s.replace(/\s+/g, " ").trim();
  return words(text) === words(htmlText) ? text : `${text}\n${htmlText}`;
}

/** searchBodyOf for a stored message's bodies. */
export function searchBodyOfStored(text: string | null, html: string | null): string {
  return searchBodyOf(text, html ? htmlToText(html) : null);
}
