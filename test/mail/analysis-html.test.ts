// GET /v1/messages/{id}/analysis/html through a real inboxd, with mail sent over SMTP: the
// features a marketing-style HTML uses that Outlook for Windows does not render are named with
// that client; a plain table layout has few warnings; a text-only mail has none and says why;
// the MCP tool check_html and the scenario step message.check (check: html) answer the same.
// Outcomes only, no timings (bench/html-analysis.ts measures).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { json, login, startInboxd, type Instance } from "../support/harness";
import { createInbox, sendMail } from "../support/mail";
import { launch, publishScenario, standardAgent } from "../support/automation";

const RISKY = `<!doctype html><html><head><style>
@media (max-width: 600px) { .col { width: 100% !important; } }
.hero { display: flex; position: absolute; top: 0; background-image: url(https://cdn.example/hero.png); }
</style></head><body>
<div class="hero" style="display:flex;position:absolute;background-image:url('https://cdn.example/bg.png')">Sale</div>
<svg width="20" height="20"><circle cx="10" cy="10" r="8"/></svg>
</body></html>`;

const TABLES = `<table width="600" cellpadding="0" cellspacing="0" border="0"><tr><td align="left" bgcolor="#ffffff">
<p>Hello Jane,</p><p>your order 4812 has shipped.</p><a href="https://shop.example/orders/4812">Track it</a>
</td></tr></table>`;

let inst: Instance;
let inbox: { id: string; address: string };

const send = (mail: { subject: string; text?: string; html?: string }) =>
  sendMail(inst, { from: "Shop <news@shop.example>", to: inbox.address, ...mail });

const analysis = async (id: string) => json(inst.api(`/v1/messages/${id}/analysis/html`));

beforeAll(async () => {
  inst = await startInboxd();
  inbox = await createInbox(inst, { name: "html check" });
}, 60_000);
afterAll(async () => {
  await inst?.stop();
  inst?.cleanup();
});

describe("HTML analysis", () => {
  test("flex, position, background-image, svg and @media are warnings naming Outlook for Windows as unsupported", async () => {
    const id = await send({ subject: "Big sale", html: RISKY });
    const r = await analysis(id);
    expect(r.status).toBe(200);
    const d = r.body.data;
    expect(d.has_html).toBe(true);
    expect(d.clients_checked).toBeGreaterThan(30);
    expect(d.score.supported + d.score.partial + d.score.unsupported).toBeCloseTo(100, 0);
    const byFeature = new Map<string, any>(d.warnings.map((w: any) => [w.feature, w]));
    for (const feature of ["css-display-flex", "css-position", "css-background-image", "html-svg", "css-at-media"]) {
      const w = byFeature.get(feature);
      expect(w).toBeDefined();
      expect(w.title).toBeString();
      const outlook = w.clients.find((c: any) => c.client === "outlook.windows");
      expect(outlook?.support).toBe("no");
      expect(outlook.name).toBe("Outlook Windows");
      expect(w.score.unsupported).toBeGreaterThan(0);
    }
    expect(byFeature.get("css-display-flex").title).toBe("display:flex");
    // Least supported first.
    const supported = d.warnings.map((w: any) => w.score.supported);
    expect(supported).toEqual([...supported].sort((a: number, b: number) => a - b));
  }, 60_000);

  test("a plain table layout has few warnings, none of them unsupported in Outlook for Windows", async () => {
    const id = await send({ subject: "Your order has shipped", html: TABLES, text: "Hello Jane" });
    const d = (await analysis(id)).body.data;
    expect(d.has_html).toBe(true);
    expect(d.warnings.length).toBeLessThanOrEqual(3);
    for (const w of d.warnings) expect(w.clients.find((c: any) => c.client === "outlook.windows")?.support).not.toBe("no");
    expect(d.score.supported).toBeGreaterThan(90);
  }, 60_000);

  test("a text-only mail: no HTML, no warnings, no score, and a note saying so", async () => {
    const id = await send({ subject: "plain", text: "just text" });
    const r = await analysis(id);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ has_html: false, score: null, warnings: [], features_checked: 0 });
    expect(r.body.data.note).toContain("no HTML");
  }, 60_000);

  test("an unknown message and another project's message are 404", async () => {
    expect((await analysis("01J00000000000000000000000")).status).toBe(404);
    const id = await send({ subject: "mine", html: TABLES });
    const token = await login(inst); // an admin's session may create projects; the bootstrap key is one project's
    const other = await json(inst.api("/v1/projects", { method: "POST", token, json: { name: "elsewhere" } }));
    expect(other.status).toBe(201);
    expect((await analysis(id)).status).toBe(200);
    const r = await json(inst.api(`/v1/messages/${id}/analysis/html`, { token, project: other.body.data.id }));
    expect(r.status).toBe(404);
    expect(r.body.code).toBeString();
  }, 60_000);

  test("the MCP tool check_html and the step message.check (check: html) answer what the route does", async () => {
    const id = await send({ subject: "Sale again", html: RISKY });
    const rest = (await analysis(id)).body.data;

    const mcp = new Client({ name: "inboxd-test", version: "1.0.0" });
    const tr = new StreamableHTTPClientTransport(new URL(`${inst.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${inst.key}` } },
    });
    await mcp.connect(tr);
    try {
      const r: any = await mcp.callTool({ name: "check_html", arguments: { message_id: id } });
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent ?? JSON.parse(r.content[0].text)).toEqual(rest);
    } finally {
      await tr.terminateSession();
      await mcp.close();
    }

    const scenarioId = await publishScenario(
      inst,
      {
        schema_version: 1,
        steps: [
          { id: "check", type: "message.check", message: id, check: "html" },
          { type: "assert", value: "${steps.check.has_html}", equals: true },
        ],
      },
      "html check",
    );
    const run = (await launch(inst, { agent_id: await standardAgent(inst), scenario_id: scenarioId }, 60)).body.data;
    expect(run.status).toBe("succeeded");
    expect(run.steps[0].output).toEqual(rest);
  }, 90_000);
});
