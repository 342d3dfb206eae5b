// The HTML body served by the API: sender-written HTML made inert (no script, no active
// elements, no dangerous URLs) and, with remote=strip, unable to load anything from the network.
// Policy in docs/parsing.md. Bump SANITIZER_VERSION whenever the output for some input changes.
import { all as KNOWN_CSS_PROPERTIES } from "known-css-properties";
import safeParse from "postcss-safe-parser";
import { Parser } from "htmlparser2";
import sanitize from "sanitize-html";

// 2: only known CSS properties are kept; remote content dropped with its element is counted.
export const SANITIZER_VERSION = 2;

export const DEFAULT_MAX_HTML_BYTES = 2 * 1024 * 1024;

/** What a blocked remote image shows instead: a 1x1 transparent GIF. */
export const BLOCKED_IMAGE_PLACEHOLDER = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";

export interface SanitizeResult {
  html: string;
  remote_blocked: number;
  truncated: boolean;
  sanitizer_version: number;
}

export interface SanitizeOptions {
  remote: "strip" | "allow";
  maxBytes?: number;
}

const ALLOWED_TAGS = [
  "a",
  "abbr",
  "address",
  "article",
  "aside",
  "b",
  "bdi",
  "bdo",
  "big",
  "blockquote",
  "br",
  "caption",
  "center",
  "cite",
  "code",
  "col",
  "colgroup",
  "dd",
  "del",
  "details",
  "dfn",
  "div",
  "dl",
  "dt",
  "em",
  "figcaption",
  "figure",
  "font",
  "footer",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hr",
  "i",
  "img",
  "ins",
  "kbd",
  "li",
  "link",
  "main",
  "mark",
  "ol",
  "p",
  "pre",
  "q",
  "s",
  "samp",
  "section",
  "small",
  "span",
  "strike",
  "strong",
  "style",
  "sub",
  "summary",
  "sup",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "time",
  "tr",
  "tt",
  "u",
  "ul",
  "var",
  "wbr",
];
const ALLOWED = new Set(ALLOWED_TAGS);

const GLOBAL_ATTRS = [
  "style",
  "class",
  "id",
  "title",
  "dir",
  "lang",
  "align",
  "valign",
  "width",
  "height",
  "bgcolor",
  "color",
  "border",
  "role",
  "aria-*",
];

// Tags whose text content must not show up once the tag itself is dropped.
const NON_TEXT_TAGS = [
  "script",
  "style",
  "textarea",
  "option",
  "noscript",
  "title",
  "xmp",
  "noembed",
  "noframes",
  "template",
  "iframe",
  "object",
  "svg",
  "math",
  "select",
  "applet",
];

// CSS properties a mail may keep: the known ones (known-css-properties, browsers' and the specs'
// names) and Outlook's mso-*, minus the old script hooks. Anything else ("xss:expression(…)", a
// property split by a comment) goes with its declaration.
const CSS_PROPERTIES = new Set<string>(KNOWN_CSS_PROPERTIES);
for (const hook of ["behavior", "-ms-behavior", "-moz-binding"]) CSS_PROPERTIES.delete(hook);
const keepProperty = (prop: string) => {
  const p = prop.toLowerCase();
  return CSS_PROPERTIES.has(p) || /^mso-[a-z][a-z-]*$/.test(p);
};

/** The CSS with every declaration of an unknown property removed (malformed CSS parsed leniently). */
function knownPropertiesOnly(css: string): string {
  const root = safeParse(css);
  root.walkDecls((d) => {
    if (!keepProperty(d.prop)) d.remove();
  });
  return root.toString();
}

// Attributes through which an element loads remote content; an element dropped whole (video,
// audio, an SVG image, an iframe …) takes its remote content with it, and that is counted.
const CONTENT_URL_ATTRS = ["src", "srcset", "poster", "data", "background", "xlink:href"];
const HREF_LOADS = new Set(["image", "use", "feimage", "script", "embed"]);

/** The attributes through which this element loads content (the link check reads them too). */
export function contentUrlAttributes(tagName: string): readonly string[] {
  return HREF_LOADS.has(tagName.toLowerCase()) ? [...CONTENT_URL_ATTRS, "href"] : CONTENT_URL_ATTRS;
}

/** Whether this element, dropped whole, would have loaded remote content. */
function loadsRemoteContent(tagName: string, attribs: Record<string, string>): boolean {
  return contentUrlAttributes(tagName).some((n) => attribs[n] !== undefined && isRemote(attribs[n]!));
}

const REMOTE = /^\s*(?:https?:)?\/\//i;
const SAFE_DATA_IMAGE = /^\s*data:image\/(?:png|gif|jpe?g|webp|bmp|avif);/i;

