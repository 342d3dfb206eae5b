// Runs end to end against a real inboxd: a sign-up app on 127.0.0.1 mails a code over SMTP, the
// run waits for it, extracts it, posts it back with a secret header and asserts the answer.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, ULID, type Instance } from "../support/harness";
import { launch, publishScenario, standardAgent, startSignupApp, TERMINAL, until, type SignupApp } from "../support/automation";

const SECRET = "s3cr3t-app-token-value-9f2c";
let inst: Instance;
let app: SignupApp;
let agentId: string;

const signupFlow = (appUrl: string) => ({
  schema_version: 1,
  timeout_seconds: 60,
  steps: [
    { id: "inbox", type: "inbox.create", inbox_name: "signup run" },
    { id: "signup", type: "http.request", method: "POST", url: `${appUrl}/signup`, json: { email: "${steps.inbox.address}" } },
    { type: "assert", value: "${steps.signup.status}", equals: 200 },
    {
      id: "mail",
      type: "message.wait",
      inbox: "${steps.inbox.id}",
      subject: "verification",
      from: "signup.test",
      contains: "your code",
      timeout_seconds: 20,
    },
    { id: "code", type: "message.extract", message: "${steps.mail.id}", extract: "code", pattern: "code is (\\d{6})" },
    {
      id: "verify",
      type: "http.request",
      method: "POST",
      url: `${appUrl}/verify`,
      headers: { "x-api-token": "${secrets.APP_TOKEN}" },
      json: { email: "${steps.inbox.address}", code: "${steps.code.value}" },
    },
    { type: "assert", value: "${steps.verify.body.verified}", equals: true },
    { type: "assert", value: "${steps.verify.status}", equals: 200, matches: "^2" },
  ],
});

beforeAll(async () => {
  inst = await startInboxd();
  app = startSignupApp(() => inst.ports.smtp!);
  agentId = await standardAgent(inst);
  expect((await json(inst.api("/v1/http-origins", { method: "POST", json: { origin: app.url, description: "sign-up app" } }))).status).toBe(
    201,
  );
  expect((await json(inst.api("/v1/scenario-secrets", { method: "POST", json: { name: "APP_TOKEN", value: SECRET } }))).status).toBe(201);
});
afterAll(async () => {
  app.stop();
  await inst.stop();
  inst.cleanup();
});

