// GET /v1/messages/{id}/analysis/links against local HTTP servers: 200, 404, HEAD refused then
// GET, a redirect chain, a loop, a timeout, images of the HTML checked and cid:/data: left out;
// with the default INBOXD_ALLOW_INTERNAL_HTTP=off a local address is refused as private_address;
// a hanging check does not hold up other requests; answers are cached (refresh=true asks again);
// the scenario step message.check (check: links). Outcomes only, no timings. The guard itself
// (redirects re-checked, credentials not forwarded) is tested in test/lib/egress.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type http from "node:http";
import { json, startInboxd, type Instance } from "../support/harness";
import { createInbox, transport } from "../support/mail";
import { launch, publishScenario, standardAgent } from "../support/automation";
import { answer, getOnly, type HttpFixture, startHttpFixture } from "../support/http-fixture";

async function send(inst: Instance, to: string, mail: { text?: string; html?: string }): Promise<string> {
  const t = transport(inst);
  try {
    const info = await t.sendMail({ from: "Shop <orders@shop.example>", to, subject: "links", ...mail });
    return /stored ([0-9A-Z]{26})/.exec(info.response)![1]!;
  } finally {
    t.close();
  }
}

const byUrl = (links: any[]) => Object.fromEntries(links.map((l) => [l.url, l]));

describe("link analysis with internal addresses allowed", () => {
  let site: HttpFixture;
  let inst: Instance;
  let inbox: { id: string; address: string };
  const held: http.ServerResponse[] = [];
  beforeAll(async () => {
    site = await startHttpFixture();
    site.route("/ok", answer(200));
    site.route("/head-refused", getOnly);
    site.route("/old", answer(301, "/new"));
    site.route("/new", answer(200));
    site.route("/loop-a", answer(302, "/loop-b"));
    site.route("/loop-b", answer(302, "/loop-a"));
    site.route("/logo.png", answer(200));
    site.route("/bg.png", answer(200));
    site.route("/counted", answer(200));
    site.route("/slow", (_req, res) => void held.push(res));
    inst = await startInboxd({ INBOXD_ALLOW_INTERNAL_HTTP: "on", INBOXD_LINK_CHECK_TIMEOUT_MS: "60000" });
    inbox = await createInbox(inst, { name: "links" });
  }, 60_000);
  afterAll(async () => {
    await inst?.stop();
    inst?.cleanup();
    await site?.close();
  });

  test("each link and image: status, ok, redirects; errors named; cid: and data: left out", async () => {
    const o = site.origin;
    const id = await send(inst, inbox.address, {
      text: `Track your order: ${o}/ok\nGone: ${o}/missing\n`,
      html: `<p><a href="${o}/ok">order</a> <a href="${o}/head-refused">help</a> <a href="${o}/old">moved</a>
        <a href="${o}/loop-a">loop</a> <a href="mailto:help@shop.example">mail us</a></p>
        <img src="${o}/logo.png" alt="logo"><img src="cid:part1@shop"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
        <table background="${o}/bg.png"><tr><td>x</td></tr></table>`,
    });
    const r = await json(inst.api(`/v1/messages/${id}/analysis/links`));
    expect(r.status).toBe(200);
    expect(r.body.data.truncated).toBe(false);
    const links = r.body.data.links as any[];
    // Links first (text body, then HTML), then what the HTML loads; each URL once.
    expect(links.map((l) => [l.url, l.kind])).toEqual([
      [`${o}/ok`, "link"],
      [`${o}/missing`, "link"],
      [`${o}/head-refused`, "link"],
      [`${o}/old`, "link"],
      [`${o}/loop-a`, "link"],
      [`${o}/logo.png`, "image"],
      [`${o}/bg.png`, "image"],
    ]);
    const l = byUrl(links);
    expect(l[`${o}/ok`]).toMatchObject({ status: 200, ok: true, method: "HEAD", redirects: [] });
    expect(l[`${o}/missing`]).toMatchObject({ status: 404, ok: false });
    expect(l[`${o}/missing`].error).toBeUndefined();
    expect(l[`${o}/head-refused`]).toMatchObject({ status: 200, ok: true, method: "GET" });
    expect(l[`${o}/old`]).toMatchObject({ status: 200, ok: true, redirects: [{ url: `${o}/new`, status: 301 }] });
    expect(l[`${o}/loop-a`]).toMatchObject({ ok: false, error: "redirect_loop", status: 302 });
    expect(l[`${o}/logo.png`]).toMatchObject({ status: 200, ok: true });
    for (const x of links) expect(x.duration_ms).toBeGreaterThanOrEqual(0);
  }, 60_000);

  test("answers are reused; refresh=true asks the server again", async () => {
    const url = `${site.origin}/counted`;
    const id = await send(inst, inbox.address, { text: `see ${url}` });
    const hits = () => site.seen.filter((s) => s.path === "/counted").length;
    expect((await json(inst.api(`/v1/messages/${id}/analysis/links`))).body.data.links[0].ok).toBe(true);
    expect(hits()).toBe(1);
    expect((await json(inst.api(`/v1/messages/${id}/analysis/links`))).body.data.links[0].ok).toBe(true);
    expect(hits()).toBe(1);
    expect((await json(inst.api(`/v1/messages/${id}/analysis/links?refresh=true`))).body.data.links[0].ok).toBe(true);
    expect(hits()).toBe(2);
  }, 60_000);

  test("a link check waiting on a slow server does not hold up other requests", async () => {
    const id = await send(inst, inbox.address, { text: `slow: ${site.origin}/slow` });
    const arrived = site.arrival("/slow");
    let settled = false;
    const check = json(inst.api(`/v1/messages/${id}/analysis/links`)).finally(() => {
      settled = true;
    });
    await arrived;
    // The server holds the check's request: the API answers meanwhile.
    const other = await json(inst.api(`/v1/messages/${id}`));
    expect(other.status).toBe(200);
    expect((await json(inst.api("/v1/inboxes"))).status).toBe(200);
    expect(settled).toBe(false);
    for (const res of held.splice(0)) res.writeHead(200).end();
    const r = await check;
    expect(r.status).toBe(200);
    expect(r.body.data.links[0]).toMatchObject({ url: `${site.origin}/slow`, status: 200, ok: true });
  }, 60_000);

  test("the scenario step message.check (check: links) gives the analysis; an assert can use it", async () => {
    const id = await send(inst, inbox.address, { text: `order: ${site.origin}/ok` });
    const scenarioId = await publishScenario(
      inst,
      {
        schema_version: 1,
        steps: [
          { id: "check", type: "message.check", message: id, check: "links" },
          { type: "assert", value: "${steps.check.links.0.ok}", equals: true },
        ],
      },
      "link check",
    );
    const run = (await launch(inst, { agent_id: await standardAgent(inst), scenario_id: scenarioId }, 60)).body.data;
    expect(run.status).toBe("succeeded");
    expect(run.steps[0].output.links[0]).toMatchObject({ url: `${site.origin}/ok`, status: 200 });
  }, 90_000);

  test("an unknown message is 404; a key without messages:read is 403", async () => {
    expect((await json(inst.api("/v1/messages/01J00000000000000000000000/analysis/links"))).status).toBe(404);
    const key = await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "inboxes only", scopes: ["inboxes:read"] } }));
    const id = await send(inst, inbox.address, { text: "no links" });
    expect((await json(inst.api(`/v1/messages/${id}/analysis/links`, { token: key.body.data.secret as string }))).status).toBe(403);
    const none = await json(inst.api(`/v1/messages/${id}/analysis/links`));
    expect(none.body.data).toEqual({ links: [], truncated: false });
  }, 60_000);
});

