// The automation repositories' contract (src/storage/automation.ts) on both engines, like
// repositories-conformance.test.ts: agents, origins, scenario secrets, scenarios and versions,
// runs with their leases, run events, the cleanup ledger, agent sessions and approvals.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AgentRow, ApprovalRow, NewRun, OriginRow, ScenarioRow, VersionRow } from "../../src/storage/automation";
import { type Engine, storageEngines } from "../support/storage-engines";

const T0 = "2026-01-01T00:00:00.000Z";
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

const agent = (id: string, patch: Partial<AgentRow> = {}): AgentRow => ({
  id,
  project_id: "pr_1",
  name: `agent ${id}`,
  description: "",
  permissions: '["inboxes:read"]',
  preset: null,
  revoked_at: null,
  created_at: T0,
  updated_at: T0,
  ...patch,
});
const origin = (id: string, o: string, wildcard = 0): OriginRow => ({
  id,
  project_id: "pr_1",
  origin: o,
  scheme: "https",
  host: o.replace("https://", ""),
  port: 443,
  is_wildcard: wildcard,
  description: null,
  last_used_at: null,
  created_at: T0,
  updated_at: T0,
});
const scenario = (id: string): ScenarioRow => ({
  id,
  project_id: "pr_1",
  name: `scenario ${id}`,
  description: "",
  draft_definition: "{}",
  draft_revision: 1,
  current_version_id: null,
  deleted_at: null,
  created_at: T0,
  updated_at: T0,
});
const version = (id: string, n: number): VersionRow => ({
  id,
  scenario_id: "sc_1",
  project_id: "pr_1",
  version: n,
  schema_version: 1,
  definition: `{"v":${n}}`,
  definition_hash: `h${n}`,
  required_permissions: "[]",
  has_test_mutations: 0,
  published_at: at(n),
});
const run = (id: string, patch: Partial<NewRun> = {}): NewRun => ({
  id,
  project_id: "pr_1",
  agent_id: "ag_1",
  agent_name: "agent ag_1",
  scenario_id: "sc_1",
  scenario_name: "scenario sc_1",
  version_id: "sv_1",
  version: 1,
  trigger_type: "api",
  trigger: "{}",
  status: "queued",
  inputs: "{}",
  step_count: 2,
  steps: "[]",
  launched_by_user: null,
  started_at: null,
  created_at: T0,
  updated_at: T0,
  ...patch,
});
const approval = (id: string, runId: string, step: number): ApprovalRow => ({
  id,
  project_id: "pr_1",
  run_id: runId,
  step_index: step,
  status: "pending",
  action: "messages.delete",
  target_resource_type: "inbox",
  target_resource_id: "ib_1",
  binding_snapshot: "{}",
  expires_at: at(30),
  decided_at: null,
  decided_by: null,
  decision_reason: null,
  self_approved: 0,
  created_at: T0,
});