describe("a real scenario end to end", () => {
  test("sign-up: inbox, SMTP mail, code extraction, secret header, assertion, cleanup; wait=30 returns the finished run", async () => {
    const scenarioId = await publishScenario(inst, signupFlow(app.url), "sign-up");
    const t0 = performance.now();
    const r = await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 30);
    const elapsed = performance.now() - t0;
    console.log(`launch with wait=30 returned ${r.body.data?.status} after ${elapsed.toFixed(0)} ms`);
    expect(r.status).toBe(201);
    const run = r.body.data;
    expect(run.id).toMatch(ULID);
    expect(run.status).toBe("succeeded");
    expect(run.error).toBeNull();
    expect(run.failed_assertions).toEqual([]);
    expect(run.agent).toEqual({ id: agentId, name: "Standard" });
    expect(run.scenario).toEqual({ id: scenarioId, name: "sign-up", version: 1 });
    expect(run.step_count).toBe(8);
    expect(run.current_step_index).toBe(8);
    expect(run.steps.map((s: any) => s.status)).toEqual(Array(8).fill("succeeded"));
    expect(run.cleanup_status).toBe("completed");
    expect(run.cleanup_error).toBe("");
    expect(run.events_url).toBe(`/v1/runs/${run.id}/events`);
    expect(run.started_at).not.toBeNull();
    expect(run.finished_at).not.toBeNull();
    expect(run.trigger.type).toBe("api");

    // The app got the real secret; nothing the API shows carries it.
    expect(app.tokens).toEqual([SECRET]);
    const events = await json(inst.api(`/v1/runs/${run.id}/events?limit=100`));
    const shown = JSON.stringify(run) + JSON.stringify(events.body);
    expect(shown).not.toContain(SECRET);
    expect(JSON.stringify(run.steps[5].output)).toContain("[redacted]");

    // The code reached the run through the mail, and the run's inbox is gone.
    const code = run.steps[4].output.value;
    expect(code).toMatch(/^\d{6}$/);
    expect(run.steps[3].output.subject).toBe("Your verification code");
    const inboxId = run.steps[0].output.id;
    expect((await json(inst.api(`/v1/inboxes/${inboxId}`))).status).toBe(404);

    // Event log: ascending sequence, the whole story.
    const types = events.body.data.map((e: any) => e.type);
    expect(events.body.data.map((e: any) => e.sequence)).toEqual(types.map((_: any, i: number) => i + 1));
    expect(types[0]).toBe("run.queued");
    expect(types).toContain("resource.created");
    expect(types.slice(-3)).toEqual(["cleanup.started", "cleanup.completed", "run.finished"]);
    expect(events.body.data.at(-1).payload.status).toBe("succeeded");

    // The origin and the secret record their use.
    const origins = await json(inst.api("/v1/http-origins"));
    expect(origins.body.data[0].last_used_at).not.toBeNull();
    const secrets = await json(inst.api("/v1/scenario-secrets"));
    expect(secrets.body.data[0].last_used_at).not.toBeNull();
  });

  test("a failing assertion fails the run with failed_assertions recorded, and still cleans up", async () => {
    const def = signupFlow(app.url);
    def.steps[6] = { type: "assert", value: "${steps.verify.body.verified}", equals: false };
    const scenarioId = await publishScenario(inst, def, "wrong expectation");
    const r = await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 30);
    expect(r.status).toBe(201);
    const run = r.body.data;
    expect(run.status).toBe("failed");
    expect(run.error.code).toBe("assertion_failed");
    expect(run.failed_assertions).toHaveLength(1);
    expect(run.failed_assertions[0]).toMatchObject({ step_index: 6, check: "equals", expected: false, actual: true });
    expect(run.steps[6].status).toBe("failed");
    expect(run.steps[7].status).toBe("skipped");
    expect(run.cleanup_status).toBe("completed");
    expect((await json(inst.api(`/v1/inboxes/${run.steps[0].output.id}`))).status).toBe(404);
    const events = await json(inst.api(`/v1/runs/${run.id}/events?limit=100`));
    expect(events.body.data.map((e: any) => e.type)).toContain("assertion.failed");
  });

  test("assert checks: equals, matches, contains, exists (true and false)", async () => {
    const scenarioId = await publishScenario(inst, {
      schema_version: 1,
      inputs: { greeting: { type: "string", default: "hello world" } },
      steps: [
        { id: "inbox", type: "inbox.create" },
        { type: "assert", value: "${inputs.greeting}", equals: "hello world", matches: "^hello", contains: "lo wo" },
        { type: "assert", value: "${steps.inbox.address}", exists: true, contains: "@" },
        { type: "assert", value: "${steps.inbox.nothing_here}", exists: false },
        { type: "assert", value: "${steps.inbox.address}", matches: "^zzz", contains: "nope" },
      ],
    });
    const r = await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 20);
    const run = r.body.data;
    expect(run.status).toBe("failed");
    expect(run.steps.slice(0, 4).map((s: any) => s.status)).toEqual(["succeeded", "succeeded", "succeeded", "succeeded"]);
    expect(run.failed_assertions.map((f: any) => f.check)).toEqual(["matches", "contains"]);
    expect(run.failed_assertions.every((f: any) => f.step_index === 4)).toBe(true);
  });

  test("an HTTP step to an origin not on the list fails with origin_not_allowed", async () => {
    const scenarioId = await publishScenario(inst, {
      schema_version: 1,
      steps: [{ id: "call", type: "http.request", url: "http://127.0.0.1:9/forbidden" }],
    });
    const r = await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 20);
    const run = r.body.data;
    expect(run.status).toBe("failed");
    expect(run.error.code).toBe("origin_not_allowed");
    expect(run.error.message).toContain("http://127.0.0.1:9");
    expect(run.steps[0].error.code).toBe("origin_not_allowed");
    expect(run.cleanup_status).toBe("not_needed");
  });

  test("message.wait that times out fails the run with message_wait_timeout", async () => {
    const scenarioId = await publishScenario(inst, {
      schema_version: 1,
      steps: [
        { id: "inbox", type: "inbox.create" },
        { type: "message.wait", inbox: "${steps.inbox.id}", timeout_seconds: 0.5 },
      ],
    });
    const run = (await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 20)).body.data;
    expect(run.status).toBe("failed");
    expect(run.error.code).toBe("message_wait_timeout");
    expect(run.cleanup_status).toBe("completed");
  });

  test("the run's own timeout_seconds ends it as timed_out", async () => {
    const scenarioId = await publishScenario(inst, { schema_version: 1, timeout_seconds: 1, steps: [{ type: "sleep", seconds: 30 }] });
    const run = (await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 20)).body.data;
    expect(run.status).toBe("timed_out");
    expect(run.error.code).toBe("run_timeout");
  });
});

