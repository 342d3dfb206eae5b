// What a mail's HTML loads by itself when shown with remote content allowed: images (src,
// srcset, backgrounds), stylesheets, CSS url() and @import, media posters; the same attributes
// the sanitizer blocks (mime/sanitize.ts, contentUrlAttributes). http(s) only: cid: and data:
// travel inside the mail. A protocol-relative //host/x is read as https (no page gives a base).
import { Parser } from "htmlparser2";
import { contentUrlAttributes } from "./sanitize";

const MAX_URLS = 1000;
const MAX_URL_LENGTH = 8192;

const CSS_URL = /url\(\s*(['"]?)([^'")]*)\1\s*\)/gi;
const CSS_IMPORT = /@import\s+(['"])([^'"]*)\1/gi;

function absolute(raw: string): string | null {
  const v = raw.replace(/[\t\r\n]/g, "").trim();
  const u = v.startsWith("//") ? `https:${v}` : v;
  if (!/^https?:\/\//i.test(u) || u.length > MAX_URL_LENGTH) return null;
  try {
    return new URL(u).href;
  } catch {
    return null;
  }
}

/** srcset's candidates: URLs separated by commas, each followed by an optional descriptor. */
function srcsetUrls(srcset: string): string[] {
  return srcset
    .split(/,(?=\s|$)|,(?=(?:https?:)?\/\/)/i)
    .map((c) => c.trim().split(/\s+/)[0] ?? "")
    .filter(Boolean);
}

function cssUrls(css: string): string[] {
  return [...css.matchAll(CSS_URL), ...css.matchAll(CSS_IMPORT)].sort((a, b) => a.index - b.index).map((m) => m[2]!);
}

/** Distinct http(s) URLs the HTML loads by itself, in order of first appearance. */
export function remoteContentUrls(html: string | null): string[] {
  if (!html) return [];
  const out = new Set<string>();
  const add = (raw: string) => {
    const u = absolute(raw);
    if (u && out.size < MAX_URLS) out.add(u);
  };
  // A <style> body may arrive in several text chunks: read it whole at its end tag.
  let style: string | null = null;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === "style") style = "";
        for (const a of contentUrlAttributes(name)) {
          const v = attribs[a];
          if (v === undefined) continue;
          if (a === "srcset") for (const u of srcsetUrls(v)) add(u);
          else add(v);
        }
        if (name === "link" && /(?:^|\s)stylesheet(?:\s|$)/i.test(attribs.rel ?? "") && attribs.href) add(attribs.href);
        if (attribs.style) for (const u of cssUrls(attribs.style)) add(u);
      },
      ontext(text) {
        if (style !== null && style.length < 1_000_000) style += text;
      },
      onclosetag(name) {
        if (name === "style" && style !== null) {
          for (const u of cssUrls(style)) add(u);
          style = null;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
  );
  parser.write(html);
  parser.end();
  return [...out];
}