for (const engine of storageEngines()) {
  describe.skipIf(!engine.available)(`automation repositories on ${engine.name}`, () => {
    let s: Engine;

    beforeAll(async () => {
      s = await engine.open();
      await s.teams.insert({ id: "tm_1", name: "team", plan: "free", usedBytes: 0, createdAt: T0 });
      await s.users.insert({
        id: "us_1",
        teamId: "tm_1",
        email: "u@example.test",
        name: "U",
        passwordHash: "x",
        role: "owner",
        createdAt: T0,
      });
      await s.projects.insert({ id: "pr_1", teamId: "tm_1", slug: "p1", name: "P", environment: "live", settings: {}, createdAt: T0 });
    });

    afterAll(async () => {
      await s?.close();
      await engine.stop();
    });

    test("agents: one standard agent however many callers ask at once; live lists, update, revoke", async () => {
      const made = await Promise.all(
        ["ag_s1", "ag_s2", "ag_s3"].map((id) => s.agents.ensureStandard(agent(id, { name: "Standard", preset: "standard" }))),
      );
      expect(new Set(made.map((a) => a.id)).size).toBe(1);
      await s.agents.insert(agent("ag_1"));
      await s.agents.insert(agent("ag_2"));
      await s.agents.update("ag_2", { name: "renamed", description: "d", permissions: "[]", updated_at: at(1) });
      expect((await s.agents.byId("ag_2"))!.name).toBe("renamed");
      await s.agents.revoke("ag_2", at(2));
      expect(await s.agents.liveInProject("pr_1", "ag_2")).toBeNull();
      expect((await s.agents.inProject("pr_1", "ag_2"))!.revoked_at).toBe(at(2));
      expect((await s.agents.listLive("pr_1", null, 10)).map((a) => a.id)).toEqual([made[0].id, "ag_1"]);
      expect((await s.agents.listLive("pr_1", made[0].id, 10)).map((a) => a.id)).toEqual(["ag_1"]);
    });

    test("origins: insertIfAbsent once per origin, exact ones before wildcards, touch, delete", async () => {
      expect(await s.origins.insertIfAbsent(origin("or_2", "https://*.example.test", 1))).toBe(true);
      expect(await s.origins.insertIfAbsent(origin("or_1", "https://app.example.test"))).toBe(true);
      expect(await s.origins.insertIfAbsent(origin("or_3", "https://app.example.test"))).toBe(false);
      expect(await s.origins.idByOrigin("pr_1", "https://app.example.test")).toBe("or_1");
      expect(await s.origins.idByOrigin("pr_1", "https://none.test")).toBeNull();
      expect((await s.origins.allForMatching("pr_1")).map((o) => o.id)).toEqual(["or_1", "or_2"]);
      expect((await s.origins.list("pr_1", null, 1)).map((o) => o.id)).toEqual(["or_2"]);
      await s.origins.updateDescription("or_1", "the app", at(1));
      await s.origins.touch("or_1", at(2));
      const o = await s.origins.inProject("pr_1", "or_1");
      expect([o!.description, o!.last_used_at, o!.port]).toEqual(["the app", at(2), 443]);
      expect(await s.origins.delete("pr_1", "or_2")).toBe(true);
      expect(await s.origins.delete("pr_1", "or_2")).toBe(false);
    });

    test("scenario secrets: unique names, rotate bumps the version, takeForUse marks use", async () => {
      const secret = (id: string, name: string) => ({
        id,
        project_id: "pr_1",
        name,
        value_enc: `enc-${id}`,
        version: 1,
        last_used_at: null,
        rotated_at: null,
        created_at: T0,
        updated_at: T0,
      });
      expect(await s.scenarioSecrets.insertIfAbsent(secret("se_1", "API_TOKEN"))).toBe(true);
      expect(await s.scenarioSecrets.insertIfAbsent(secret("se_2", "API_TOKEN"))).toBe(false);
      expect(await s.scenarioSecrets.insertIfAbsent(secret("se_3", "OTHER"))).toBe(true);
      expect((await s.scenarioSecrets.names("pr_1")).sort()).toEqual(["API_TOKEN", "OTHER"]);
      const r = await s.scenarioSecrets.rotate("pr_1", "se_1", "enc-new", at(1));
      expect([r!.value_enc, r!.version, r!.rotated_at]).toEqual(["enc-new", 2, at(1)]);
      expect(await s.scenarioSecrets.takeForUse("pr_1", ["API_TOKEN", "MISSING"], at(2))).toEqual([
        { name: "API_TOKEN", value_enc: "enc-new" },
      ]);
      expect((await s.scenarioSecrets.inProject("pr_1", "se_1"))!.last_used_at).toBe(at(2));
      expect((await s.scenarioSecrets.list("pr_1", null, 10)).map((x) => x.id)).toEqual(["se_3", "se_1"]);
      expect(await s.scenarioSecrets.delete("pr_1", "se_3")).toBe(true);
    });

    test("scenarios and versions: optimistic draft revisions, soft delete, version numbers", async () => {
      await s.scenarios.insert(scenario("sc_1"));
      await s.scenarios.insert(scenario("sc_2"));
      const fields = { name: "n2", description: "d2", draft_definition: '{"a":1}', updated_at: at(1) };
      const updated = await s.scenarios.updateDraft("sc_1", 1, fields);
      expect([updated!.draft_revision, updated!.draft_definition]).toEqual([2, '{"a":1}']);
      expect(await s.scenarios.updateDraft("sc_1", 1, fields)).toBeNull();
      expect(await s.scenarioVersions.latestNumber("sc_1")).toBeNull();
      await s.scenarioVersions.insert(version("sv_1", 1));
      await s.scenarioVersions.insert(version("sv_2", 2));
      await expect(s.scenarioVersions.insert(version("sv_x", 2))).rejects.toThrow();
      expect(await s.scenarioVersions.latestNumber("sc_1")).toBe(2);
      expect(await s.scenarioVersions.byNumber("sc_1", 1)).toEqual(version("sv_1", 1));
      expect((await s.scenarioVersions.byId("sv_2"))!.version).toBe(2);
      expect((await s.scenarioVersions.list("sc_1", null, 10)).map((v) => v.id)).toEqual(["sv_2", "sv_1"]);
      await s.scenarios.setCurrentVersion("sc_1", "sv_2", at(2));
      expect((await s.scenarios.liveInProject("pr_1", "sc_1"))!.current_version_id).toBe("sv_2");
      expect(await s.scenarios.softDelete("pr_1", "sc_2", at(3))).toBe(true);
      expect(await s.scenarios.softDelete("pr_1", "sc_2", at(3))).toBe(false);
      expect((await s.scenarios.listLive("pr_1", null, 10)).map((x) => x.id)).toEqual(["sc_1"]);
    });

    test("runs: one claimer wins a run at a time, leases renew and lapse, park and unpark, finish", async () => {
      await s.runs.insert(run("rn_1"));
      await s.runs.insert(run("rn_2"));
      await s.runs.insert(run("rn_3", { status: "succeeded" }));
      await s.runs.insert(run("rn_4", { version_id: null }));
      expect(await s.runs.claimable(at(1), 10)).toEqual(["rn_1", "rn_2"]);
      expect((await s.runs.list("pr_1", ["queued"], null, 10)).map((r) => r.id)).toEqual(["rn_4", "rn_2", "rn_1"]);
      expect((await s.runs.list("pr_1", [], "rn_3", 10)).map((r) => r.id)).toEqual(["rn_2", "rn_1"]);
      // Three nodes claim the same run at once: exactly one gets it.
      const claims = await Promise.all(["w1", "w2", "w3"].map((w) => s.runs.claim("rn_1", ["queued", "running"], w, at(5), at(1))));
      const winners = claims.filter((c) => c !== null);
      expect(winners.length).toBe(1);
      const worker = winners[0]!.claimed_by!;
      expect(await s.runs.claimable(at(1), 10)).toEqual(["rn_2"]);
      expect(await s.runs.renewLease("rn_1", "someone-else", at(9))).toBeNull();
      expect(await s.runs.renewLease("rn_1", worker, at(9))).toEqual({ cancel_requested: 0 });
      expect(await s.runs.requestCancel("rn_1", at(2))).toBe(true);
      expect(await s.runs.requestCancel("rn_1", at(2))).toBe(false);
      expect(await s.runs.renewLease("rn_1", worker, at(9))).toEqual({ cancel_requested: 1 });
      // A lapsed lease is taken over by another worker.
      expect(await s.runs.claim("rn_1", ["queued", "running"], "w9", at(20), at(10))).not.toBeNull();
      await s.runs.releaseLease("rn_1", worker);
      expect((await s.runs.byId("rn_1"))!.claimed_by).toBe("w9");
      await s.runs.releaseLease("rn_1", "w9");
      await s.runs.markStarted("rn_2", at(1), at(60), at(1));
      await s.runs.saveProgress("rn_2", { steps: '[{"ok":true}]', outputs: '{"x":1}', current_step_index: 1, at: at(2) });
      await s.runs.claim("rn_2", ["running"], "w1", at(5), at(2));
      await s.runs.park("rn_2", "w1", at(3));
      const parked = await s.runs.inProject("pr_1", "rn_2");
      expect([parked!.status, parked!.claimed_by, parked!.current_step_index, parked!.outputs]).toEqual([
        "awaiting_approval",
        null,
        1,
        '{"x":1}',
      ]);
      expect(await s.runs.unpark("rn_2", at(90), at(4))).toBe(true);
      expect(await s.runs.unpark("rn_2", at(90), at(4))).toBe(false);
      expect((await s.runs.byId("rn_2"))!.approved_step_index).toBe(1);
      await s.runs.markFinishing("rn_2", {
        status: "failed",
        error_code: "assertion_failed",
        error_message: "m",
        steps: "[]",
        failed_assertions: '["a"]',
        at: at(5),
      });
      expect((await s.runs.byId("rn_2"))!.finishing_status).toBe("failed");
      await s.runs.markFinished("rn_2", { status: "failed", cleanup_status: "done", cleanup_error: null, at: at(6) });
      const done = await s.runs.byId("rn_2");
      expect([done!.status, done!.finished_at, done!.finishing_status, done!.cleanup_status, done!.error_code]).toEqual([
        "failed",
        at(6),
        null,
        "done",
        "assertion_failed",
      ]);
    });

    test("run events: sequences 1, 2, 3… per run, even when appended at once", async () => {
      const ev = (id: string, runId: string) => ({ id, run_id: runId, project_id: "pr_1", type: "step", payload: "{}", occurred_at: T0 });
      await Promise.all(Array.from({ length: 8 }, (_, i) => s.runEvents.append(ev(`re_${i}`, "rn_1"))));
      await s.runEvents.append(ev("re_other", "rn_2"));
      const all = await s.runEvents.after("rn_1", 0, 100);
      expect(all.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(new Set(all.map((e) => e.id)).size).toBe(8);
      expect(await s.runEvents.sequenceOf("rn_2", "re_other")).toBe(1);
      expect(await s.runEvents.sequenceOf("rn_1", "re_other")).toBeNull();
      expect((await s.runEvents.after("rn_1", 6, 10)).map((e) => e.sequence)).toEqual([7, 8]);
    });

    test("run ledger: open entries until removed, failures recorded", async () => {
      for (const id of ["lg_1", "lg_2", "lg_3"]) {
        await s.runLedger.add({ id, run_id: "rn_1", project_id: "pr_1", resource_type: "inbox", resource_id: `ib_${id}`, created_at: T0 });
      }
      await s.runLedger.markRemoved("lg_1", at(1));
      await s.runLedger.markResourceRemoved("rn_1", "inbox", "ib_lg_2", at(2));
      await s.runLedger.markFailed("lg_3", "busy");
      const all = await s.runLedger.ofRun("rn_1");
      expect(all.length).toBe(3);
      expect(all.filter((e) => !e.removed_at).map((e) => [e.id, e.error])).toEqual([["lg_3", "busy"]]);
    });

    test("agent sessions: open until closed once, due ones by expiry, per principal", async () => {
      const sess = (id: string, expires: string) => ({
        id,
        project_id: "pr_1",
        principal_kind: "api_key",
        principal_id: "ak_1",
        agent_id: "ag_1",
        run_id: "rn_1",
        scopes: "[]",
        expires_at: expires,
        created_at: T0,
      });
      await s.agentSessions.insert(sess("as_1", at(5)));
      await s.agentSessions.insert(sess("as_2", at(50)));
      expect((await s.agentSessions.byId("as_1"))!.status).toBe("open");
      expect(await s.agentSessions.due(at(10), 10)).toEqual([{ id: "as_1", project_id: "pr_1" }]);
      expect(await s.agentSessions.close("as_1", "expired", at(10))).toBe(true);
      expect(await s.agentSessions.close("as_1", "released", at(11))).toBe(false);
      expect((await s.agentSessions.inProject("pr_1", "as_1"))!.status).toBe("expired");
      expect(await s.agentSessions.openOfPrincipal("api_key", "ak_1")).toEqual([{ id: "as_2", project_id: "pr_1" }]);
    });

    test("approvals: one pending per step, decided once, expired when due or when the run ended", async () => {
      await s.approvals.insert(approval("ap_1", "rn_1", 0));
      await expect(s.approvals.insert(approval("ap_dup", "rn_1", 0))).rejects.toThrow();
      await s.approvals.insert(approval("ap_2", "rn_1", 1));
      await s.approvals.insert(approval("ap_3", "rn_2", 0));
      expect((await s.approvals.pendingFor("rn_1", 0))!.id).toBe("ap_1");
      const decision = { status: "approved" as const, decided_by: "us_1", decision_reason: null, self_approved: 0, at: at(1) };
      expect(await s.approvals.decide("ap_1", decision)).toBe(true);
      expect(await s.approvals.decide("ap_1", decision)).toBe(false);
      expect((await s.approvals.list("pr_1", "pending", null, 10)).map((a) => a.id)).toEqual(["ap_3", "ap_2"]);
      expect((await s.approvals.list("pr_1", null, "ap_2", 10)).map((a) => a.id)).toEqual(["ap_1"]);
      // rn_2 has finished (failed): its pending approval is orphaned.
      await s.approvals.closeOrphaned();
      expect((await s.approvals.inProject("pr_1", "ap_3"))!.status).toBe("expired");
      expect(await s.approvals.expireDue(at(29))).toEqual([]);
      expect(await s.approvals.expireDue(at(30))).toEqual(["rn_1"]);
      expect(await s.approvals.closeForRun("rn_1", "cancelled")).toBe(0);
    });
  });
}
