// Which caniemail features an HTML body uses (docs/analysis.md, "HTML and CSS support"): the
// slugs of caniemail's data (css-display-flex, html-svg, image-webp, ...) found in the markup,
// its inline styles and its <style> sheets. Why our own matcher and not the caniemail package's
// checker: docs/decisions.md. One streaming parse, then one tolerant CSS parse per sheet; a
// ~100 KB mail takes milliseconds.
import { Parser } from "htmlparser2";
import type { AtRule, ChildNode, Declaration, Rule } from "postcss";
import safeParse from "postcss-safe-parser";

/** Features named after an element: the slug's tag, or these tags. */
const ELEMENTS: Record<string, string[]> = {
  "html-h1-h6": ["h1", "h2", "h3", "h4", "h5", "h6"],
  "html-lists": ["ul", "ol", "dl"],
  "html-semantics": [
    "article",
    "aside",
    "details",
    "figcaption",
    "figure",
    "footer",
    "header",
    "main",
    "mark",
    "nav",
    "section",
    "summary",
    "time",
  ],
  "html-image-maps": ["map", "area"],
};
const ELEMENT_SLUGS = new Set(
  "abbr acronym address audio base bdi blockquote body code del dfn dialog div form hr img link marquee meter object p picture pre progress rp rt ruby select small span strike strong style svg table textarea video wbr"
    .split(" ")
    .map((t) => `html-${t}`),
);
/** Features named after an attribute, on any element. */
const ATTRIBUTES: Record<string, string> = {
  align: "html-align",
  background: "html-background",
  cellpadding: "html-cellpadding",
  cellspacing: "html-cellspacing",
  dir: "html-dir",
  height: "html-height",
  hidden: "html-hidden",
  lang: "html-lang",
  role: "html-role",
  srcset: "html-srcset",
  target: "html-target",
  valign: "html-valign",
  width: "html-width",
  loading: "html-loading-attribute",
  required: "html-required",
  popover: "html-popover",
  inert: "css-inert-attribute",
  usemap: "html-image-maps",
  "aria-describedby": "html-aria-describedby",
  "aria-hidden": "html-aria-hidden",
  "aria-label": "html-aria-label",
  "aria-labelledby": "html-aria-labelledby",
  "aria-live": "html-aria-live",
  "⚡4email": "amp",
  amp4email: "amp",
};
const IMAGE_TYPES: Record<string, string> = {
  png: "image-png",
  jpg: "image-jpg",
  jpeg: "image-jpg",
  gif: "image-gif",
  webp: "image-webp",
  svg: "image-svg",
  avif: "image-avif",
  bmp: "image-bmp",
  ico: "image-ico",
  tif: "image-tiff",
  tiff: "image-tiff",
  heif: "image-heif",
  heic: "image-heif",
  hdr: "image-hdr",
  apng: "image-apng",
  mp4: "image-mp4",
};

