// Approvals (CONTRACT.md: the Approval state table and the Approvals section), rule by rule, against a
// real server: who may list and decide (owner, admin, member device sessions; an API key; another
// team), the status filter, approve resuming the run at the same step, reject failing it with the
// reason, 409 on a decided approval, 410 on an expired one (INBOXD_APPROVAL_TTL), self_approved, the
// binding snapshot with secrets redacted, webhooks and SSE, cancel of a parked run, restarts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addUser, json, login, startInboxd, ULID, type Instance } from "../support/harness";
import { publishScenario, standardAgent, until } from "../support/automation";
import { Receiver } from "../support/webhook-receiver";

const SECRET = "app-token-7f3c9e1b5d";

let inst: Instance;
let owner: string, admin: string, member: string, other: string;
let projectA: string, projectB: string;
let app: Receiver, hooks: Receiver;
let agentId: string;
let gateId: string, actId: string;

beforeAll(async () => {
  inst = await startInboxd();
  await addUser(inst, "admin@a.test", "admin-password-1", "admin");
  await addUser(inst, "member@a.test", "member-password-1", "member");
  await addUser(inst, "owner@b.test", "owner-b-password-1", "owner", "team-b");
  [owner, admin, member, other] = await Promise.all([
    login(inst),
    login(inst, "admin@a.test", "admin-password-1"),
    login(inst, "member@a.test", "member-password-1"),
    login(inst, "owner@b.test", "owner-b-password-1"),
  ]);
  projectA = (await json(inst.api("/v1/projects", { token: owner }))).body.data[0].id;
  projectB = (await json(inst.api("/v1/projects", { token: other }))).body.data[0].id;
  expect(projectB).not.toBe(projectA);

  // `app` is what the gated step calls; `hooks` receives the webhooks. Both are allowed origins.
  app = await Receiver.start();
  hooks = await Receiver.start();
  for (const r of [app, hooks]) {
    expect((await json(inst.api("/v1/http-origins", { method: "POST", json: { origin: r.url("") } }))).status).toBe(201);
  }
  expect((await json(inst.api("/v1/scenario-secrets", { method: "POST", json: { name: "APP_TOKEN", value: SECRET } }))).status).toBe(201);
  const wh = await json(
    inst.api("/v1/webhooks", { method: "POST", json: { url: hooks.url("/hook"), event_types: ["approval.pending", "run.finished"] } }),
  );
  expect(wh.status).toBe(201);
  agentId = await standardAgent(inst);
  gateId = await publishScenario(
    inst,
    {
      schema_version: 1,
      steps: [
        { id: "inbox", type: "inbox.create" },
        { id: "gate", type: "sleep", seconds: 0, approval: true },
        { type: "assert", value: "${steps.inbox.address}", contains: "@" },
      ],
    },
    "gate",
  );
  actId = await publishScenario(
    inst,
    {
      schema_version: 1,
      steps: [
        { id: "inbox", type: "inbox.create" },
        {
          id: "call",
          type: "http.request",
          method: "POST",
          url: app.url("/act"),
          headers: { "x-api-token": "${secrets.APP_TOKEN}" },
          json: { address: "${steps.inbox.address}", note: "token ${secrets.APP_TOKEN}" },
          approval: true,
        },
        { type: "assert", value: "${steps.call.status}", equals: 200 },
      ],
    },
    "act",
  );
}, 60_000);
afterAll(async () => {
  app?.stop();
  hooks?.stop();
  await inst?.stop();
  inst?.cleanup();
});

/** Launches a scenario (with the bootstrap API key unless a device token is given) and waits until it parks. */
async function launchParked(scenarioId: string, token?: string, i: Instance = inst) {
  const r = await json(
    i.api("/v1/runs?wait=20", {
      method: "POST",
      token,
      project: token ? projectA : undefined,
      json: { agent_id: agentId, scenario_id: scenarioId },
    }),
  );
  expect(r.status).toBe(201);
  expect(r.body.data.status).toBe("awaiting_approval");
  return r.body.data;
}