describe("cancel", () => {
  test("cancel mid-wait stops the waiting step promptly, cleans up, and a second cancel is 409 invalid_state", async () => {
    const scenarioId = await publishScenario(inst, {
      schema_version: 1,
      steps: [
        { id: "inbox", type: "inbox.create" },
        { type: "message.wait", inbox: "${steps.inbox.id}", timeout_seconds: 120 },
      ],
    });
    const r = await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 0);
    expect(r.status).toBe(201);
    expect(["queued", "running"]).toContain(r.body.data.status);
    const id = r.body.data.id;
    const { run: waiting } = await until(inst, id, (run) => run.steps[1].status === "running");
    expect(waiting.status).toBe("running");
    const c = await json(inst.api(`/v1/runs/${id}/cancel`, { method: "POST" }));
    expect(c.status).toBe(200);
    expect(c.body.data.status).toBe("cancelled");
    expect(c.body.data.steps[1].status).toBe("cancelled");
    expect(c.body.data.cleanup_status).toBe("completed");
    expect((await json(inst.api(`/v1/inboxes/${waiting.steps[0].output.id}`))).status).toBe(404);
    const again = await json(inst.api(`/v1/runs/${id}/cancel`, { method: "POST" }));
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("invalid_state");
    const types = (await json(inst.api(`/v1/runs/${id}/events?limit=100`))).body.data.map((e: any) => e.type);
    expect(types).toContain("run.cancel_requested");
  });
});