function isRemote(url: string): boolean {
  return REMOTE.test(url);
}

/** CSS hex escapes (`\3c `, `\000065`) decoded, so that obfuscated keywords are seen as written. */
function decodeCssEscapes(css: string): string {
  return css.replace(/\\([0-9a-fA-F]{1,6})\s?|\\([^\n0-9a-fA-F])/g, (_m, hex: string | undefined, ch: string | undefined) => {
    if (hex === undefined) return ch ?? "";
    const cp = parseInt(hex, 16);
    return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : "\ufffd";
  });
}

/**
 * Neutralises CSS: legacy script vectors (expression(), behavior, -moz-binding, javascript:),
 * and, with strip, every remote url()/image-set()/@import, each counted once.
 */
export function cleanCss(css: string, remote: "strip" | "allow"): { css: string; blocked: number } {
  let blocked = 0;
  let out = css.includes("\\") ? decodeCssEscapes(css) : css;
  out = out.replace(/\/\*[\s\S]*?(?:\*\/|$)/g, " ");
  out = out.replace(/@import\s+(?:url\(\s*)?(['"]?)([^'");]*)\1\s*\)?[^;]*;?/gi, (m, _q, url: string) => {
    if (remote === "allow" && /^\s*https?:\/\//i.test(url)) return m;
    blocked++;
    return "";
  });
  out = out.replace(/(?:-webkit-)?image-set\(([^)]*(?:\([^)]*\)[^)]*)*)\)/gi, (m, inner: string) => {
    if (!/(?:https?:)?\/\//i.test(inner)) return m;
    if (remote === "allow" && !/javascript:|vbscript:/i.test(inner)) return m;
    blocked++;
    return "none";
  });
  out = out.replace(/url\(\s*(['"]?)([\s\S]*?)\1\s*\)/gi, (m, _q, url: string) => {
    const u = url.trim();
    if (isRemote(u)) {
      if (remote === "allow" && /^https?:\/\//i.test(u)) return m;
      blocked++;
      return "none";
    }
    if (SAFE_DATA_IMAGE.test(u) || /^cid:/i.test(u)) return m;
    return "none";
  });
  out = knownPropertiesOnly(out)
    .replace(/expression\s*\(/gi, "removed(")
    .replace(/(?:-moz-binding|behavior|-ms-behavior)\s*:/gi, "removed:")
    .replace(/(?:javascript|vbscript|livescript)\s*:/gi, "removed:");
  return { css: out, blocked };
}

function policy(remote: "strip" | "allow", counter: { blocked: number }): sanitize.IOptions {
  const transformAll = (tagName: string, attribs: sanitize.Attributes): sanitize.Tag => {
    if (tagName === "link") {
      // Remote stylesheets are the only <link> kept, and only with remote=allow; the
      // exclusiveFilter below drops every <link> left without an href.
      const isSheet = /(?:^|\s)stylesheet(?:\s|$)/i.test(attribs.rel ?? "");
      const href = (attribs.href ?? "").trim();
      if (isSheet && remote === "allow" && /^https?:\/\//i.test(href)) {
        return { tagName, attribs: { rel: "stylesheet", href, ...(attribs.media ? { media: attribs.media } : {}) } };
      }
      if (isSheet && isRemote(href)) counter.blocked++;
      return { tagName, attribs: {} };
    }
    if (!ALLOWED.has(tagName)) {
      if (loadsRemoteContent(tagName, attribs)) counter.blocked++;
      return { tagName, attribs };
    }
    const a: sanitize.Attributes = { ...attribs };
    if (a.style !== undefined) {
      const { css, blocked } = cleanCss(a.style, remote);
      counter.blocked += blocked;
      a.style = css;
    }
    if (a.background !== undefined) {
      const bg = a.background.trim();
      if (isRemote(bg)) {
        if (remote === "strip" || !/^https?:\/\//i.test(bg)) {
          counter.blocked++;
          delete a.background;
        }
      } else if (!/^cid:/i.test(bg)) {
        delete a.background;
      }
    }
    if (tagName === "img") {
      const src = (a.src ?? "").trim();
      if (isRemote(src)) {
        if (remote === "strip" || !/^https?:\/\//i.test(src)) {
          counter.blocked++;
          a["data-blocked-src"] = src;
          a.src = BLOCKED_IMAGE_PLACEHOLDER;
        }
      } else if (src && !/^cid:/i.test(src) && !SAFE_DATA_IMAGE.test(src)) {
        delete a.src;
      }
      if (a.srcset !== undefined && remote === "strip" && /(?:https?:)?\/\//i.test(a.srcset)) {
        counter.blocked++;
        delete a.srcset;
      }
    }
    if (tagName === "a") {
      const href = (a.href ?? "").replace(/[\t\r\n]/g, "").trim();
      if (href && !/^(?:https?:|mailto:|tel:|#)/i.test(href)) delete a.href;
      a.target = "_blank";
      a.rel = "noopener noreferrer";
    }
    return { tagName, attribs: a };
  };

  return {
    allowedTags: ALLOWED_TAGS,
    allowVulnerableTags: true, // <style>: its content is cleaned by cleanCss after the pass
    allowedAttributes: {
      "*": GLOBAL_ATTRS,
      a: ["href", "name", "target", "rel"],
      img: ["src", "srcset", "sizes", "alt", "data-blocked-src", "hspace", "vspace"],
      table: ["background", "cellpadding", "cellspacing", "summary"],
      td: ["background", "colspan", "rowspan", "nowrap", "scope", "abbr"],
      th: ["background", "colspan", "rowspan", "nowrap", "scope", "abbr"],
      tr: ["background"],
      div: ["background"],
      font: ["face", "size", "color"],
      col: ["span"],
      colgroup: ["span"],
      ol: ["start", "type", "reversed"],
      ul: ["type"],
      li: ["value"],
      link: ["rel", "href", "media"],
      style: ["media", "type"],
      time: ["datetime"],
      q: ["cite"],
      blockquote: ["cite"],
      del: ["cite", "datetime"],
      ins: ["cite", "datetime"],
    },
    allowedSchemes: ["http", "https", "mailto", "tel"],
    allowedSchemesByTag: {
      img: ["http", "https", "cid", "data"],
      td: ["http", "https", "cid"],
      th: ["http", "https", "cid"],
      table: ["http", "https", "cid"],
    },
    allowedSchemesAppliedToAttributes: ["href", "src", "cite", "background"],
    allowProtocolRelative: false,
    disallowedTagsMode: "discard",
    nonTextTags: NON_TEXT_TAGS,
    parseStyleAttributes: false,
    exclusiveFilter: (frame) => frame.tag === "link" && !frame.attribs.href,
    transformTags: {
      // Email bodies put backgrounds and colours on <body>; keep them on a wrapper.
      body: (_tag, attribs) => ({ tagName: "div", attribs }),
      "*": transformAll,
    },
  };
}

/**
 * Remote content inside <svg> and <math>, which are dropped whole without their insides being
 * visited (nonTextTags): an <image href>, a <use xlink:href>, … one count per element.
 */
function remoteInsideDroppedSubtrees(html: string): number {
  if (!/<(?:svg|math)\b/i.test(html)) return 0;
  let depth = 0;
  let count = 0;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === "svg" || name === "math") depth++;
        else if (depth > 0 && loadsRemoteContent(name, attribs)) count++;
      },
      onclosetag(name) {
        if ((name === "svg" || name === "math") && depth > 0) depth--;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
  );
  parser.write(html);
  parser.end();
  return count;
}

/** Cuts at maxBytes (UTF-8) so that no tag, entity or character is cut in half. */
function truncateHtml(html: string, maxBytes: number): { html: string; truncated: boolean } {
  const bytes = Buffer.byteLength(html, "utf8");
  if (bytes <= maxBytes) return { html, truncated: false };
  let cut = Buffer.from(html, "utf8").subarray(0, maxBytes).toString("utf8");
  if (cut.endsWith("\ufffd")) cut = cut.slice(0, -1);
  // Inside a tag (a "<" after the last ">") the whole tag goes; text is cut where it is.
  const lt = cut.lastIndexOf("<");
  if (lt > cut.lastIndexOf(">")) cut = cut.slice(0, lt);
  const amp = cut.lastIndexOf("&");
  if (amp >= 0 && !cut.slice(amp).includes(";")) cut = cut.slice(0, amp);
  return { html: cut, truncated: true };
}

export function sanitizeHtml(html: string, opts: SanitizeOptions): SanitizeResult {
  const counter = { blocked: remoteInsideDroppedSubtrees(html ?? "") };
  let out = sanitize(html ?? "", policy(opts.remote, counter));
  // sanitize-html passes <style> text through verbatim; clean it here. In the output every
  // literal "<style" is a real tag: text and attribute values have been escaped.
  out = out.replace(/<style([^>]*)>([\s\S]*?)<\/style>/gi, (_m, attrs: string, body: string) => {
    const { css, blocked } = cleanCss(body, opts.remote);
    counter.blocked += blocked;
    return `<style${attrs}>${css.replace(/</g, "\\3c ")}</style>`;
  });
  const { html: bounded, truncated } = truncateHtml(out, opts.maxBytes ?? DEFAULT_MAX_HTML_BYTES);
  return { html: bounded, remote_blocked: counter.blocked, truncated, sanitizer_version: SANITIZER_VERSION };
}