async function list(query = "", token = owner, project = projectA, i: Instance = inst) {
  return json(i.api(`/v1/approvals${query}`, { token, project }));
}

/** The approval of a run, as the owner lists it. */
async function approvalOf(runId: string, i: Instance = inst, token = owner): Promise<any> {
  const r = await list("?limit=100", token, projectA, i);
  expect(r.status).toBe(200);
  const a = r.body.data.find((x: any) => x.run_ulid === runId);
  expect(a).toBeDefined();
  return a;
}

function decide(id: string, verb: "approve" | "reject", token = owner, project = projectA, body?: unknown, i: Instance = inst) {
  return json(i.api(`/v1/approvals/${id}/${verb}`, { method: "POST", token, project, json: body }));
}

describe("who may list and decide (Approvals rules 1-3)", () => {
  test("owner and admin device sessions list; a member is 403; an API key is 403 on list, approve and reject; another team sees 404", async () => {
    const run = await launchParked(gateId);
    const ap = await approvalOf(run.id);
    expect(ap.ulid).toMatch(ULID);

    // Rule 2: an API-key principal, whatever else it sends.
    for (const r of [
      await list("", inst.key),
      await list("?status=bogus", inst.key),
      await decide(ap.ulid, "approve", inst.key),
      await decide(ap.ulid, "reject", inst.key, projectA, { reason: "nope" }),
      await decide(ap.ulid, "reject", inst.key, projectA, { reason: "x".repeat(501) }),
    ]) {
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("principal_not_permitted");
      expect(typeof r.body.request_id).toBe("string");
    }

    // Rule 1: a member's device session may neither list nor decide.
    for (const r of [
      await list("", member),
      await decide(ap.ulid, "approve", member),
      await decide(ap.ulid, "reject", member, projectA, { reason: "no" }),
    ]) {
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("principal_not_permitted");
    }

    // Owner and admin list it.
    for (const token of [owner, admin]) {
      const r = await list("?status=pending", token);
      expect(r.status).toBe(200);
      expect(r.body.data.map((x: any) => x.ulid)).toContain(ap.ulid);
    }

    // Rule 3: another team's owner: its own list does not show it, the id is 404 in its project,
    // and team A's project is not its to select (404, never 403).
    const theirs = await list("", other, projectB);
    expect(theirs.status).toBe(200);
    expect(theirs.body.data).toEqual([]);
    for (const r of [
      await decide(ap.ulid, "approve", other, projectB),
      await decide(ap.ulid, "reject", other, projectB, { reason: "mine" }),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("not_found");
    }
    expect((await list("", other, projectA)).status).toBe(404);
    expect((await decide(ap.ulid, "approve", other, projectA)).status).toBe(404);
    // A device session must select its project.
    const noProject = await json(inst.api("/v1/approvals", { token: owner }));
    expect(noProject.status).toBe(400);
    expect(noProject.body.code).toBe("project_required");

    // None of the refused calls touched it.
    expect((await approvalOf(run.id)).status).toBe("pending");
    expect((await json(inst.api(`/v1/runs/${run.id}`))).body.data.status).toBe("awaiting_approval");

    // The admin decides.
    const rej = await decide(ap.ulid, "reject", admin, projectA, { reason: "admin says no" });
    expect(rej.status).toBe(200);
    expect(rej.body.data).toMatchObject({ ulid: ap.ulid, status: "rejected", decision_reason: "admin says no" });
  });
});

describe("status filter (rule 4)", () => {
  test("an unknown status is 422 validation_error; each of pending, approved, rejected, expired filters; pages walk by cursor", async () => {
    for (const q of ["?status=bogus", "?status=PENDING", "?status=", "?status=pending,approved", "?limit=0", "?limit=101"]) {
      const r = await list(q);
      expect(r.status, q).toBe(422);
      expect(r.body.code).toBe("validation_error");
    }
    const ids: Record<string, string> = {};
    const pendingRun = await launchParked(gateId);
    ids.pending = (await approvalOf(pendingRun.id)).ulid;
    const approvedRun = await launchParked(gateId);
    ids.approved = (await approvalOf(approvedRun.id)).ulid;
    expect((await decide(ids.approved, "approve")).status).toBe(200);
    const rejectedRun = await launchParked(gateId);
    ids.rejected = (await approvalOf(rejectedRun.id)).ulid;
    expect((await decide(ids.rejected, "reject", owner, projectA, {})).status).toBe(200);
    const cancelledRun = await launchParked(gateId);
    ids.expired = (await approvalOf(cancelledRun.id)).ulid;
    expect((await json(inst.api(`/v1/runs/${cancelledRun.id}/cancel`, { method: "POST" }))).body.data.status).toBe("cancelled");

    for (const status of ["pending", "approved", "rejected", "expired"]) {
      const r = await list(`?status=${status}&limit=100`);
      expect(r.status).toBe(200);
      expect(r.body.data.length).toBeGreaterThan(0);
      expect(r.body.data.every((x: any) => x.status === status)).toBe(true);
      expect(r.body.data.map((x: any) => x.ulid)).toContain(ids[status]);
      for (const other of Object.values(ids).filter((id) => id !== ids[status]))
        expect(r.body.data.map((x: any) => x.ulid)).not.toContain(other);
    }

    // Unfiltered, newest first, one per page until links.next is null.
    const all = (await list("?limit=100")).body.data.map((x: any) => x.ulid);
    expect(all).toEqual([...all].sort().reverse());
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await json(inst.api(`/v1/approvals?limit=1${cursor ? `&cursor=${cursor}` : ""}`, { token: owner, project: projectA }));
      expect(page.status).toBe(200);
      expect(page.body.meta.limit).toBe(1);
      walked.push(...page.body.data.map((x: any) => x.ulid));
      cursor = page.body.links.next;
    } while (cursor);
    expect(walked).toEqual(all);
    expect((await decide(ids.pending, "reject")).status).toBe(200);
  });
});