describe("launch rules", () => {
  test("wait above the cap is 422; wait=0 answers at once with the run as it stands", async () => {
    const scenarioId = await publishScenario(inst, { schema_version: 1, steps: [{ type: "sleep", seconds: 0.2 }] });
    const over = await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 61);
    expect(over.status).toBe(422);
    expect(over.body.code).toBe("validation_error");
    const neg = await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, -1);
    expect(neg.status).toBe(422);
    const now = await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 0);
    expect(now.status).toBe(201);
    expect(TERMINAL).not.toContain(now.body.data.status);
    const done = await until(inst, now.body.data.id, (run) => run.status === "succeeded");
    expect(done.run.cleanup_status).toBe("not_needed");
  });

  test("the agent's permissions must cover required_permissions (403 agent_permission_denied)", async () => {
    const narrow = await json(
      inst.api("/v1/agents", { method: "POST", json: { name: "reader", permissions: ["runs:read", "messages:read"] } }),
    );
    const scenarioId = await publishScenario(inst, { schema_version: 1, steps: [{ type: "inbox.create" }] });
    const r = await launch(inst, { agent_id: narrow.body.data.id, scenario_id: scenarioId }, 0);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("agent_permission_denied");
    expect(r.body.details.missing).toEqual(["inboxes:write"]);
  });

  test("the launching key needs runs:write and the scenario's permissions itself", async () => {
    const scenarioId = await publishScenario(inst, { schema_version: 1, steps: [{ type: "inbox.create" }] });
    const mk = async (scopes: string[]) =>
      (await json(inst.api("/v1/api-keys", { method: "POST", json: { name: scopes.join(" "), scopes } }))).body.data.secret as string;
    const readOnly = await mk(["runs:read"]);
    const r1 = await json(inst.api("/v1/runs", { method: "POST", token: readOnly, json: { agent_id: agentId, scenario_id: scenarioId } }));
    expect(r1.status).toBe(403);
    expect(r1.body.code).toBe("insufficient_scope");
    const runsOnly = await mk(["runs:write", "runs:read"]);
    const r2 = await json(inst.api("/v1/runs", { method: "POST", token: runsOnly, json: { agent_id: agentId, scenario_id: scenarioId } }));
    expect(r2.status).toBe(403);
    expect(r2.body.details.missing).toEqual(["inboxes:write"]);
  });

  test("an unpublished scenario is 422 scenario_not_published; unknown agent or scenario is 404", async () => {
    const c = await json(inst.api("/v1/scenarios", { method: "POST", json: { name: "draft only" } }));
    const r = await launch(inst, { agent_id: agentId, scenario_id: c.body.data.id }, 0);
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("scenario_not_published");
    const ghost = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
    expect((await launch(inst, { agent_id: ghost, scenario_id: c.body.data.id }, 0)).status).toBe(404);
    expect((await launch(inst, { agent_id: agentId, scenario_id: ghost }, 0)).status).toBe(404);
    expect((await launch(inst, { scenario_id: c.body.data.id }, 0)).status).toBe(422);
  });

  test("inputs: declared ones are checked (required, type, unknown) and interpolated", async () => {
    const scenarioId = await publishScenario(inst, {
      schema_version: 1,
      inputs: { who: { type: "string", required: true }, n: { type: "number", default: 2 } },
      steps: [{ type: "assert", value: "${inputs.who}-${inputs.n}", equals: "ada-2" }],
    });
    expect((await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 0)).status).toBe(422);
    expect((await launch(inst, { agent_id: agentId, scenario_id: scenarioId, inputs: { who: 1 } }, 0)).status).toBe(422);
    expect((await launch(inst, { agent_id: agentId, scenario_id: scenarioId, inputs: { who: "x", extra: 1 } }, 0)).status).toBe(422);
    // Not an object: refused as such, not as "unknown input 0" (or, for [], launched with the defaults).
    for (const inputs of [[], "abc", [{ who: "ada" }]]) {
      const r = await launch(inst, { agent_id: agentId, scenario_id: scenarioId, inputs }, 0);
      expect([JSON.stringify(inputs), r.status, r.body.details?.field]).toEqual([JSON.stringify(inputs), 422, "inputs"]);
    }
    const ok = await launch(inst, { agent_id: agentId, scenario_id: scenarioId, inputs: { who: "ada" } }, 20);
    expect(ok.body.data.status).toBe("succeeded");
    expect(ok.body.data.inputs).toEqual({ who: "ada", n: 2 });
  });

  test("Idempotency-Key on launch replays the same run", async () => {
    const scenarioId = await publishScenario(inst, { schema_version: 1, steps: [{ type: "sleep", seconds: 0 }] });
    const send = () =>
      json(
        inst.api("/v1/runs", {
          method: "POST",
          headers: { "idempotency-key": "launch-1" },
          json: { agent_id: agentId, scenario_id: scenarioId },
        }),
      );
    const a = await send();
    const b = await send();
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.body.data.id).toBe(a.body.data.id);
  });

  test("Idempotency-Key: parallel retries of a launch start one run", async () => {
    const scenarioId = await publishScenario(inst, { schema_version: 1, steps: [{ type: "sleep", seconds: 0 }] });
    const launch = () =>
      json(
        inst.api("/v1/runs", {
          method: "POST",
          headers: { "idempotency-key": "launch-race" },
          json: { agent_id: agentId, scenario_id: scenarioId },
        }),
      );
    const all = await Promise.all(Array.from({ length: 8 }, launch));
    expect(all.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(all.map((r) => r.body.data.id)).size).toBe(1);
    const runs = (await json(inst.api("/v1/runs?limit=100"))).body.data.filter((r: any) => r.scenario?.id === scenarioId);
    expect(runs).toHaveLength(1);
  });
});