describe("link analysis timeouts", () => {
  test("a server that accepts and never answers: error timeout (INBOXD_LINK_CHECK_TIMEOUT_MS)", async () => {
    const site = await startHttpFixture();
    site.route("/never", () => {});
    const inst = await startInboxd({ INBOXD_ALLOW_INTERNAL_HTTP: "on", INBOXD_LINK_CHECK_TIMEOUT_MS: "300" });
    try {
      const box = await createInbox(inst, { name: "timeouts" });
      const id = await send(inst, box.address, { text: `wait: ${site.origin}/never` });
      const r = await json(inst.api(`/v1/messages/${id}/analysis/links`));
      expect(r.status).toBe(200);
      expect(r.body.data.links[0]).toMatchObject({ status: null, ok: false, error: "timeout" });
    } finally {
      await inst.stop();
      inst.cleanup();
      await site.close();
    }
  }, 60_000);
});

describe("link analysis by default (INBOXD_ALLOW_INTERNAL_HTTP off)", () => {
  test("links to local servers are refused as private_address and never requested", async () => {
    const site = await startHttpFixture();
    site.route("/ok", answer(200));
    const inst = await startInboxd();
    try {
      const box = await createInbox(inst, { name: "guarded" });
      const id = await send(inst, box.address, {
        text: `http://localhost:${site.port}/ok http://127.0.0.1:${site.port}/ok http://[::1]:${site.port}/ok http://169.254.169.254/latest/meta-data/`,
      });
      const r = await json(inst.api(`/v1/messages/${id}/analysis/links`));
      expect(r.status).toBe(200);
      expect(r.body.data.links.length).toBe(4);
      for (const l of r.body.data.links) expect(l).toMatchObject({ status: null, ok: false, error: "private_address" });
      expect(site.seen).toEqual([]);
    } finally {
      await inst.stop();
      inst.cleanup();
      await site.close();
    }
  }, 60_000);
});
