// Links a test wants to follow: http(s) URLs from the plain-text body and from HTML <a>/<area>
// href attributes, each with the words a reader clicks (Mailosaur's Link: {href, text}; ours is
// {url, text}). mailto:, tel:, javascript: and relative hrefs are not links in this sense
// (docs/parsing.md).
import { Parser } from "htmlparser2";

/** A link of a message: its URL and its visible anchor text ("" for a URL in running text). */
export interface Link {
  url: string;
  text: string;
}

const MAX_LINKS = 1000;
const MAX_URL_LENGTH = 8192;
/** Characters of anchor text kept (code points, after collapsing white space). */
export const MAX_LINK_TEXT = 500;

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

/** White space collapsed and trimmed, at most MAX_LINK_TEXT code points. */
function anchorText(raw: string): string {
  // Invisible fillers of e-mail preheaders count as white space: zero-width characters and U+034F.
  const t = raw.replace(/(?:\s|\u00a0|[\u200b-\u200d]|\u2060|\ufeff|\u034f)+/g, " ").trim();
  const cps = Array.from(t);
  return cps.length > MAX_LINK_TEXT ? cps.slice(0, MAX_LINK_TEXT).join("").trimEnd() : t;
}

/** Elements whose content a reader never sees as link text. */
const INVISIBLE = new Set(["script", "style", "head", "title", "template", "noscript"]);

/**
 * Every <a href> and <area href> with its visible text: the text inside the anchor, or when it has
 * none the alt text of its images (an <area>'s own alt). An anchor still open when the next one
 * starts (or the document ends) is closed there, as a browser would.
 */
function fromHtml(html: string, push: (href: string, text: string) => void): void {
  let open: { href: string; text: string; alt: string } | null = null;
  let hidden = 0;
  const close = () => {
    if (open) push(open.href, anchorText(open.text) || anchorText(open.alt));
    open = null;
  };
  // Enough raw text to fill MAX_LINK_TEXT after collapsing; the rest of a huge anchor is not kept.
  const room = (s: string) => s.length < MAX_LINK_TEXT * 8;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (INVISIBLE.has(name)) hidden++;
        if (name === "a") {
          close();
          // Browsers drop ASCII tab/newline anywhere in a URL and trim surrounding whitespace.
          if (attribs.href !== undefined) open = { href: attribs.href.replace(/[\t\r\n]/g, "").trim(), text: "", alt: "" };
        } else if (name === "area" && attribs.href !== undefined) {
          push(attribs.href.replace(/[\t\r\n]/g, "").trim(), anchorText(attribs.alt ?? ""));
        } else if (name === "img" && open && attribs.alt && room(open.alt)) {
          open.alt += ` ${attribs.alt}`;
        } else if (open && (name === "br" || name === "p" || name === "div" || name === "td" || name === "li")) {
          open.text += " ";
        }
      },
      ontext(text) {
        if (open && hidden === 0 && room(open.text)) open.text += text;
      },
      onclosetag(name) {
        if (INVISIBLE.has(name) && hidden > 0) hidden--;
        if (name === "a") close();
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  close();
}

/**
 * Distinct http(s) URLs with their anchor text, text body first then HTML hrefs, in order of first
 * appearance. A URL seen more than once keeps the first non-empty text.
 */
export function extractLinks(text: string | null, html: string | null): Link[] {
  const byUrl = new Map<string, Link>();
  const push = (candidate: string, linkText: string, fromText: boolean) => {
    // Only running text gets punctuation trimmed; an href is exactly what the sender wrote.
    const url = fromText ? trimTrailing(candidate) : candidate;
    if (!/^https?:\/\//i.test(url)) return;
    const seen = byUrl.get(url);
    if (seen) {
      if (seen.text === "" && linkText !== "") seen.text = linkText;
      return;
    }
    if (byUrl.size >= MAX_LINKS || !acceptable(url)) return;
    byUrl.set(url, { url, text: linkText });
  };
  if (text) for (const m of text.matchAll(TEXT_URL)) push(m[0], "", true);
  if (html) fromHtml(html, (u, t) => push(u, t, false));
  return [...byUrl.values()];
}

/**
 * The stored `links` column as links: rows written before links carried their text hold a JSON
 * array of URL strings, which read as {url, text: ""}.
 */
export function readLinks(json: string | null | undefined): Link[] {
  if (!json) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  const out: Link[] = [];
  for (const l of parsed) {
    if (typeof l === "string") out.push({ url: l, text: "" });
    else if (l && typeof l === "object" && typeof (l as Link).url === "string") {
      out.push({ url: (l as Link).url, text: typeof (l as Link).text === "string" ? (l as Link).text : "" });
    }
  }
  return out;
}