describe("reading runs", () => {
  test("list newest first with a status filter; unknown status is 422; show; cross-project 404", async () => {
    const all = await json(inst.api("/v1/runs?limit=100"));
    expect(all.status).toBe(200);
    const ids = all.body.data.map((r: any) => r.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    const failed = await json(inst.api("/v1/runs?status=failed"));
    expect(failed.body.data.length).toBeGreaterThan(0);
    expect(failed.body.data.every((r: any) => r.status === "failed")).toBe(true);
    const two = await json(inst.api("/v1/runs?status=failed,cancelled&limit=100"));
    expect(new Set(two.body.data.map((r: any) => r.status))).toEqual(new Set(["failed", "cancelled"]));
    const bad = await json(inst.api("/v1/runs?status=exploded"));
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe("validation_error");
    expect((await json(inst.api("/v1/runs?limit=0"))).status).toBe(422);
    const one = await json(inst.api(`/v1/runs/${ids[0]}`));
    expect(one.body.data.id).toBe(ids[0]);
    expect((await json(inst.api("/v1/runs/01ARZ3NDEKTSV4RRFFQ69G5FAV"))).status).toBe(404);
  });

  test("events page in ascending sequence with cursors", async () => {
    const run = (await json(inst.api("/v1/runs?status=succeeded&limit=1"))).body.data[0];
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await json(inst.api(`/v1/runs/${run.id}/events?limit=2${cursor ? `&cursor=${cursor}` : ""}`));
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      for (const e of page.body.data) {
        expect(e.id).toMatch(ULID);
        expect(typeof e.occurred_at).toBe("string");
        seen.push(e.sequence);
      }
      cursor = page.body.links.next;
    } while (cursor);
    expect(seen).toEqual(seen.map((_, i) => i + 1));
    expect(seen.length).toBeGreaterThan(3);
  });

  test("scopes: runs:read to read runs and events, runs:write to cancel (403 insufficient_scope)", async () => {
    const k = await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "no runs", scopes: ["inboxes:read"] } }));
    const r = await json(inst.api("/v1/runs", { token: k.body.data.secret }));
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("insufficient_scope");
    const anyRun = (await json(inst.api("/v1/runs?limit=1"))).body.data[0].id;
    expect((await json(inst.api(`/v1/runs/${anyRun}/events`, { token: k.body.data.secret }))).status).toBe(403);
    const reader = await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "runs reader", scopes: ["runs:read"] } }));
    expect((await json(inst.api(`/v1/runs/${anyRun}`, { token: reader.body.data.secret }))).status).toBe(200);
    const c = await json(inst.api(`/v1/runs/${anyRun}/cancel`, { method: "POST", token: reader.body.data.secret }));
    expect(c.status).toBe(403);
    expect(c.body.code).toBe("insufficient_scope");
  });
});

