// /docs: Swagger UI served from this origin (no CDN), rendering /openapi.json, with try-it that
// sends the API key as a bearer token.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BOOTSTRAP_KEY, startInboxd, type Instance } from "../support/harness";
import { hasChromium, launch } from "../support/browser";
import { needs } from "../support/components";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd();
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

test("/docs and its assets are served from this origin", async () => {
  const page = await fetch(`${inst.url}/docs`);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toContain("text/html");
  const html = await page.text();
  expect(html).not.toMatch(/https?:\/\//);
  for (const [path, type, min] of [
    ["/docs/swagger-ui-bundle.js", "text/javascript", 500_000],
    ["/docs/swagger-ui.css", "text/css", 50_000],
    ["/docs/init.js", "text/javascript", 50],
  ] as const) {
    const r = await fetch(inst.url + path);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain(type);
    expect((await r.text()).length).toBeGreaterThan(min);
  }
  // The reference pages are not operations of the API.
  const doc = await (await fetch(`${inst.url}/openapi.json`)).json();
  expect(Object.keys(doc.paths).filter((p) => p.startsWith("/docs"))).toEqual([]);
});

const chromium = needs("chromium", hasChromium, "apt-get install chromium");

describe.skipIf(!chromium)("/docs in Chromium", () => {
  test("renders every tag, and try-it calls the API with the key from Authorize", async () => {
    const browser = await launch();
    try {
      const page = await browser.context.newPage();
      const external: string[] = [];
      page.on("request", (r) => {
        if (!r.url().startsWith(inst.url)) external.push(r.url());
      });
      await page.goto(`${inst.url}/docs`);
      await page.waitForSelector(".opblock-tag", { timeout: 20_000 });
      const tags = await page.$$eval(".opblock-tag", (els) => els.map((e) => e.getAttribute("data-tag")));
      const doc = await (await fetch(`${inst.url}/openapi.json`)).json();
      const documented = new Set<string>(
        Object.values(doc.paths).flatMap((ops: any) => Object.values(ops).flatMap((op: any) => op.tags ?? [])),
      );
      expect(documented.size).toBeGreaterThan(5);
      expect(tags.toSorted()).toEqual([...documented].sort());
      // Authorize with the API key.
      await page.click(".btn.authorize");
      const input = page.locator(".modal-ux input").first();
      await input.fill(BOOTSTRAP_KEY);
      await page.locator(".modal-ux .btn.authorize").first().click();
      await page.locator(".modal-ux .btn-done").first().click();
      // Try GET /v1/usage.
      const op = page.locator("#operations-usage-getUsage");
      await op.locator(".opblock-summary").click();
      // tryItOutEnabled: the operation opens in try-it mode.
      const answer = page.waitForResponse((r) => r.url().endsWith("/v1/usage"), { timeout: 15_000 });
      await op.locator(".execute").click();
      expect((await answer).status()).toBe(200);
      expect(external).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