describe("approve and reject", () => {
  test("approve resumes the run at the same step and it succeeds; the snapshot shows action, target and resolved inputs with the secret redacted", async () => {
    const run = await launchParked(actId);
    expect(run.current_step_index).toBe(1);
    expect(run.steps.map((s: any) => s.status)).toEqual(["succeeded", "awaiting_approval", "pending"]);
    const address = run.steps[0].output.address;
    expect(app.of("/act")).toHaveLength(0); // nothing done before the decision

    const ap = await approvalOf(run.id);
    expect(ap).toMatchObject({
      status: "pending",
      action: "http.request",
      run_ulid: run.id,
      step_index: 1,
      target_resource_type: "http_origin",
      target_resource_id: app.url("/act"),
      decided_at: null,
      decision_reason: null,
      self_approved: false,
    });
    // Default INBOXD_APPROVAL_TTL: a day.
    expect(Date.parse(ap.expires_at) - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(ap.binding_snapshot).toMatchObject({
      action: "http.request",
      target_resource_type: "http_origin",
      target_resource_id: app.url("/act"),
    });
    expect(ap.binding_snapshot.inputs).toMatchObject({
      method: "POST",
      url: app.url("/act"),
      headers: { "x-api-token": "[secret:APP_TOKEN]" },
      json: { address, note: "token [secret:APP_TOKEN]" },
    });
    const listed = await list("?limit=100");
    expect(JSON.stringify(listed.body)).not.toContain(SECRET);

    const ok = await decide(ap.ulid, "approve");
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ ulid: ap.ulid, status: "approved", decision_reason: null, self_approved: false });
    expect(Date.parse(ok.body.data.decided_at)).toBeGreaterThan(0);

    const { run: done, events } = await until(inst, run.id, (r) => r.status === "succeeded", 20);
    expect(done.steps.map((s: any) => s.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect(done.steps[1].output.status).toBe(200);
    // The approved step did exactly what the snapshot said, once, with the real secret.
    const calls = app.of("/act");
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers["x-api-token"]).toBe(SECRET);
    expect(calls[0]!.json).toEqual({ address, note: `token ${SECRET}` });
    const types = events.map((e: any) => e.type);
    expect(types.filter((t: string) => t === "step.awaiting_approval")).toHaveLength(1);
    expect(types.indexOf("step.approved")).toBeLessThan(types.indexOf("run.resumed"));
    expect(events.find((e: any) => e.type === "run.resumed").payload).toEqual({ step_index: 1, reason: "approved" });
    expect(events.filter((e: any) => e.type === "step.started").map((e: any) => e.payload.step_index)).toEqual([0, 1, 2]);
    expect(JSON.stringify(events)).not.toContain(SECRET);

    // Deciding an approval already approved: 409 invalid_state, either way.
    for (const verb of ["approve", "reject"] as const) {
      const again = await decide(ap.ulid, verb);
      expect(again.status).toBe(409);
      expect(again.body.code).toBe("invalid_state");
      expect(again.body.details.status).toBe("approved");
    }
  });

  test("reject fails the run and stores the reason (500 characters fit, 501 are 422); deciding it again is 409", async () => {
    const run = await launchParked(gateId);
    const ap = await approvalOf(run.id);
    const long = await decide(ap.ulid, "reject", owner, projectA, { reason: "ü".repeat(501) });
    expect(long.status).toBe(422);
    expect(long.body.code).toBe("validation_error");
    expect((await approvalOf(run.id)).status).toBe("pending");

    const reason = "ü".repeat(499) + "!";
    const r = await decide(ap.ulid, "reject", owner, projectA, { reason });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ ulid: ap.ulid, status: "rejected", decision_reason: reason });
    expect(Date.parse(r.body.data.decided_at)).toBeGreaterThan(0);
    const { run: failed } = await until(inst, run.id, (x) => x.status === "failed", 20);
    expect(failed.error).toEqual({ code: "approval_rejected", message: reason });
    expect(failed.steps.map((s: any) => s.status)).toEqual(["succeeded", "failed", "skipped"]);
    expect(failed.cleanup_status).toBe("completed");
    expect((await approvalOf(run.id)).decision_reason).toBe(reason);

    for (const verb of ["approve", "reject"] as const) {
      const again = await decide(ap.ulid, verb, owner, projectA, verb === "reject" ? { reason: "twice" } : undefined);
      expect(again.status).toBe(409);
      expect(again.body.code).toBe("invalid_state");
      expect(again.body.details.status).toBe("rejected");
    }
  });

  test("reject without a body or with reason null stores decision_reason null", async () => {
    for (const body of [undefined, { reason: null }]) {
      const run = await launchParked(gateId);
      const ap = await approvalOf(run.id);
      const r = await decide(ap.ulid, "reject", owner, projectA, body);
      expect(r.status).toBe(200);
      expect(r.body.data.decision_reason).toBeNull();
      const { run: failed } = await until(inst, run.id, (x) => x.status === "failed", 20);
      expect(failed.error.code).toBe("approval_rejected");
    }
  });

  test("an unknown approval id is 404; a malformed one is 422", async () => {
    const unknown = await decide("01ARZ3NDEKTSV4RRFFQ69G5FAV", "approve");
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("not_found");
    expect((await decide("not-a-ulid", "approve")).status).toBe(422);
  });
});