/** Properties a slug stands for besides the one it is named after (css-margin: margin-top, ...). */
const SIDES = ["top", "right", "bottom", "left"];
const PROPERTIES: Record<string, string[]> = {
  "css-left-right-top-bottom": SIDES,
  "css-margin": SIDES.map((s) => `margin-${s}`),
  "css-padding": SIDES.map((s) => `padding-${s}`),
  "css-border": SIDES.map((s) => `border-${s}`),
  "css-grid-template": ["grid-template", "grid-template-columns", "grid-template-rows", "grid-template-areas"],
  "css-column-layout-properties": ["column-gap", "column-rule", "column-span", "column-fill", "column-width", "columns"],
  "css-block-inline-size": ["block-size"],
  "css-margin-block-start-end": ["margin-block-start", "margin-block-end"],
  "css-margin-inline-start-end": ["margin-inline-start", "margin-inline-end"],
  "css-margin-inline-block": ["margin-inline", "margin-block"],
  "css-padding-block-start-end": ["padding-block-start", "padding-block-end"],
  "css-padding-inline-start-end": ["padding-inline-start", "padding-inline-end"],
  "css-padding-inline-block": ["padding-inline", "padding-block"],
  "css-border-inline-block": ["border-inline", "border-block"],
  "css-scroll-snap": ["scroll-snap-type", "scroll-snap-align", "scroll-snap-stop"],
  "css-intrinsic-size": ["contain-intrinsic-size"],
  "css-gap": ["row-gap", "column-gap"],
};
/** Features found in a declaration's value. */
const VALUES: Array<[string, RegExp]> = [
  ["css-function-clamp", /\bclamp\(/i],
  ["css-function-max", /\bmax\(/i],
  ["css-function-min", /\bmin\(/i],
  ["css-function-light-dark", /\blight-dark\(/i],
  ["css-unit-calc", /\bcalc\(/i],
  ["css-linear-gradient", /linear-gradient\(/i],
  ["css-radial-gradient", /radial-gradient\(/i],
  ["css-conic-gradient", /conic-gradient\(/i],
  ["css-rgb", /\brgb\(/i],
  ["css-rgba", /\brgba\(/i],
  ["css-modern-color", /\b(?:oklch|oklab|lch|lab|hwb|color)\(/i],
  ["css-variables", /\bvar\(--/i],
  ["css-sytem-ui", /\bsystem-ui\b/i],
  ["css-important", /!\s*important/i],
  ["css-unit-initial", /^\s*initial\s*$/i],
  ["css-unit-percent", /\d%/],
];
const UNITS = ["ch", "cm", "em", "ex", "in", "mm", "pc", "pt", "px", "rem", "vh", "vmax", "vmin", "vw"];
const UNIT_RE = new RegExp(`(?:^|[^a-z0-9-])[0-9]*\\.?[0-9]+(${UNITS.join("|")})\\b`, "gi");
const MEDIA_FEATURES: Array<[string, RegExp]> = [
  ["css-at-media-prefers-color-scheme", /prefers-color-scheme/i],
  ["css-at-media-prefers-reduced-motion", /prefers-reduced-motion/i],
  ["css-at-media-orientation", /\borientation\b/i],
  ["css-at-media-hover", /\(\s*hover\b/i],
  ["css-at-media-device-pixel-ratio", /device-pixel-ratio|\bresolution\b/i],
];
const PSEUDO_ELEMENTS = ["after", "before", "first-letter", "first-line", "marker", "placeholder"];

/** The caniemail feature slugs the HTML uses, limited to those `known` has. */
export function htmlFeatures(html: string, known: ReadonlySet<string>): Set<string> {
  const found = new Set<string>();
  const sheets: string[] = [];
  const inline: string[] = [];
  let inStyle = false;
  let styleText = "";
  const parser = new Parser(
    {
      onprocessinginstruction(name) {
        if (name.toLowerCase() === "!doctype") found.add("html-doctype");
      },
      oncomment() {
        found.add("html-comments");
      },
      onopentag(tag, attrs) {
        element(tag, attrs, found, inline);
        if (tag === "style") {
          inStyle = true;
          styleText = "";
        }
      },
      ontext(text) {
        if (inStyle) styleText += text;
      },
      onclosetag(tag) {
        if (tag === "style" && inStyle) {
          inStyle = false;
          sheets.push(styleText);
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  for (const style of inline) declarations(parseCss(`x{${style}}`), found);
  for (const sheet of sheets) stylesheet(parseCss(sheet), found);
  for (const slug of [...found]) if (!known.has(slug)) found.delete(slug);
  // Properties are matched by name against every css- slug, so only real ones survive.
  return found;
}

function element(tag: string, attrs: Record<string, string>, found: Set<string>, inline: string[]): void {
  if (ELEMENT_SLUGS.has(`html-${tag}`)) found.add(`html-${tag}`);
  for (const [slug, tags] of Object.entries(ELEMENTS)) if (tags.includes(tag)) found.add(slug);
  for (const name of Object.keys(attrs)) {
    const slug = ATTRIBUTES[name];
    if (slug) found.add(slug);
  }
  const type = (attrs.type ?? "").toLowerCase();
  if (tag === "input" && ["checkbox", "hidden", "radio", "reset", "submit", "text"].includes(type)) found.add(`html-input-${type}`);
  if (tag === "button" && (type === "reset" || type === "submit")) found.add(`html-button-${type}`);
  if (tag === "meta" && /^(?:color-scheme|supported-color-schemes)$/i.test(attrs.name ?? "")) found.add("html-meta-color-scheme");
  if (tag === "a" && attrs.href !== undefined) {
    const href = attrs.href.trim().toLowerCase();
    if (href.startsWith("#")) found.add("html-anchor-links");
    if (href.startsWith("mailto:")) found.add("html-mailto-links");
  }
  if (tag === "img" && attrs.src) image(attrs.src, found);
  if (attrs.srcset) for (const part of attrs.srcset.split(",")) image(part.trim().split(/\s+/)[0] ?? "", found);
  if (attrs.style) inline.push(attrs.style);
}

function image(url: string, found: Set<string>): void {
  const u = url.trim().toLowerCase();
  if (u.startsWith("data:")) {
    found.add("image-base64");
    const m = /^data:image\/([a-z+-]+)/.exec(u);
    const t = m?.[1] === "svg+xml" ? "svg" : m?.[1];
    if (t && IMAGE_TYPES[t]) found.add(IMAGE_TYPES[t]);
    return;
  }
  const ext = /\.([a-z0-9]{2,5})(?:[?#]|$)/.exec(u)?.[1];
  if (ext && IMAGE_TYPES[ext]) found.add(IMAGE_TYPES[ext]);
}

function parseCss(css: string): ChildNode[] {
  try {
    return safeParse(css).nodes as ChildNode[];
  } catch {
    return []; // safe-parser recovers from nearly anything; what it cannot read uses no feature we can name
  }
}

function stylesheet(nodes: ChildNode[], found: Set<string>, nested = false): void {
  for (const node of nodes) {
    if (node.type === "comment") found.add("css-comments");
    else if (node.type === "atrule") atRule(node, found);
    else if (node.type === "rule") {
      if (nested) found.add("css-nesting");
      selectors(node, found);
      declarations(node.nodes, found);
      stylesheet(
        node.nodes.filter((n) => n.type === "rule" || n.type === "atrule"),
        found,
        true,
      );
    }
  }
}

function atRule(node: AtRule, found: Set<string>): void {
  const name = node.name.toLowerCase();
  found.add(`css-at-${name}`);
  if (name === "media") for (const [slug, re] of MEDIA_FEATURES) if (re.test(node.params)) found.add(slug);
  if (node.nodes) {
    declarations(node.nodes, found);
    stylesheet(node.nodes, found);
  }
}

function declarations(nodes: ChildNode[], found: Set<string>): void {
  for (const node of nodes) {
    if (node.type === "comment") found.add("css-comments");
    else if (node.type === "rule")
      declarations(node.nodes, found); // the x{...} wrapper of an inline style
    else if (node.type === "decl") declaration(node, found);
  }
}

function declaration(d: Declaration, found: Set<string>): void {
  const prop = d.prop.toLowerCase();
  const value = d.value;
  if (prop.startsWith("--")) found.add("css-variables");
  found.add(`css-${prop}`);
  for (const [slug, props] of Object.entries(PROPERTIES)) if (props.includes(prop)) found.add(slug);
  if (d.important) found.add("css-important");
  if (prop === "display") {
    const v = value.trim().toLowerCase();
    if (v === "flex" || v === "inline-flex") found.add("css-display-flex");
    if (v === "grid" || v === "inline-grid") found.add("css-display-grid");
    if (v === "none") found.add("css-display-none");
  }
  if (prop === "background" && /url\(/i.test(value)) found.add("css-background-image");
  for (const [slug, re] of VALUES) if (re.test(value)) found.add(slug);
  for (const m of value.matchAll(UNIT_RE)) found.add(`css-unit-${m[1]!.toLowerCase()}`);
  for (const m of value.matchAll(/url\(\s*['"]?([^'")]+)/gi)) image(m[1]!, found);
}

function selectors(rule: Rule, found: Set<string>): void {
  for (const raw of rule.selectors) {
    if (raw.includes("&")) found.add("css-nesting");
    // Arguments of :not(), :nth-child(2n+1) ... are not combinators.
    const s = raw.replace(/\([^()]*\)/g, "()").trim();
    for (const m of s.matchAll(/(?<!:):([a-z-]+)/gi)) {
      const name = m[1]!.toLowerCase();
      if (PSEUDO_ELEMENTS.includes(name)) found.add(`css-pseudo-element-${name}`);
      else found.add(`css-pseudo-class-${name}`);
    }
    for (const m of s.matchAll(/::([a-z-]+)/gi)) found.add(`css-pseudo-element-${m[1]!.toLowerCase()}`);
    if (/#[\w-]/.test(s)) found.add("css-selector-id");
    if (/\.[a-z_-]/i.test(s)) found.add("css-selector-class");
    if (s.includes("[")) found.add("css-selector-attribute");
    if (s.includes(">")) found.add("css-selector-child");
    if (s.includes("+")) found.add("css-selector-adjacent-sibling");
    if (s.includes("~")) found.add("css-selector-general-sibling");
    if (s.includes("*")) found.add("css-selector-universal");
    const compounds = s.split(/\s*[>+~]\s*|\s+/).filter(Boolean);
    if (/[^\s>+~]\s+[^\s>+~]/.test(s)) found.add("css-selector-descendant");
    for (const c of compounds) {
      if (/^[a-z][a-z0-9]*/i.test(c)) found.add("css-selector-type");
      // More than one simple selector in a compound: a.button, .a.b, td#x
      if ((c.match(/(?:^[a-z]|[.#[])/gi) ?? []).length > 1) found.add("css-selector-chaining");
    }
  }
  if (rule.selectors.length > 1) found.add("css-selector-grouping");
}
