// The egress policy end to end (API.md "Egress", docs/security.md): one data directory served
// first as a laptop instance (loopback-bound, default allow), then with INBOXD_EGRESS_PRIVATE=deny
// and INBOXD_EGRESS_ALLOW naming one local server, then bound to 0.0.0.0 with no egress setting
// (derived deny). Webhooks and scenario http.request steps are tried against a real local server in
// every spelling of a loopback or metadata address, and through a DNS name that the test DNS
// server (INBOXD_DNS_SERVERS) answers with 127.0.0.1. A refusal is proved by the local server
// receiving nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { standardAgent } from "../support/automation";
import { startTestDns, type TestDns } from "../support/dns-server";
import { json, startInboxd, type Instance } from "../support/harness";
import { answer, type HttpFixture, startHttpFixture } from "../support/http-fixture";
import { createInbox, sendMail } from "../support/mail";
import { Receiver } from "../support/webhook-receiver";

let dns: TestDns;
let target: Receiver;
let allowed: HttpFixture;
let inst: Instance;
let dataDir: string;
let dnsEnv: Record<string, string>;

/** Every spelling of 127.0.0.1 (and a name resolving to it) at the target's port. */
const loopbackSpellings = (port: number) => [
  `http://2130706433:${port}`,
  `http://0177.0.0.1:${port}`,
  `http://127.1:${port}`,
  `http://[::ffff:127.0.0.1]:${port}`,
  `http://localhost:${port}`,
  `http://rebind.test:${port}`,
];
const metadataSpellings = ["http://0xa9fea9fe", "http://[::ffff:a9fe:a9fe]"];
const literal = (u: string) => !/localhost|rebind\.test/.test(u);

/** Webhook and scenario ids per base URL, created on the laptop instance. */
const hooks = new Map<string, string>();
const scenarios = new Map<string, string>();
let agent: string;

const sendTest = async (id: string) => {
  const r = await json(inst.api(`/v1/webhooks/${id}/test`, { method: "POST" }));
  expect(r.status).toBe(200);
  return r.body.data;
};
const run = async (scenarioId: string) => {
  const r = await json(inst.api("/v1/runs?wait=30", { method: "POST", json: { agent_id: agent, scenario_id: scenarioId } }));
  expect(r.status).toBe(201);
  return r.body.data;
};
const addOrigin = async (origin: string) => {
  const r = await json(inst.api("/v1/http-origins", { method: "POST", json: { origin } }));
  expect([origin, [201, 409].includes(r.status)]).toEqual([origin, true]);
};
const scenario = async (url: string, name: string) => {
  const c = await json(
    inst.api("/v1/scenarios", {
      method: "POST",
      json: {
        name,
        draft_definition: { schema_version: 1, steps: [{ id: "call", type: "http.request", method: "POST", url, json: { hi: 1 } }] },
      },
    }),
  );
  expect(c.status).toBe(201);
  expect((await json(inst.api(`/v1/scenarios/${c.body.data.id}/publish`, { method: "POST" }))).status).toBe(201);
  return c.body.data.id as string;
};

beforeAll(async () => {
  dns = await startTestDns();
  dns.set("rebind.test", { type: "A", address: "127.0.0.1" });
  dnsEnv = { INBOXD_DNS_SERVERS: `127.0.0.1:${dns.port}` };
  target = await Receiver.start();
  allowed = await startHttpFixture("127.0.0.1");
  allowed.route("/ok", answer(200));
  allowed.route("/to-target", answer(302, target.url("/redirected")));
  // Sends forever, as fast as the client reads: the bounds must hold while streaming.
  allowed.route("/endless", (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    const chunk = Buffer.alloc(64 * 1024, "z");
    const more = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once("drain", more);
    };
    more();
  });
  inst = await startInboxd(dnsEnv);
  dataDir = inst.dataDir;
  agent = await standardAgent(inst);
});

afterAll(async () => {
  await inst?.stop();
  inst?.cleanup();
  target?.stop();
  await allowed?.close();
  await dns?.close();
});

