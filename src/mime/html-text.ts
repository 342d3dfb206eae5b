// Readable text from an HTML body (code search, previews, the agent view), in linear time
// whatever the input: not a renderer, just the words in order with block breaks.
import { decodeHTML } from "entities";

/** Characters of HTML source converted (markup is most of it). */
const MAX_HTML_CHARS = 256_000;

/** Readable text of an HTML body: no head/style/script/title/comments, blocks become line breaks, entities decoded. */
export function htmlToText(html: string): string {
  if (html === lastHtml) return lastPlain;
  const s = stripElements(html.slice(0, MAX_HTML_CHARS));
  // Each pass below only runs over the part before its last possible end: a "<" or "<!--" that is
  // never closed would otherwise make the regex retry to the end from each of them (quadratic).
  const plain = decodeHTML(
    upTo(
      upTo(
        upTo(s, "-->", (h) => h.replace(/<!--[\s\S]*?-->/g, " ")),
        ">",
        (h) => h.replace(/<(?:br|\/p|\/div|\/tr|\/h\d|\/li|\/td|\/table|hr|p|div|tr|table)\b[^>]*>/gi, "\n"),
      ),
      ">",
      (h) => h.replace(/<[^>]*>/g, " "),
    ),
  )
    .replace(/[ \t\u00a0]+/g, " ")
    .replace(/\n\s*\n\s*/g, "\n\n");
  lastHtml = html;
  lastPlain = plain;
  return plain;
}

// parse.ts asks for the preview text of an HTML-only message, then extractCodes for the same body.
let lastHtml: string | null = null;
let lastPlain = "";

/** Applies f to s up to the end of the last `close` in it; the rest cannot match and is kept. */
function upTo(s: string, close: string, f: (head: string) => string): string {
  const last = s.lastIndexOf(close);
  if (last < 0) return s;
  const cut = last + close.length;
  return cut === s.length ? f(s) : f(s.slice(0, cut)) + s.slice(cut);
}

/**
 * Replaces <head>, <style>, <script> and <title> elements by a space, as
 * /<(head|style|script|title)\b[\s\S]*?<\/\1\s*>/gi would, in linear time: once a name has no
 * closing tag after some opener, no later opener of that name can close either.
 */
function stripElements(s: string): string {
  const opener = /<(head|style|script|title)\b/gi;
  const dead = new Set<string>();
  let out = "";
  let copied = 0;
  let m: RegExpExecArray | null;
  while ((m = opener.exec(s))) {
    const name = m[1]!.toLowerCase();
    if (dead.has(name)) {
      opener.lastIndex = m.index + 1;
      continue;
    }
    const closer = new RegExp(`<\\/${name}\\s*>`, "gi");
    closer.lastIndex = m.index + m[0].length;
    const c = closer.exec(s);
    if (!c) {
      dead.add(name);
      if (dead.size === 4) break;
      opener.lastIndex = m.index + 1;
      continue;
    }
    out += s.slice(copied, m.index) + " ";
    copied = opener.lastIndex = c.index + c[0].length;
  }
  return copied === 0 ? s : out + s.slice(copied);
}