describe("self_approved", () => {
  test("true when the approver launched the run (device session), false for a run launched by another user or an API key", async () => {
    const byOwner = await launchParked(gateId, owner);
    const ownerId = (await json(inst.api("/v1/me", { token: owner }))).body.data.id;
    expect(ownerId).toBeString();
    expect(byOwner.trigger.user_id).toBe(ownerId);
    const a1 = await decide((await approvalOf(byOwner.id)).ulid, "approve", owner);
    expect(a1.status).toBe(200);
    expect(a1.body.data.self_approved).toBe(true);

    const byAdmin = await launchParked(gateId, admin);
    const a2 = await decide((await approvalOf(byAdmin.id)).ulid, "approve", owner);
    expect(a2.body.data.self_approved).toBe(false);

    const byAdmin2 = await launchParked(gateId, admin);
    const a3 = await decide((await approvalOf(byAdmin2.id)).ulid, "reject", admin, projectA, { reason: "changed my mind" });
    expect(a3.body.data.self_approved).toBe(true);

    const byKey = await launchParked(gateId);
    const a4 = await decide((await approvalOf(byKey.id)).ulid, "approve", owner);
    expect(a4.body.data.self_approved).toBe(false);
    for (const r of [byOwner, byAdmin, byKey]) await until(inst, r.id, (x) => x.status === "succeeded", 20);
  });
});

