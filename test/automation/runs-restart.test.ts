// Runs survive restarts: a crash (SIGKILL) or a clean stop mid-run leaves the run to be resumed
// at its current step by the next start; a step whose effect is unknown fails cleanly instead.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, login, startInboxd, type Instance } from "../support/harness";
import { launch, publishScenario, standardAgent, startSignupApp, until, type SignupApp } from "../support/automation";

let inst: Instance;
let app: SignupApp;
let agentId: string;

beforeAll(async () => {
  // A small wait cap, to show INBOXD_RUN_WAIT_CAP is honoured.
  inst = await startInboxd({ INBOXD_RUN_WAIT_CAP: "5" });
  app = startSignupApp(() => inst.ports.smtp!);
  agentId = await standardAgent(inst);
  await json(inst.api("/v1/http-origins", { method: "POST", json: { origin: app.url } }));
});
afterAll(async () => {
  app.stop();
  await inst.stop();
  inst.cleanup();
});

const sleeper = {
  schema_version: 1,
  steps: [
    { id: "inbox", type: "inbox.create" },
    { id: "nap", type: "sleep", seconds: 2 },
    { type: "assert", value: "${steps.inbox.address}", contains: "@" },
  ],
};

describe("restart mid-run", () => {
  test("after a crash (SIGKILL) the run resumes at its current step, finishes and cleans up", async () => {
    const scenarioId = await publishScenario(inst, sleeper, "sleeper");
    const r = await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 0);
    const id = r.body.data.id;
    const { run: mid } = await until(inst, id, (run) => run.steps[1].status === "running");
    expect(mid.steps[0].status).toBe("succeeded");
    await inst.kill();
    inst = await inst.restart();
    const { run, events } = await until(inst, id, (run) => run.status === "succeeded", 40);
    expect(run.steps.map((s: any) => s.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    // The finished step was not repeated: one inbox created, and it is gone now.
    expect(events.filter((e: any) => e.type === "resource.created")).toHaveLength(1);
    const resumed = events.find((e: any) => e.type === "run.resumed");
    expect(resumed.payload).toEqual({ step_index: 1, reason: "recovered" });
    expect(run.cleanup_status).toBe("completed");
    expect((await json(inst.api(`/v1/inboxes/${run.steps[0].output.id}`))).status).toBe(404);
  }, 60_000);

  test("after a clean stop (SIGTERM) the next start resumes the run at once", async () => {
    const scenarioId = await publishScenario(inst, sleeper, "sleeper 2");
    const id = (await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 0)).body.data.id;
    await until(inst, id, (run) => run.steps[1].status === "running");
    await inst.stop();
    inst = await inst.restart();
    const { run, events } = await until(inst, id, (run) => run.status === "succeeded", 30);
    expect(run.cleanup_status).toBe("completed");
    expect(events.some((e: any) => e.type === "run.resumed")).toBe(true);
  }, 60_000);

  test("a crash during a non-repeatable step (POST) fails the run cleanly with interrupted, never repeating the call", async () => {
    const scenarioId = await publishScenario(inst, {
      schema_version: 1,
      steps: [
        { id: "inbox", type: "inbox.create" },
        { type: "http.request", method: "POST", url: `${app.url}/slow`, json: {} },
      ],
    });
    const id = (await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 0)).body.data.id;
    await until(inst, id, (run) => run.steps[1].status === "running");
    while (app.slowHits === 0) await Bun.sleep(20);
    await inst.kill();
    inst = await inst.restart();
    const { run } = await until(inst, id, (run) => run.status === "failed", 40);
    expect(run.error.code).toBe("interrupted");
    expect(run.steps[1].status).toBe("failed");
    expect(app.slowHits).toBe(1);
    expect(run.cleanup_status).toBe("completed");
  }, 60_000);
});

describe("INBOXD_RUN_WAIT_CAP", () => {
  test("the deployment's cap bounds wait: above it is 422, at it is accepted", async () => {
    const scenarioId = await publishScenario(inst, { schema_version: 1, steps: [{ type: "sleep", seconds: 0 }] }, "capped");
    const over = await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 6);
    expect(over.status).toBe(422);
    expect(over.body.code).toBe("validation_error");
    expect(over.body.details.max).toBe(5);
    const at = await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 5);
    expect(at.status).toBe(201);
    expect(at.body.data.status).toBe("succeeded");
  });
});

describe("a parked run across a restart", () => {
  test("parked for approval, the server restarts, approve resumes it at the same step; reject fails another", async () => {
    const scenarioId = await publishScenario(
      inst,
      {
        schema_version: 1,
        steps: [
          { id: "inbox", type: "inbox.create" },
          { id: "gate", type: "sleep", seconds: 0, approval: true },
          { type: "assert", value: "${steps.inbox.address}", contains: "@" },
        ],
      },
      "gated",
    );
    const a = (await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 5)).body.data;
    const b = (await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 5)).body.data;
    expect([a.status, b.status]).toEqual(["awaiting_approval", "awaiting_approval"]);
    await inst.stop();
    inst = await inst.restart();
    expect((await json(inst.api(`/v1/runs/${a.id}`))).body.data.status).toBe("awaiting_approval");

    const token = await login(inst);
    const project = (await json(inst.api("/v1/projects", { token }))).body.data[0].id;
    const pending = (await json(inst.api("/v1/approvals?status=pending", { token, project }))).body.data;
    const forA = pending.find((x: any) => x.run_ulid === a.id);
    const forB = pending.find((x: any) => x.run_ulid === b.id);
    expect(forA.step_index).toBe(1);
    expect((await json(inst.api(`/v1/approvals/${forA.ulid}/approve`, { method: "POST", token, project }))).status).toBe(200);
    const done = await until(inst, a.id, (run) => run.status === "succeeded", 20);
    expect(done.run.steps.map((s: any) => s.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect(done.events.filter((e: any) => e.type === "resource.created")).toHaveLength(1);
    expect(done.events.find((e: any) => e.type === "run.resumed").payload).toEqual({ step_index: 1, reason: "approved" });
    expect(done.run.cleanup_status).toBe("completed");

    expect(
      (await json(inst.api(`/v1/approvals/${forB.ulid}/reject`, { method: "POST", token, project, json: { reason: "not today" } }))).status,
    ).toBe(200);
    const rejected = await until(inst, b.id, (run) => run.status === "failed", 20);
    expect(rejected.run.error).toEqual({ code: "approval_rejected", message: "not today" });
    expect(rejected.run.steps[1].status).toBe("failed");
    expect(rejected.run.cleanup_status).toBe("completed");
  }, 60_000);
});