describe("run.finished reaches the live event stream", () => {
  test("GET /v1/events carries run.finished with the run", async () => {
    const scenarioId = await publishScenario(inst, { schema_version: 1, steps: [{ type: "sleep", seconds: 0 }] }, "streamed");
    const ac = new AbortController();
    const res = await inst.api("/v1/events", { signal: ac.signal, headers: { accept: "text/event-stream" } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const run = (await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 10)).body.data;
    expect(run.status).toBe("succeeded");
    let text = "";
    const end = Date.now() + 10_000;
    while (!(text.includes("run.finished") && text.includes(run.id)) && Date.now() < end) {
      const { value, done } = await Promise.race([reader.read(), Bun.sleep(500).then(() => ({ value: undefined, done: false }))]);
      if (done) break;
      if (value) text += new TextDecoder().decode(value);
    }
    ac.abort();
    expect(text).toContain("run.finished");
    expect(text).toContain(run.id);
  });

  test("an agent session's run, released, sends run.finished too", async () => {
    const ac = new AbortController();
    const res = await inst.api("/v1/events", { signal: ac.signal, headers: { accept: "text/event-stream" } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const opened = await json(inst.api("/v1/agent-sessions", { method: "POST", json: {} }));
    expect(opened.status).toBe(201);
    const runId = opened.body.data.run_ulid;
    expect((await json(inst.api(`/v1/agent-sessions/${opened.body.data.ulid}/release`, { method: "POST" }))).status).toBe(200);
    let text = "";
    const finished = () => text.split("\n\n").some((frame) => frame.includes("run.finished") && frame.includes(runId));
    const end = Date.now() + 10_000;
    while (!finished() && Date.now() < end) {
      const { value, done } = await Promise.race([reader.read(), Bun.sleep(500).then(() => ({ value: undefined, done: false }))]);
      if (done) break;
      if (value) text += new TextDecoder().decode(value);
    }
    ac.abort();
    expect(finished()).toBe(true);
  });
});

describe("approval: true parks the run", () => {
  test("launch with wait returns the parked run (awaiting_approval) at that step; cancel ends it and cleans up", async () => {
    const scenarioId = await publishScenario(
      inst,
      {
        schema_version: 1,
        steps: [
          { id: "inbox", type: "inbox.create" },
          {
            id: "risky",
            type: "http.request",
            method: "POST",
            url: `${app.url}/verify`,
            headers: { "x-api-token": "${secrets.APP_TOKEN}" },
            json: {},
            approval: true,
          },
          { type: "sleep", seconds: 0 },
        ],
      },
      "needs approval",
    );
    const before = app.tokens.length;
    const r = await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 20);
    expect(r.status).toBe(201);
    const run = r.body.data;
    expect(run.status).toBe("awaiting_approval");
    expect(run.current_step_index).toBe(1);
    expect(run.steps.map((s: any) => s.status)).toEqual(["succeeded", "awaiting_approval", "pending"]);
    expect(run.steps[1].approval).toBe(true);
    expect(run.cleanup_status).toBe("pending");
    expect(app.tokens.length).toBe(before); // nothing was sent
    const events = (await json(inst.api(`/v1/runs/${run.id}/events?limit=100`))).body.data;
    const parked = events.find((e: any) => e.type === "step.awaiting_approval");
    expect(parked.payload.snapshot).toMatchObject({ action: "http.request", target_resource_type: "http_origin" });
    expect(parked.payload.snapshot.inputs.headers["x-api-token"]).toBe("[secret:APP_TOKEN]");
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect((await json(inst.api("/v1/runs?status=awaiting_approval"))).body.data.map((x: any) => x.id)).toContain(run.id);

    const c = await json(inst.api(`/v1/runs/${run.id}/cancel`, { method: "POST" }));
    expect(c.status).toBe(200);
    expect(c.body.data.status).toBe("cancelled");
    expect(c.body.data.steps.map((s: any) => s.status)).toEqual(["succeeded", "cancelled", "skipped"]);
    expect(c.body.data.cleanup_status).toBe("completed");
    expect((await json(inst.api(`/v1/inboxes/${run.steps[0].output.id}`))).status).toBe(404);
  });

  test("a run cancelled right after launch (queued or just started) ends cancelled", async () => {
    const scenarioId = await publishScenario(inst, { schema_version: 1, steps: [{ type: "sleep", seconds: 5 }] }, "long");
    const run = (await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 0)).body.data;
    const c = await json(inst.api(`/v1/runs/${run.id}/cancel`, { method: "POST" }));
    expect(c.status).toBe(200);
    expect(c.body.data.status).toBe("cancelled");
    expect(c.body.data.error.code).toBe("cancelled");
  });
});

/** The steps that get the sign-up app's mail into a new inbox: `steps.mail` is the message. */
const signupMail = () => [
  { id: "inbox", type: "inbox.create" },
  { type: "http.request", method: "POST", url: `${app.url}/signup`, json: { email: "${steps.inbox.address}" } },
  { id: "mail", type: "message.wait", inbox: "${steps.inbox.address}", timeout_seconds: 20 },
];

describe("message.extract", () => {
  test("waits by inbox address; extracts the parsed verification code (no pattern) and a link by pattern", async () => {
    const scenarioId = await publishScenario(
      inst,
      {
        schema_version: 1,
        steps: [
          ...signupMail(),
          { id: "code", type: "message.extract", message: "${steps.mail.id}", extract: "code" },
          { id: "link", type: "message.extract", message: "${steps.mail.id}", extract: "link", pattern: "/verify\\?" },
          { id: "first", type: "message.extract", message: "${steps.mail.id}", extract: "link" },
          { type: "message.extract", message: "${steps.mail.id}", extract: "link", pattern: "nowhere" },
        ],
      },
      "extract",
    );
    const run = (await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 30)).body.data;
    expect(run.steps[3].output.value).toBe(app.lastCode);
    expect(run.steps[4].output.value).toBe(`https://signup.test/verify?code=${app.lastCode}`);
    expect(run.steps[5].output.value).toBe(`https://signup.test/verify?code=${app.lastCode}`);
    expect(run.status).toBe("failed");
    expect(run.error.code).toBe("nothing_extracted");
    expect(run.current_step_index).toBe(6);
  });
});