/** A minimal SSE reader over fetch. */
async function openStream(token: string, project: string) {
  const ac = new AbortController();
  const frames: { event?: string; data?: any }[] = [];
  const res = await inst.api("/v1/events", { token, project, signal: ac.signal });
  expect(res.status).toBe(200);
  void (async () => {
    const dec = new TextDecoder();
    let buf = "";
    try {
      for await (const chunk of res.body!) {
        buf += dec.decode(chunk, { stream: true });
        let i: number;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          const f: { event?: string; data?: any } = {};
          for (const line of buf.slice(0, i).split("\n")) {
            if (line.startsWith("event: ")) f.event = line.slice(7);
            else if (line.startsWith("data: ")) f.data = JSON.parse(line.slice(6));
          }
          buf = buf.slice(i + 2);
          frames.push(f);
        }
      }
    } catch {}
  })();
  return {
    frames,
    close: () => ac.abort(),
    async waitFor(pred: (f: { event?: string; data?: any }) => boolean) {
      const end = Date.now() + 15_000;
      for (;;) {
        const f = frames.find(pred);
        if (f) return f;
        if (Date.now() > end) throw new Error(`no such SSE frame; got ${frames.map((x) => x.event).join(", ")}`);
        await Bun.sleep(50);
      }
    },
  };
}

describe("events", () => {
  test("approval.pending and run.finished reach the webhook and the SSE stream (and not another team's stream)", async () => {
    const mine = await openStream(owner, projectA);
    const theirs = await openStream(other, projectB);
    try {
      const run = await launchParked(gateId);
      const ap = await approvalOf(run.id);

      const pendingHook = await hooks.waitFor((got) =>
        got.find((g) => g.json?.type === "approval.pending" && g.json.data.approval.ulid === ap.ulid),
      );
      expect(pendingHook.headers["webhook-signature"]).toStartWith("v1,");
      expect(pendingHook.json.data.approval).toMatchObject({ status: "pending", run_ulid: run.id, step_index: 1, action: "sleep" });
      const pendingFrame = await mine.waitFor((f) => f.event === "approval.pending" && f.data?.data?.approval?.ulid === ap.ulid);
      expect(pendingFrame.data.type).toBe("approval.pending");

      expect((await decide(ap.ulid, "approve")).status).toBe(200);
      const finishedHook = await hooks.waitFor((got) => got.find((g) => g.json?.type === "run.finished" && g.json.data.run.id === run.id));
      expect(finishedHook.json.data.run.status).toBe("succeeded");
      const finishedFrame = await mine.waitFor((f) => f.event === "run.finished" && f.data?.data?.run?.id === run.id);
      expect(finishedFrame.data.data.run.status).toBe("succeeded");

      // A rejected run's run.finished says failed.
      const run2 = await launchParked(gateId);
      expect((await decide((await approvalOf(run2.id)).ulid, "reject", owner, projectA, { reason: "no" })).status).toBe(200);
      const failedHook = await hooks.waitFor((got) => got.find((g) => g.json?.type === "run.finished" && g.json.data.run.id === run2.id));
      expect(failedHook.json.data.run.status).toBe("failed");

      await Bun.sleep(300);
      expect(JSON.stringify(theirs.frames)).not.toContain(ap.ulid);
      expect(JSON.stringify(theirs.frames)).not.toContain(run.id);
    } finally {
      mine.close();
      theirs.close();
    }
  });

  test("a webhook delivery to an allowed origin updates that origin's last_used_at", async () => {
    const r = await Receiver.start();
    try {
      const o = await json(inst.api("/v1/http-origins", { method: "POST", json: { origin: r.url("") } }));
      expect(o.status).toBe(201);
      expect(o.body.data.last_used_at).toBeNull();
      const wh = await json(inst.api("/v1/webhooks", { method: "POST", json: { url: r.url("/w"), event_types: ["run.finished"] } }));
      expect(wh.status).toBe(201);
      const before = Date.now();
      expect((await json(inst.api(`/v1/webhooks/${wh.body.data.id}/test`, { method: "POST", json: {} }))).status).toBe(200);
      const first = (await json(inst.api(`/v1/http-origins/${o.body.data.id}`))).body.data.last_used_at;
      expect(first).not.toBeNull();
      expect(Date.parse(first)).toBeGreaterThanOrEqual(before - 1000);

      // A real event delivery (the dispatcher's queue) moves it again.
      const id = await publishScenario(inst, { schema_version: 1, steps: [{ type: "sleep", seconds: 0 }] }, "quick");
      const run = (await json(inst.api("/v1/runs?wait=20", { method: "POST", json: { agent_id: agentId, scenario_id: id } }))).body.data;
      expect(run.status).toBe("succeeded");
      await r.waitFor((got) => got.some((g) => g.path === "/w" && g.json?.data?.run?.id === run.id));
      let second = first;
      for (let i = 0; i < 100 && second === first; i++) {
        await Bun.sleep(50);
        second = (await json(inst.api(`/v1/http-origins/${o.body.data.id}`))).body.data.last_used_at;
      }
      expect(Date.parse(second)).toBeGreaterThan(Date.parse(first));
      expect((await inst.api(`/v1/webhooks/${wh.body.data.id}`, { method: "DELETE" })).status).toBe(204);
    } finally {
      r.stop();
    }
  });
});

