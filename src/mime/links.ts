// Links a test wants to follow: http(s) URLs from the plain-text body and from HTML <a>/<area>
// href attributes. mailto:, tel:, javascript: and relative hrefs are not links in this sense
// (docs/parsing.md).
import { Parser } from "htmlparser2";

const MAX_LINKS = 1000;
const MAX_URL_LENGTH = 8192;

// A URL in running text ends at whitespace or at characters that cannot appear unescaped in one.
const TEXT_URL = /\bhttps?:\/\/[^\s<>"`{}|\\^\u00a0\u2000-\u200b\u3000]+/gi;
const TRAILING = /[.,;:!?'"\u2019\u201d>*_~]+$/;

/** Drops sentence punctuation and unbalanced closing brackets that text puts after a URL. */
function trimTrailing(url: string): string {
  let u = url;
  for (;;) {
    const before = u;
    u = u.replace(TRAILING, "");
    for (const [open, close] of [
      ["(", ")"],
      ["[", "]"],
    ] as const) {
      while (u.endsWith(close) && count(u, open) < count(u, close)) u = u.slice(0, -1);
    }
    if (u === before) return u;
  }
}

function count(s: string, ch: string): number {
  let n = 0;
  for (const c of s) if (c === ch) n++;
  return n;
}

function acceptable(url: string): boolean {
  if (url.length > MAX_URL_LENGTH) return false;
  try {
    const u = new URL(url);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname.length > 0;
  } catch {
    return false;
  }
}

function fromHtml(html: string, push: (u: string) => void): void {
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if ((name === "a" || name === "area") && attribs.href) {
          // Browsers drop ASCII tab/newline anywhere in a URL and trim surrounding whitespace.
          push(attribs.href.replace(/[\t\r\n]/g, "").trim());
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
}

/** Distinct http(s) URLs, text body first then HTML hrefs, in order of first appearance. */
export function extractLinks(text: string | null, html: string | null): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const push = (candidate: string, fromText: boolean) => {
    if (out.length >= MAX_LINKS) return;
    // Only running text gets punctuation trimmed; an href is exactly what the sender wrote.
    const url = fromText ? trimTrailing(candidate) : candidate;
    if (!/^https?:\/\//i.test(url) || seen.has(url) || !acceptable(url)) return;
    seen.add(url);
    out.push(url);
  };
  if (text) for (const m of text.matchAll(TEXT_URL)) push(m[0], true);
  if (html) fromHtml(html, (u) => push(u, false));
  return out;
}
