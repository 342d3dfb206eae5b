// The web UI's serving side, without a browser: the page and its assets, their headers, the
// embedded bundle's freshness, and the EventSource credential on /v1/events only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, json, login, startInboxd, type Instance } from "../support/harness";
import { createInbox, nextMessage, transport } from "../support/mail";
import { FROM_SOURCE } from "../support/command";
import { UI_ASSETS } from "../../src/http/ui-assets.generated";
import { webSourceHash } from "../../src/http/ui-build";

let inst: Instance;
let embedded: Instance;
beforeAll(async () => {
  // From source, as `npm start` runs: the page is built from web/ (the suite may run on the executable: command.ts).
  [inst, embedded] = await Promise.all([startInboxd({}, undefined, FROM_SOURCE), startInboxd({ INBOXD_UI_FROM_SOURCE: "0" })]);
});
afterAll(async () => {
  await Promise.all([inst?.stop(), embedded?.stop()]);
  inst?.cleanup();
  embedded?.cleanup();
});

describe("UI assets", () => {
  test("the committed bundle (src/http/ui-assets.generated.ts) matches web/: run `npm run build:ui` after editing web/", () => {
    expect(UI_ASSETS.sourceHash).toBe(webSourceHash(join(ROOT, "web")));
  });

  test("the bundle's freshness covers the modules web/ shares with the server (the scope vocabulary)", () => {
    // A copy of web/ beside a copy of the one shared module, in the repository's layout.
    const tree = mkdtempSync(join(tmpdir(), "inboxd-ui-"));
    try {
      cpSync(join(ROOT, "web"), join(tree, "web"), { recursive: true });
      mkdirSync(join(tree, "src/tenancy"), { recursive: true });
      const shared = join(tree, "src/tenancy/scopes.ts");
      copyFileSync(join(ROOT, "src/tenancy/scopes.ts"), shared);
      const before = webSourceHash(join(tree, "web"));
      appendFileSync(shared, "\n// a change outside web/\n");
      expect(webSourceHash(join(tree, "web"))).not.toBe(before);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });

  test("/ serves the page with a strict CSP; assets are versioned, typed and cacheable", async () => {
    const r = await fetch(inst.url + "/");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = r.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    const html = await r.text();
    const js = /src="(\/ui\/app\.js\?v=[0-9a-f]{12})"/.exec(html)?.[1];
    const css = /href="(\/ui\/app\.css\?v=[0-9a-f]{12})"/.exec(html)?.[1];
    expect(js).toBeDefined();
    expect(css).toBeDefined();
    // No third-party origin anywhere: the UI works air-gapped.
    expect(html).not.toMatch(/https?:\/\//);

    const a = await fetch(inst.url + js!);
    expect(a.status).toBe(200);
    expect(a.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(a.headers.get("cache-control")).toContain("immutable");
    const body = await a.text();
    expect(body).toContain("/v1/devices");
    expect(body).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)[a-z]/i);
    const c = await fetch(inst.url + css!);
    expect(c.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(await c.text()).toContain("prefers-color-scheme: dark");
    expect((await fetch(inst.url + "/ui/favicon.svg")).headers.get("content-type")).toBe("image/svg+xml");
  });

  test("a server that does not build from source serves the embedded bundle", async () => {
    const html = await (await fetch(embedded.url + "/")).text();
    expect(html).toBe(UI_ASSETS.html);
    const js = /src="(\/ui\/app\.js[^"]*)"/.exec(html)![1]!;
    expect(await (await fetch(embedded.url + js)).text()).toBe(UI_ASSETS.js);
  });

  test("the UI routes are not part of the OpenAPI document", async () => {
    const doc = await (await fetch(inst.url + "/openapi.json")).json();
    const paths = Object.keys(doc.paths);
    expect(paths).toContain("/v1/inboxes");
    expect(paths.filter((p) => p === "/" || p.startsWith("/ui"))).toEqual([]);
  });

  test("GET /v1/events takes ?access_token and ?project (EventSource cannot send headers); no other route does", async () => {
    const token = await login(inst);
    const projects = await json(inst.api("/v1/projects", { token }));
    const project = projects.body.data[0].id;
    const ctl = new AbortController();
    const r = await fetch(`${inst.url}/v1/events?access_token=${token}&project=${project}`, { signal: ctl.signal });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/event-stream");
    ctl.abort();
    await r.body?.cancel().catch(() => {});

    const other = await json(fetch(`${inst.url}/v1/inboxes?access_token=${token}&project=${project}`));
    expect(other.status).toBe(401);
    const bad = await json(fetch(`${inst.url}/v1/events?access_token=isd_nope&project=${project}`));
    expect(bad.status).toBe(401);
    const noProject = await json(fetch(`${inst.url}/v1/events?access_token=${token}`));
    expect(noProject.status).toBe(400);
    expect(noProject.body.code).toBe("project_required");
  });

  test("PATCH /v1/messages/{id} {read} marks one message read or unread (the UI's toggle); unread_count follows", async () => {
    const inbox = await createInbox(inst, { ttl_seconds: 600 });
    const t = transport(inst);
    await t.sendMail({ from: "a@example.com", to: inbox.address, subject: "one", text: "one" });
    t.close();
    const m = await nextMessage(inst, inbox.id);
    expect(m.read).toBe(false);
    const r = await json(inst.api(`/v1/messages/${m.id}`, { method: "PATCH", json: { read: true } }));
    expect(r.status).toBe(200);
    expect(r.body.data.id).toBe(m.id);
    expect(r.body.data.read).toBe(true);
    expect((await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data.unread_count).toBe(0);
    expect((await json(inst.api(`/v1/messages/${m.id}`, { method: "PATCH", json: { read: true } }))).body.data.read).toBe(true);
    expect((await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data.unread_count).toBe(0);
    expect((await json(inst.api(`/v1/messages/${m.id}`, { method: "PATCH", json: { read: false } }))).body.data.read).toBe(false);
    expect((await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data.unread_count).toBe(1);
    expect((await json(inst.api(`/v1/messages/${m.id}`, { method: "PATCH", json: {} }))).status).toBe(422);
    expect((await json(inst.api(`/v1/messages/01ARZ3NDEKTSV4RRFFQ69G5FAV`, { method: "PATCH", json: { read: true } }))).status).toBe(404);
  });
});