describe("message.extract with a pattern", () => {
  test("follows the REST pattern rules (first group) and a pattern that backtracks without end fails the step, it does not hang the server", async () => {
    const scenarioId = await publishScenario(
      inst,
      {
        schema_version: 1,
        steps: [
          ...signupMail(),
          { id: "code", type: "message.extract", message: "${steps.mail.id}", extract: "code", pattern: "code=(\\d+)" },
          { type: "message.extract", message: "${steps.mail.id}", extract: "code", pattern: "(\\w+\\s?)*#" },
        ],
      },
      "extract by pattern",
    );
    const run = (await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 30)).body.data;
    expect(run.steps[3].output.value).toBe(app.lastCode);
    expect(run.status).toBe("failed");
    expect(run.error.code).toBe("invalid_pattern");
    expect(run.current_step_index).toBe(4);
    // The server still answers at once: the runaway expression ran in the pattern worker, which was replaced.
    expect((await inst.api("/v1/inboxes")).status).toBe(200);
  });

  test("a link pattern that backtracks without end fails the step too", async () => {
    const scenarioId = await publishScenario(
      inst,
      {
        schema_version: 1,
        steps: [...signupMail(), { type: "message.extract", message: "${steps.mail.id}", extract: "link", pattern: "([\\w./:?=]+.?)*#" }],
      },
      "runaway link pattern",
    );
    const run = (await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 30)).body.data;
    expect(run.status).toBe("failed");
    expect(run.error.code).toBe("invalid_pattern");
  });
});

describe("inbox steps", () => {
  test("inbox.delete removes the run's inbox (the ledger counts it removed); an unknown inbox fails with inbox_not_found", async () => {
    const scenarioId = await publishScenario(
      inst,
      {
        schema_version: 1,
        steps: [
          { id: "inbox", type: "inbox.create", inbox_name: "short-lived", ttl_seconds: 600 },
          { id: "del", type: "inbox.delete", inbox: "${steps.inbox.id}" },
          { type: "assert", value: "${steps.del.deleted}", equals: true },
          { type: "inbox.delete", inbox: "${steps.inbox.id}" },
        ],
      },
      "inbox steps",
    );
    const run = (await launch(inst, { agent_id: agentId, scenario_id: scenarioId }, 20)).body.data;
    expect(run.steps[0].output.address).toContain("@");
    expect(run.steps.slice(0, 3).map((s: any) => s.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect(run.status).toBe("failed");
    expect(run.error.code).toBe("inbox_not_found");
    expect(run.cleanup_status).toBe("completed");
    const events = (await json(inst.api(`/v1/runs/${run.id}/events?limit=100`))).body.data.map((e: any) => e.type);
    expect(events).not.toContain("cleanup.started");
  });
});

describe("the agent is checked before every step", () => {
  test("revoking the agent mid-run fails the run at its next step with agent_revoked", async () => {
    const a = (
      await json(
        inst.api("/v1/agents", { method: "POST", json: { name: "short-lived agent", permissions: ["inboxes:write", "inboxes:read"] } }),
      )
    ).body.data;
    const scenarioId = await publishScenario(
      inst,
      {
        schema_version: 1,
        steps: [
          { id: "inbox", type: "inbox.create" },
          { id: "nap", type: "sleep", seconds: 1 },
          { type: "assert", value: 1, equals: 1 },
        ],
      },
      "agent check",
    );
    const id = (await launch(inst, { agent_id: a.id, scenario_id: scenarioId }, 0)).body.data.id;
    await until(inst, id, (run) => run.steps[1].status === "running");
    expect((await inst.api(`/v1/agents/${a.id}`, { method: "DELETE" })).status).toBe(204);
    const { run } = await until(inst, id, (run) => TERMINAL.includes(run.status));
    expect(run.status).toBe("failed");
    expect(run.error.code).toBe("agent_revoked");
    expect(run.current_step_index).toBe(2);
    expect(run.agent.name).toBe("short-lived agent");
    expect(run.cleanup_status).toBe("completed");
  });
});
