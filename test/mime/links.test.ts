import { describe, expect, test } from "bun:test";
import { extractLinks } from "../../src/mime/links";

describe("extractLinks", () => {
  test("text URLs with trailing punctuation trimmed, in order, deduplicated", () => {
    const text = [
      "Confirm here: https://example.com/confirm?token=abc.",
      "Docs (see https://docs.example.com/a_(b)) and https://example.com/x, or https://example.com/confirm?token=abc!",
      'Quoted "https://q.example.com/p" and <https://angle.example.com/z>;',
      "HTTP://UPPER.example.com/Path?X=1 also www.example.com and ftp://old.example.com",
      "markdown [link](https://md.example.com/page) end",
    ].join("\n");
    expect(extractLinks(text, null)).toEqual([
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
    expect(extractLinks(null, html)).toEqual([
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
        '<a href="https://example.com/2">2</a><a href="https://example.com/3">3</a>',
      ),
    ).toEqual(["https://example.com/1", "https://example.com/2", "https://example.com/3"]);
  });

  test("empty, null and link-free inputs", () => {
    expect(extractLinks(null, null)).toEqual([]);
    expect(extractLinks("", "")).toEqual([]);
    expect(extractLinks("no links here, just http:// and https://", "<p>nothing</p>")).toEqual([]);
  });

  test("unicode hosts and paths are kept as written", () => {
    expect(extractLinks("Besuche https://bücher.example/straße?q=ä heute.", null)).toEqual(["https://bücher.example/straße?q=ä"]);
  });

  test("the number of links is bounded", () => {
    const text = Array.from({ length: 1500 }, (_, i) => `https://example.com/${i}`).join(" ");
    expect(extractLinks(text, null).length).toBe(1000);
  });
});
