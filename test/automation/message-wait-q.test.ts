// message.wait's q: the search language of the REST API (docs/search.md), checked with the same
// parser when a definition is validated, and judged by the same repository query at run time.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, type Instance } from "../support/harness";
import { createInbox, transport } from "../support/mail";
import { launch, publishScenario, standardAgent, TERMINAL, until } from "../support/automation";

let inst: Instance;
let agentId: string;
beforeAll(async () => {
  inst = await startInboxd();
  agentId = await standardAgent(inst);
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

async function send(to: string, from: string, subject: string, text: string) {
  const t = transport(inst);
  try {
    await t.sendMail({ from, to, subject, text });
  } finally {
    t.close();
  }
}

const waitFor = (q: string, timeout = 20) => ({
  schema_version: 1,
  inputs: { inbox: { type: "string", required: true }, q: { type: "string", default: "" } },
  steps: [{ id: "mail", type: "message.wait", inbox: "${inputs.inbox}", q, timeout_seconds: timeout }],
});

describe("message.wait q", () => {
  test("validation: a bad q is invalid_query with the position; a q with a reference is checked at run time", async () => {
    const s = (await json(inst.api("/v1/scenarios", { method: "POST", json: { name: "q validation" } }))).body.data;
    const bad = await json(
      inst.api(`/v1/scenarios/${s.id}/validate`, {
        method: "POST",
        json: {
          definition: {
            ...waitFor('subject:"unclosed'),
            steps: [...waitFor('subject:"unclosed').steps, { type: "message.wait", inbox: "x", q: 5 }],
          },
        },
      }),
    );
    expect(bad.status).toBe(200);
    expect(bad.body.data.valid).toBe(false);
    const errs = bad.body.data.errors.map((e: any) => `${e.path} ${e.code}`);
    expect(errs).toContain("/steps/0/q invalid_query");
    expect(errs).toContain("/steps/1/q invalid_type");
    expect(bad.body.data.errors[0].message).toContain("position");
    for (const q of ["subject:reset has:link -from:spam", "${inputs.q}", ""]) {
      const ok = await json(inst.api(`/v1/scenarios/${s.id}/validate`, { method: "POST", json: { definition: waitFor(q) } }));
      expect({ q, valid: ok.body.data.valid, errors: ok.body.data.errors }).toEqual({ q, valid: true, errors: [] });
    }
    const schema = (await json(inst.api("/v1/scenarios/schema"))).body;
    expect(JSON.stringify(schema)).toContain("search query (docs/search.md)");
  });

  test("waits past existing and new non-matching mail for the message that matches q", async () => {
    const inbox = await createInbox(inst);
    await send(inbox.address, "news@shop.test", "Weekly news", "nothing to see");
    await send(inbox.address, "spam@junk.test", "Password reset", "not this one https://junk.test/x");
    const scenarioId = await publishScenario(inst, waitFor('subject:"password reset" has:link -from:junk.test'), "q wait");
    const r = await launch(inst, { agent_id: agentId, scenario_id: scenarioId, inputs: { inbox: inbox.id } });
    expect(r.status).toBe(201);
    await Bun.sleep(300);
    await send(inbox.address, "app@shop.test", "Password reset", "no link here");
    await send(inbox.address, "app@shop.test", "Password reset", "reset at https://shop.test/reset?t=9");
    const { run } = await until(inst, r.body.data.id, (x) => TERMINAL.includes(x.status));
    expect(run.status).toBe("succeeded");
    expect(run.steps[0].output.from).toBe("app@shop.test");
    expect(run.steps[0].output.links).toEqual([{ url: "https://shop.test/reset?t=9", text: "" }]);
  });

  test("an existing matching message is found at once; q combines with the other filters", async () => {
    const inbox = await createInbox(inst);
    await send(inbox.address, "a@shop.test", "Order 1", "code 123456");
    await send(inbox.address, "b@shop.test", "Order 2", "code 654321");
    const def = waitFor("has:code", 5);
    (def.steps[0] as any).from = "b@";
    const scenarioId = await publishScenario(inst, def, "q existing");
    const r = await launch(inst, { agent_id: agentId, scenario_id: scenarioId, inputs: { inbox: inbox.id } }, 10);
    expect(r.body.data.status).toBe("succeeded");
    expect(r.body.data.steps[0].output.subject).toBe("Order 2");
  });

  test("a q that only a run resolves, and is invalid, fails the step with invalid_query", async () => {
    const inbox = await createInbox(inst);
    const scenarioId = await publishScenario(inst, waitFor("${inputs.q}", 5), "q at run time");
    const r = await launch(inst, { agent_id: agentId, scenario_id: scenarioId, inputs: { inbox: inbox.id, q: "bogus:key" } }, 10);
    expect(r.body.data.status).toBe("failed");
    expect(r.body.data.error.code).toBe("invalid_query");
    expect(r.body.data.error.message).toContain("unknown key");
  });
});