describe("laptop default (loopback-bound, INBOXD_EGRESS_PRIVATE unset: allow)", () => {
  test("webhooks reach the loopback server in every spelling, and through a name resolving to 127.0.0.1", async () => {
    const bases = [...loopbackSpellings(target.server.port!), ...metadataSpellings];
    for (const [i, base] of bases.entries()) {
      const r = await json(
        inst.api("/v1/webhooks", { method: "POST", json: { url: `${base}/hook-${i}`, event_types: ["message.received"] } }),
      );
      expect([base, r.status]).toEqual([base, 201]);
      hooks.set(base, r.body.data.id);
    }
    for (const [i, base] of loopbackSpellings(target.server.port!).entries()) {
      const d = await sendTest(hooks.get(base)!);
      expect([base, d.status, d.last_error]).toEqual([base, "succeeded", null]);
      expect(target.of(`/hook-${i}`)).toHaveLength(1);
    }
    expect(dns.queries.some((q) => q.name === "rebind.test")).toBe(true);
  });

  test("scenario http.request steps reach it too (origins in any spelling are stored as the URL parser writes them)", async () => {
    for (const base of [...loopbackSpellings(target.server.port!), ...metadataSpellings, allowed.origin]) await addOrigin(base);
    const list = (await json(inst.api("/v1/http-origins?limit=100"))).body.data.map((o: any) => o.origin);
    expect(list).toContain(`http://127.0.0.1:${target.server.port}`);
    expect(list).toContain(`http://[::ffff:7f00:1]:${target.server.port}`);
    expect(list).toContain("http://169.254.169.254");
    expect(list).not.toContain(`http://2130706433:${target.server.port}`);
    for (const [i, base] of [...loopbackSpellings(target.server.port!), ...metadataSpellings].entries()) {
      scenarios.set(base, await scenario(`${base}/step-${i}`, `egress ${i}`));
    }
    for (const [i, base] of loopbackSpellings(target.server.port!).entries()) {
      const r = await run(scenarios.get(base)!);
      expect([base, r.status, r.error]).toEqual([base, "succeeded", null]);
      expect(r.steps[0].output.status).toBe(200);
      expect(target.of(`/step-${i}`)).toHaveLength(1);
    }
  });

  test("answers shown to the tenant stay bounded when the server never stops sending", async () => {
    const wh = await json(
      inst.api("/v1/webhooks", { method: "POST", json: { url: `${allowed.origin}/endless`, event_types: ["message.received"] } }),
    );
    const d = await sendTest(wh.body.data.id);
    expect(d.status).toBe("succeeded");
    expect(d.attempts[0].response_excerpt).toBe("z".repeat(1024));
    const r = await run(await scenario(`${allowed.origin}/endless`, "endless"));
    expect(r.status).toBe("succeeded");
    expect(r.steps[0].output.body.length).toBe(1024 * 1024);
  });
});

