// What the link check counts as content an HTML mail loads by itself (src/mime/remote-content.ts):
// the attributes the sanitizer blocks, srcset candidates, stylesheets, CSS url() and @import;
// http(s) only (cid: and data: travel inside the mail), each URL once.
import { expect, test } from "bun:test";
import { remoteContentUrls } from "../../src/mime/remote-content";

test("images, backgrounds, srcset, stylesheets and CSS urls, in order and each once", () => {
  const html = `<html><head><link rel="stylesheet" href="https://cdn.example/mail.css">
    <style>@import "https://cdn.example/fonts.css"; .hero { background: url('https://img.example/hero.jpg') }</style></head>
    <body background="https://img.example/body.png">
    <img src="https://img.example/logo.png" srcset="https://img.example/logo@2x.png 2x, https://img.example/logo@3x.png 3x">
    <div style="background-image:url(https://img.example/div.png)">x</div>
    <video poster="//media.example/poster.jpg"></video>
    <img src="https://img.example/logo.png">
    <img src="cid:logo@mail"><img src="data:image/png;base64,AAAA"><img src="/relative.png">
    <a href="https://shop.example/">a link is not content</a>
    <svg><image href="https://img.example/svg.png"/></svg></body></html>`;
  expect(remoteContentUrls(html)).toEqual([
    "https://cdn.example/mail.css",
    "https://cdn.example/fonts.css",
    "https://img.example/hero.jpg",
    "https://img.example/body.png",
    "https://img.example/logo.png",
    "https://img.example/logo@2x.png",
    "https://img.example/logo@3x.png",
    "https://img.example/div.png",
    "https://media.example/poster.jpg",
    "https://img.example/svg.png",
  ]);
});

test("no HTML, or HTML without remote content: nothing", () => {
  expect(remoteContentUrls(null)).toEqual([]);
  expect(remoteContentUrls("<p>hello <img src='cid:x'></p>")).toEqual([]);
});
