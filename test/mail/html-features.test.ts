// The matcher behind the HTML analysis (mail/html-features.ts), on its own: which caniemail
// slugs a piece of HTML uses, the cases where a naive text match would be wrong, and input
// that must not throw.
import { expect, test } from "bun:test";
import { htmlFeatures } from "../../src/mail/html-features";
import { supportData } from "../../src/mail/html-support-data";

const known = new Set(supportData().features.keys());
const used = (html: string) => htmlFeatures(html, known);

test("rules inside @media are checked; media features are named", () => {
  const f = used("<style>@media (prefers-color-scheme: dark) { .a { display: grid; } }</style>");
  expect(f).toContain("css-at-media");
  expect(f).toContain("css-at-media-prefers-color-scheme");
  expect(f).toContain("css-display-grid");
  expect(f).toContain("html-style");
});

test("selectors: pseudo-classes and combinators, but not the arguments of :nth-child(2n+1)", () => {
  const f = used("<style>tr:nth-child(2n+1) td { color: red } a.btn:hover, p::before { color: blue }</style>");
  expect(f).toContain("css-pseudo-class-nth-child");
  expect(f).toContain("css-pseudo-class-hover");
  expect(f).toContain("css-pseudo-element-before");
  expect(f).toContain("css-selector-descendant");
  expect(f).toContain("css-selector-chaining");
  expect(f).toContain("css-selector-grouping");
  expect(f).not.toContain("css-selector-adjacent-sibling");
});

test("inline styles, attributes, links and images", () => {
  const f = used(
    `<table cellpadding="0" role="presentation"><tr><td style="padding-top:4px;background:url(x.webp);width:calc(100% - 2em)">` +
      `<a href="mailto:a@b.example">mail</a><img src="data:image/png;base64,AAAA"></td></tr></table>`,
  );
  for (const slug of [
    "html-table",
    "html-cellpadding",
    "html-role",
    "css-padding",
    "css-background-image",
    "image-webp",
    "css-unit-calc",
    "css-unit-em",
    "html-mailto-links",
    "image-base64",
    "image-png",
  ]) {
    expect(f).toContain(slug);
  }
  expect(f).not.toContain("css-display-flex");
});

test("broken and hostile input gives an answer, not an exception", () => {
  for (const html of [
    "<style>.a{display:flex",
    "<div style='color:red;;;:::{'>",
    "<<<>>>",
    "<svg><style>}}}{{{</style>",
    "\u0000\uffff",
    "<style>@media{</style>",
  ]) {
    expect(() => used(html)).not.toThrow();
  }
  expect(used("<style>.a{display:flex")).toContain("css-display-flex");
});