describe("INBOXD_EGRESS_PRIVATE=deny with INBOXD_EGRESS_ALLOW=127.0.0.1:<one server's port>", () => {
  beforeAll(async () => {
    await inst.stop();
    inst = await startInboxd({ ...dnsEnv, INBOXD_EGRESS_PRIVATE: "deny", INBOXD_EGRESS_ALLOW: `127.0.0.1:${allowed.port}` }, dataDir);
  });

  test("each webhook made earlier fails its try with egress_denied, ends at once, and nothing reaches the server", async () => {
    const before = target.got.length;
    // Made by the first describe: every spelling, or this test would pass over fewer of them.
    expect([...hooks.keys()]).toEqual([...loopbackSpellings(target.server.port!), ...metadataSpellings]);
    for (const [base, id] of hooks) {
      const d = await sendTest(id);
      expect([base, d.status, d.attempt_count]).toEqual([base, "failed", 1]);
      expect(d.last_error).toStartWith("egress_denied: ");
      expect(d.attempts[0]).toMatchObject({ ok: false, status_code: null, response_excerpt: null });
      // For a name, the kind of address it resolved to is told, never the address.
      if (!literal(base)) expect(d.last_error).not.toContain("127.0.0.1");
    }
    expect(target.got.length).toBe(before);
  });

  test("a real event's delivery to a denied name is failed after one try, not retried", async () => {
    const before = target.got.length;
    const id = hooks.get(`http://rebind.test:${target.server.port}`)!;
    const inbox = await createInbox(inst);
    await sendMail(inst, { from: "a@example.com", to: inbox.address, subject: "hello", text: "hi" });
    let d: any;
    for (let i = 0; i < 100; i++) {
      d = (await json(inst.api(`/v1/webhooks/${id}/deliveries?limit=1`))).body.data[0];
      if (d?.event_id && d.status !== "pending") break;
      await Bun.sleep(100);
    }
    expect(d).toMatchObject({ status: "failed", attempt_count: 1 });
    expect(d.max_attempts).toBeGreaterThan(1);
    expect(d.last_error).toStartWith("egress_denied: ");
    expect(target.got.length).toBe(before);
  });

  test("each scenario step to a denied address fails with egress_denied, and nothing reaches the server", async () => {
    const before = target.got.length;
    expect([...scenarios.keys()]).toEqual([...loopbackSpellings(target.server.port!), ...metadataSpellings]);
    for (const [base, id] of scenarios) {
      const r = await run(id);
      expect([base, r.status, r.error?.code, r.steps[0].error?.code]).toEqual([base, "failed", "egress_denied", "egress_denied"]);
    }
    expect(target.got.length).toBe(before);
  });

  test("literal denied addresses are refused at create and update (422); names are judged when connecting", async () => {
    for (const base of [...loopbackSpellings(target.server.port!), ...metadataSpellings]) {
      const wh = await json(inst.api("/v1/webhooks", { method: "POST", json: { url: `${base}/x`, event_types: ["message.received"] } }));
      if (literal(base)) {
        expect([base, wh.status, wh.body.code, wh.body.details.reason]).toEqual([base, 422, "validation_error", "egress_denied"]);
      } else expect([base, wh.status]).toEqual([base, 201]);
    }
    const patch = await json(
      inst.api(`/v1/webhooks/${hooks.get("http://localhost:" + target.server.port)}`, {
        method: "PATCH",
        json: { url: "http://0xa9fea9fe/" },
      }),
    );
    expect([patch.status, patch.body.details.reason]).toEqual([422, "egress_denied"]);
    const origin = await json(inst.api("/v1/http-origins", { method: "POST", json: { origin: "http://0xa9fea9fe" } }));
    expect([origin.status, origin.body.details.reason]).toEqual([422, "egress_denied"]);
  });

  test("the allowed host:port gets through; a redirect from it to a denied address is not followed", async () => {
    const before = target.got.length;
    const ok = await json(
      inst.api("/v1/webhooks", { method: "POST", json: { url: `${allowed.origin}/ok`, event_types: ["message.received"] } }),
    );
    expect(ok.status).toBe(201);
    expect((await sendTest(ok.body.data.id)).status).toBe("succeeded");
    const redirect = await json(
      inst.api("/v1/webhooks", { method: "POST", json: { url: `${allowed.origin}/to-target`, event_types: ["message.received"] } }),
    );
    const d = await sendTest(redirect.body.data.id);
    expect(d).toMatchObject({ status: "failed", last_status_code: 302 });
    const r = await run(await scenario(`${allowed.origin}/ok`, "allowed"));
    expect(r.status).toBe("succeeded");
    const hop = await run(await scenario(`${allowed.origin}/to-target`, "redirect"));
    expect(hop.status).toBe("succeeded");
    expect(hop.steps[0].output.status).toBe(302);
    expect(target.got.length).toBe(before);
  });

  test("the link check: the allow list applies; a redirect from the allowed server to a denied one is refused", async () => {
    const before = target.got.length;
    const inbox = await createInbox(inst);
    const id = await sendMail(inst, {
      from: "a@example.com",
      to: inbox.address,
      subject: "links",
      text: `${allowed.origin}/ok\n${allowed.origin}/to-target\nhttp://127.1:${target.server.port}/direct`,
    });
    const links = (await json(inst.api(`/v1/messages/${id}/analysis/links`))).body.data.links;
    const by = (u: string) => links.find((l: any) => l.url === u);
    expect(by(`${allowed.origin}/ok`)).toMatchObject({ ok: true, status: 200 });
    expect(by(`${allowed.origin}/to-target`)).toMatchObject({ ok: false, error: "private_address" });
    expect(by(`${allowed.origin}/to-target`).redirects[0].url).toBe(target.url("/redirected"));
    expect(by(`http://127.1:${target.server.port}/direct`)).toMatchObject({ ok: false, status: null, error: "private_address" });
    expect(target.got.length).toBe(before);
  });

  test("origin wildcards only on DNS names", async () => {
    const wild = await json(inst.api("/v1/http-origins", { method: "POST", json: { origin: `http://*.0.0.1:${target.server.port}` } }));
    expect([wild.status, wild.body.code]).toEqual([422, "validation_error"]);
    expect((await json(inst.api("/v1/http-origins", { method: "POST", json: { origin: "https://*.example.com" } }))).status).toBe(201);
  });
});

describe("bound to 0.0.0.0 with no egress setting: deny is the default", () => {
  test("a webhook to loopback fails with egress_denied", async () => {
    await inst.stop();
    inst = await startInboxd({ ...dnsEnv, INBOXD_HOST: "0.0.0.0" }, dataDir);
    const before = target.got.length;
    const d = await sendTest(hooks.get(`http://127.1:${target.server.port}`)!);
    expect(d.status).toBe("failed");
    expect(d.last_error).toStartWith("egress_denied: ");
    expect(target.got.length).toBe(before);
  });
});
