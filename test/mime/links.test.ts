import { describe, expect, test } from "bun:test";
import { extractLinks, MAX_LINK_TEXT, readLinks } from "../../src/mime/links";

/** The URLs alone, for the tests about which URLs are links. */
const urls = (text: string | null, html: string | null) => extractLinks(text, html).map((l) => l.url);

describe("extractLinks", () => {
  test("text URLs with trailing punctuation trimmed, in order, deduplicated", () => {
    const text = [
      "Confirm here: https://example.com/confirm?token=abc.",
      "Docs (see https://docs.example.com/a_(b)) and https://example.com/x, or https://example.com/confirm?token=abc!",
      'Quoted "https://q.example.com/p" and <https://angle.example.com/z>;',
      "HTTP://UPPER.example.com/Path?X=1 also www.example.com and ftp://old.example.com",
      "markdown [link](https://md.example.com/page) end",
    ].join("\n");
    expect(urls(text, null)).toEqual([
      "https://example.com/confirm?token=abc",
      "https://docs.example.com/a_(b)",
      "https://example.com/x",
      "https://q.example.com/p",
      "https://angle.example.com/z",
      "HTTP://UPPER.example.com/Path?X=1",
      "https://md.example.com/page",
    ]);
  });

  test("HTML hrefs are entity-decoded; mailto, tel, javascript and relative hrefs are not links", () => {
    const html = `
      <a href="https://example.com/a?x=1&amp;y=2">a</a>
      <A HREF='https://example.com/b?q=&quot;z&quot;'>b</A>
      <a href="mailto:help@example.com">mail</a>
      <a href="tel:+15550100">call</a>
      <a href="javascript:alert(1)">js</a>
      <a href="/relative/path">rel</a>
      <a href=" https://example.com/c
        ">c</a>
      <map><area href="https://example.com/area"></map>
      <img src="https://example.com/not-a-link.png">
      <a href="https://example.com/a?x=1&y=2">dup</a>`;
    expect(urls(null, html)).toEqual([
      "https://example.com/a?x=1&y=2",
      'https://example.com/b?q="z"',
      "https://example.com/c",
      "https://example.com/area",
    ]);
  });

  test("text links come first, then HTML hrefs; one list without duplicates", () => {
    expect(
      extractLinks(
        "Go to https://example.com/1 or https://example.com/2.",
        '<a href="https://example.com/2">two</a><a href="https://example.com/3">three</a>',
      ),
    ).toEqual([
      { url: "https://example.com/1", text: "" },
      { url: "https://example.com/2", text: "two" },
      { url: "https://example.com/3", text: "three" },
    ]);
  });

  test("empty, null and link-free inputs", () => {
    expect(extractLinks(null, null)).toEqual([]);
    expect(extractLinks("", "")).toEqual([]);
    expect(extractLinks("no links here, just http:// and https://", "<p>nothing</p>")).toEqual([]);
    expect(extractLinks(null, '<a href="https://example.com/x">')).toEqual([{ url: "https://example.com/x", text: "" }]);
  });

  test("unicode hosts and paths are kept as written", () => {
    expect(urls("Besuche https://bücher.example/straße?q=ä heute.", null)).toEqual(["https://bücher.example/straße?q=ä"]);
  });

  test("the number of links is bounded", () => {
    const text = Array.from({ length: 1500 }, (_, i) => `https://example.com/${i}`).join(" ");
    expect(extractLinks(text, null).length).toBe(1000);
  });
});

describe("anchor text", () => {
  test("the visible text of the anchor, white space collapsed, entities decoded", () => {
    const html = `<a href="https://example.com/verify">
        Verify   your <b>email</b>&nbsp;&amp; continue
      </a><a href="https://example.com/help"><span>Help</span><br>center</a>`;
    expect(extractLinks(null, html)).toEqual([
      { url: "https://example.com/verify", text: "Verify your email & continue" },
      { url: "https://example.com/help", text: "Help center" },
    ]);
  });

  test("an image link takes its alt text; an <area> its alt; nothing visible gives an empty text", () => {
    const html = `<a href="https://example.com/logo"><img src="https://cdn.example.com/l.png" alt="Acme logo"></a>
      <a href="https://example.com/pixel"><img src="https://cdn.example.com/p.gif"></a>
      <map><area href="https://example.com/area" alt="Map region"></map>
      <a href="https://example.com/both"><img alt="icon"> Open</a>`;
    expect(extractLinks(null, html)).toEqual([
      { url: "https://example.com/logo", text: "Acme logo" },
      { url: "https://example.com/pixel", text: "" },
      { url: "https://example.com/area", text: "Map region" },
      { url: "https://example.com/both", text: "Open" },
    ]);
  });

  test("a URL seen again keeps its first place and the first non-empty text", () => {
    const links = extractLinks(
      "Confirm: https://example.com/c",
      '<a href="https://example.com/c"><img src="x.png"></a><a href="https://example.com/c">Confirm account</a><a href="https://example.com/c">Other</a>',
    );
    expect(links).toEqual([{ url: "https://example.com/c", text: "Confirm account" }]);
  });

  test("script and style inside an anchor are not text; an anchor left open ends at the next one", () => {
    const html = `<a href="https://example.com/1">One<style>.x{color:red}</style><script>var a=1</script><a href="https://example.com/2">Two`;
    expect(extractLinks(null, html)).toEqual([
      { url: "https://example.com/1", text: "One" },
      { url: "https://example.com/2", text: "Two" },
    ]);
  });

  test("the text is capped at 500 characters (code points)", () => {
    const long = "é".repeat(5_000);
    const [link] = extractLinks(null, `<a href="https://example.com/long">${long}</a>`);
    expect(Array.from(link!.text).length).toBe(MAX_LINK_TEXT);
  });

  test("stored links read back: objects as they are, old string rows as {url, text: ''}", () => {
    expect(readLinks('[{"url":"https://a.example/","text":"A"}]')).toEqual([{ url: "https://a.example/", text: "A" }]);
    expect(readLinks('["https://a.example/","https://b.example/"]')).toEqual([
      { url: "https://a.example/", text: "" },
      { url: "https://b.example/", text: "" },
    ]);
    expect(readLinks("[]")).toEqual([]);
    expect(readLinks("not json")).toEqual([]);
    expect(readLinks(null)).toEqual([]);
  });
});
