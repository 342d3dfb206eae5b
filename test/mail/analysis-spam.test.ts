// GET /v1/messages/{id}/analysis/spam against a real spamd (Debian's spamassassin + spamd, started
// here; .ci/run installs them): GTUBE scores as spam with its rule named, a plain mail does not;
// without INBOXD_SPAMD, or with spamd down, 503 analysis_unavailable; tenancy and scope as for
// any message route. Outcomes only, no timings.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, type Instance } from "../support/harness";
import { createInbox, transport } from "../support/mail";
import { haveSpamd, startSpamd } from "../support/spamd";
import { needs } from "../support/components";
import { launch, publishScenario, standardAgent } from "../support/automation";

const GTUBE = "XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X";

async function send(inst: Instance, to: string, subject: string, text: string): Promise<string> {
  const t = transport(inst);
  try {
    const info = await t.sendMail({ from: "Shop <orders@shop.example>", to, subject, text });
    return /stored ([0-9A-Z]{26})/.exec(info.response)![1]!;
  } finally {
    t.close();
  }
}

const here = needs("spamd", haveSpamd(), "apt-get install spamassassin spamd");

describe.skipIf(!here)("spam analysis with spamd", () => {
  let spamd: Awaited<ReturnType<typeof startSpamd>>;
  let inst: Instance;
  let inbox: { id: string; address: string };
  beforeAll(async () => {
    spamd = await startSpamd();
    inst = await startInboxd({ INBOXD_SPAMD: `127.0.0.1:${spamd.port}` });
    inbox = await createInbox(inst, { name: "spam" });
  }, 90_000);
  afterAll(async () => {
    await inst?.stop();
    inst?.cleanup();
    spamd?.stop();
  });

  test("GTUBE is spam, with the GTUBE rule, its score and description", async () => {
    const id = await send(inst, inbox.address, "Test", `This is the GTUBE, the\n${GTUBE}\n`);
    const r = await json(inst.api(`/v1/messages/${id}/analysis/spam`));
    expect(r.status).toBe(200);
    expect(r.body.data.is_spam).toBe(true);
    expect(r.body.data.score).toBeGreaterThan(r.body.data.threshold);
    const gtube = r.body.data.rules.find((x: any) => x.name === "GTUBE");
    expect(gtube.score).toBeGreaterThanOrEqual(1000);
    expect(gtube.description).toContain("Generic Test for Unsolicited Bulk Email");
  }, 60_000);

  test("a plain transactional mail is not spam", async () => {
    const id = await send(
      inst,
      inbox.address,
      "Your order has shipped",
      "Hello Jane,\n\nyour order 4812 has shipped and arrives on Monday.\n\nThanks,\nThe shop\n",
    );
    const r = await json(inst.api(`/v1/messages/${id}/analysis/spam`));
    expect(r.status).toBe(200);
    expect(r.body.data.is_spam).toBe(false);
    expect(r.body.data.score).toBeLessThan(r.body.data.threshold);
    expect(Array.isArray(r.body.data.rules)).toBe(true);
  }, 60_000);

  test("the scenario step message.check (check: spam) gives the same analysis, and an assert can use it", async () => {
    const spam = await send(inst, inbox.address, "Test", `the\n${GTUBE}\n`);
    const scenarioId = await publishScenario(
      inst,
      {
        schema_version: 1,
        steps: [
          { id: "check", type: "message.check", message: spam, check: "spam" },
          { type: "assert", value: "${steps.check.is_spam}", equals: true },
        ],
      },
      "spam check",
    );
    const run = (await launch(inst, { agent_id: await standardAgent(inst), scenario_id: scenarioId }, 60)).body.data;
    expect(run.status).toBe("succeeded");
    expect(run.steps[0].output.rules.map((r: any) => r.name)).toContain("GTUBE");
  }, 90_000);

  test("an unknown message is 404; a key without messages:read is 403", async () => {
    expect((await json(inst.api("/v1/messages/01J00000000000000000000000/analysis/spam"))).status).toBe(404);
    const key = await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "inboxes only", scopes: ["inboxes:read"] } }));
    expect(key.status).toBe(201);
    const id = await send(inst, inbox.address, "scope", "hello");
    expect((await json(inst.api(`/v1/messages/${id}/analysis/spam`, { token: key.body.data.secret as string }))).status).toBe(403);
  }, 60_000);

  test("spamd down: 503 analysis_unavailable in the contract's envelope", async () => {
    const id = await send(inst, inbox.address, "later", "hello");
    spamd.stop();
    await Bun.sleep(500);
    const r = await json(inst.api(`/v1/messages/${id}/analysis/spam`));
    expect(r.status).toBe(503);
    expect(r.body.code).toBe("analysis_unavailable");
    expect(r.body.request_id).toBeString();
  }, 60_000);
});

describe("spam analysis without spamd", () => {
  test("no INBOXD_SPAMD: 503 analysis_unavailable, saying which setting is missing; message.check fails with that code", async () => {
    const inst = await startInboxd();
    try {
      const box = await createInbox(inst, { name: "no spamd" });
      const id = await send(inst, box.address, "hello", "hello");
      const r = await json(inst.api(`/v1/messages/${id}/analysis/spam`));
      expect(r.status).toBe(503);
      expect(r.body.code).toBe("analysis_unavailable");
      expect(r.body.message).toContain("INBOXD_SPAMD");
      const scenarioId = await publishScenario(
        inst,
        { schema_version: 1, steps: [{ type: "message.check", message: id, check: "spam" }] },
        "spam check without spamd",
      );
      const run = (await launch(inst, { agent_id: await standardAgent(inst), scenario_id: scenarioId }, 30)).body.data;
      expect(run.status).toBe("failed");
      expect(run.error.code).toBe("analysis_unavailable");
    } finally {
      await inst.stop();
      inst.cleanup();
    }
  });
});