describe("cancelling a parked run", () => {
  test("closes its approval as expired with decision_reason 'run cancelled'; deciding it then is 410", async () => {
    const run = await launchParked(actId);
    const ap = await approvalOf(run.id);
    const c = await json(inst.api(`/v1/runs/${run.id}/cancel`, { method: "POST" }));
    expect(c.status).toBe(200);
    expect(c.body.data.status).toBe("cancelled");
    const closed = await approvalOf(run.id);
    expect(closed).toMatchObject({ ulid: ap.ulid, status: "expired", decision_reason: "run cancelled", decided_at: null });
    expect((await list("?status=pending&limit=100")).body.data.map((x: any) => x.ulid)).not.toContain(ap.ulid);
    for (const verb of ["approve", "reject"] as const) {
      const r = await decide(ap.ulid, verb);
      expect(r.status).toBe(410);
      expect(r.body.code).toBe("approval_expired");
    }
    expect((await json(inst.api(`/v1/runs/${run.id}`))).body.data.status).toBe("cancelled");
    expect(app.of("/act").filter((g) => g.json?.address === run.steps[0].output.address)).toHaveLength(0);
  });
});

describe("restarts", () => {
  test("a pending approval survives a restart; once approved, a crash while the step runs does not ask again", async () => {
    const id = await publishScenario(
      inst,
      {
        schema_version: 1,
        steps: [
          { id: "inbox", type: "inbox.create" },
          { id: "gate", type: "sleep", seconds: 2, approval: true },
          { type: "assert", value: "${steps.inbox.address}", contains: "@" },
        ],
      },
      "slow gate",
    );
    const run = await launchParked(id);
    const ap = await approvalOf(run.id);
    await inst.stop();
    inst = await inst.restart();
    expect(await approvalOf(run.id)).toMatchObject({ ulid: ap.ulid, status: "pending" });

    expect((await decide(ap.ulid, "approve")).status).toBe(200);
    await until(inst, run.id, (r) => r.steps[1].status === "running", 20);
    await inst.kill();
    inst = await inst.restart();
    const { run: done, events } = await until(inst, run.id, (r) => r.status === "succeeded", 40);
    expect(done.steps.map((s: any) => s.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect(events.filter((e: any) => e.type === "step.awaiting_approval")).toHaveLength(1);
    expect(events.filter((e: any) => e.type === "run.resumed").map((e: any) => e.payload)).toEqual([
      { step_index: 1, reason: "approved" },
      { step_index: 1, reason: "recovered" },
    ]);
    expect((await approvalOf(run.id)).status).toBe("approved");
    expect((await list("?status=pending&limit=100")).body.data.filter((x: any) => x.run_ulid === run.id)).toEqual([]);
  }, 60_000);
});

describe("expiry (INBOXD_APPROVAL_TTL)", () => {
  let short: Instance;
  let shortOwner: string;
  let shortGate: string;
  let shortProject: string;
  beforeAll(async () => {
    short = await startInboxd({ INBOXD_APPROVAL_TTL: "2" });
    shortOwner = await login(short);
    shortProject = (await json(short.api("/v1/projects", { token: shortOwner }))).body.data[0].id;
    shortGate = await publishScenario(
      short,
      {
        schema_version: 1,
        steps: [
          { id: "gate", type: "sleep", seconds: 0, approval: true },
          { type: "sleep", seconds: 0 },
        ],
      },
      "gate",
    );
  }, 30_000);
  afterAll(async () => {
    await short?.stop();
    short?.cleanup();
  });

  async function parkOnShort() {
    const agent = await standardAgent(short);
    const r = await json(short.api("/v1/runs?wait=20", { method: "POST", json: { agent_id: agent, scenario_id: shortGate } }));
    expect(r.body.data.status).toBe("awaiting_approval");
    return r.body.data;
  }

  test("deciding an expired pending approval is 410 approval_expired; the run fails and the approval lists as expired", async () => {
    const run = await parkOnShort();
    // Read straight after parking (a 2 s lifetime): expires_at is the creation time plus the TTL.
    const ap = (await json(short.api("/v1/approvals?limit=100", { token: shortOwner, project: shortProject }))).body.data.find(
      (x: any) => x.run_ulid === run.id,
    );
    expect(Date.parse(ap.expires_at) - Date.now()).toBeLessThanOrEqual(2000);
    while (Date.now() <= Date.parse(ap.expires_at)) await Bun.sleep(100);
    for (const verb of ["approve", "reject"] as const) {
      const r = await json(short.api(`/v1/approvals/${ap.ulid}/${verb}`, { method: "POST", token: shortOwner, project: shortProject }));
      expect(r.status).toBe(410);
      expect(r.body.code).toBe("approval_expired");
      expect(r.body.details.expires_at).toBe(ap.expires_at);
    }
    const { run: failed } = await until(short, run.id, (x) => x.status === "failed", 20);
    expect(failed.error.code).toBe("approval_expired");
    expect(failed.steps.map((s: any) => s.status)).toEqual(["failed", "skipped"]);
    const expired = (await json(short.api("/v1/approvals?status=expired&limit=100", { token: shortOwner, project: shortProject }))).body
      .data;
    expect(expired.find((x: any) => x.ulid === ap.ulid)).toMatchObject({ status: "expired", decided_at: null, self_approved: false });
    const pending = (await json(short.api("/v1/approvals?status=pending&limit=100", { token: shortOwner, project: shortProject }))).body
      .data;
    expect(pending.map((x: any) => x.ulid)).not.toContain(ap.ulid);
  });

  test("without any decision the scheduler expires the approval and fails its run", async () => {
    const run = await parkOnShort();
    // Only the run is watched (with the API key): nothing touches the approvals API until it has failed.
    const { run: failed, events } = await until(short, run.id, (x) => x.status === "failed", 20);
    expect(failed.error.code).toBe("approval_expired");
    expect(events.at(-1).type).toBe("run.finished");
    const all = (await json(short.api("/v1/approvals?limit=100", { token: shortOwner, project: shortProject }))).body.data;
    expect(all.find((x: any) => x.run_ulid === run.id)).toMatchObject({ status: "expired", decided_at: null, decision_reason: null });
  });
});
