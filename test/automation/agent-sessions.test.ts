// MCP agent sessions and the three-axis permission check of X-Service-Agent-Session.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, login, startInboxd, ULID, type Instance } from "../support/harness";

let inst: Instance;
let project: any;

beforeAll(async () => {
  inst = await startInboxd({ INBOXD_AGENT_SESSION_TTL: "3" });
  project = (await json(inst.api("/v1/projects"))).body.data[0];
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const key = async (scopes: string[]) =>
  (await json(inst.api("/v1/api-keys", { method: "POST", json: { name: `k-${scopes.join(",")}`, scopes } }))).body.data.secret as string;
const agent = async (permissions: string[]) => {
  const r = await json(
    inst.api("/v1/agents", { method: "POST", json: { name: `agent-${permissions.length}-${Math.random()}`, permissions } }),
  );
  if (r.status !== 201) throw new Error(`agent create: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data.id as string;
};
const open = (token: string, body: unknown) => json(inst.api("/v1/agent-sessions", { method: "POST", token, json: body }));
const withSession = (token: string, session: string, path: string, init: Record<string, any> = {}) =>
  json(inst.api(path, { token, ...init, headers: { "x-service-agent-session": session, ...(init.headers ?? {}) } }));

describe("agent sessions", () => {
  test("open without agent_id resolves the Standard agent and creates an mcp run", async () => {
    const r = await open(inst.key, {});
    expect(r.status).toBe(201);
    const s = r.body.data;
    expect(s.ulid).toMatch(ULID);
    expect(s).toMatchObject({
      status: "open",
      trigger_type: "mcp",
      agent: { name: "Standard" },
      project: { ulid: project.id, environment: "live" },
    });
    expect(Date.parse(s.expires_at)).toBeGreaterThan(Date.now());
    expect(Array.isArray(s.scopes)).toBe(true);
    const run = await json(inst.api(`/v1/runs/${s.run_ulid}`));
    expect(run.status).toBe(200);
    expect(run.body.data.trigger).toMatchObject({ type: "mcp" });
    expect(run.body.data.status).toBe("running");
  });

  test("open requires runs:write", async () => {
    const k = await key(["inboxes:read"]);
    const r = await open(k, {});
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("insufficient_scope");
  });

  test("open requires the project setting api_keys.agent_access_enabled", async () => {
    const token = await login(inst);
    const off = await json(
      inst.api(`/v1/projects/${project.id}`, { method: "PATCH", token, json: { settings: { "api_keys.agent_access_enabled": false } } }),
    );
    expect(off.status).toBe(200);
    // At once: the API key's path caches projects for 5 s, and the change drops the cached copy.
    const r = await open(inst.key, {});
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("agent_access_disabled");
    await json(
      inst.api(`/v1/projects/${project.id}`, { method: "PATCH", token, json: { settings: { "api_keys.agent_access_enabled": true } } }),
    );
    expect((await open(inst.key, {})).status).toBe(201);
  });

  test("scopes asked for beyond credential ∩ agent are dropped at open; widening the agent later does not widen the session", async () => {
    const a = await agent(["runs:write", "inboxes:read"]);
    const opened = await open(inst.key, { agent_id: a, scopes: ["inboxes:read", "inboxes:write", "domains:write"] });
    expect(opened.status).toBe(201);
    expect(opened.body.data.scopes).toEqual(["inboxes:read"]);
    const widened = await json(
      inst.api(`/v1/agents/${a}`, { method: "PATCH", json: { permissions: ["runs:write", "inboxes:read", "inboxes:write"] } }),
    );
    expect(widened.status).toBe(200);
    const create = await withSession(inst.key, opened.body.data.ulid, "/v1/inboxes", { method: "POST", json: {} });
    expect([create.status, create.body.code, create.body.details?.missing_on]).toEqual([403, "insufficient_scope", ["session"]]);
  });

  test("an unknown agent_id is 404", async () => {
    const r = await open(inst.key, { agent_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV" });
    expect(r.status).toBe(404);
  });

  test("a call passes only when the credential, the agent and the session all grant its scope; calls are run events; release cleans up", async () => {
    // inboxes:write on all three axes; messages:read missing on the session; inboxes:read missing on the
    // agent; messages:write missing on the credential. The session's axis is credential ∩ agent ∩ asked, fixed
    // at open: what the agent or the key lacks, the session lacks too.
    const k = await key(["runs:write", "runs:read", "inboxes:write", "messages:read", "inboxes:read"]);
    const a = await agent(["inboxes:write", "messages:read", "messages:write"]);
    const opened = await open(k, { agent_id: a, scopes: ["inboxes:write", "inboxes:read", "messages:write"] });
    expect(opened.status).toBe(201);
    const sid = opened.body.data.ulid;

    const created = await withSession(k, sid, "/v1/inboxes", { method: "POST", json: { name: "session inbox" } });
    expect(created.status).toBe(201);
    const inboxId = created.body.data.id;

    const noSession = await withSession(k, sid, `/v1/inboxes/${inboxId}/messages`);
    expect(noSession.status).toBe(403);
    expect(noSession.body.details.missing_on).toEqual(["session"]);

    const noAgent = await withSession(k, sid, `/v1/inboxes/${inboxId}`);
    expect(noAgent.status).toBe(403);
    expect(noAgent.body.details.missing_on).toEqual(["agent", "session"]);

    const noKey = await withSession(k, sid, "/v1/messages/01ARZ3NDEKTSV4RRFFQ69G5FAV", { method: "DELETE" });
    expect(noKey.status).toBe(403);
    expect(noKey.body.details.missing_on).toEqual(["credential", "session"]);

    // Without the header the key acts alone, as before.
    expect((await json(inst.api(`/v1/inboxes/${inboxId}`, { token: k }))).status).toBe(200);

    const events = await json(inst.api(`/v1/runs/${opened.body.data.run_ulid}/events`, { token: k }));
    expect(events.status).toBe(200);
    const calls = events.body.data.filter((e: any) => e.type === "session.call");
    expect(calls.map((e: any) => e.payload.status)).toEqual([201, 403, 403, 403]);
    expect(calls[0].payload).toMatchObject({ method: "POST", path: "/v1/inboxes" });
    const seqs = events.body.data.map((e: any) => e.sequence);
    expect(seqs).toEqual([...seqs].sort((x: number, y: number) => x - y));

    const released = await json(inst.api(`/v1/agent-sessions/${sid}/release`, { method: "POST", token: k }));
    expect(released.status).toBe(200);
    expect(released.body.data.status).toBe("released");
    expect((await json(inst.api(`/v1/inboxes/${inboxId}`))).status).toBe(404);
    // The session's run ends as a scenario run does (docs/runs.md): cleanup events, then run.finished last.
    const run = (await json(inst.api(`/v1/runs/${opened.body.data.run_ulid}`, { token: k }))).body.data;
    expect([run.status, run.cleanup_status]).toEqual(["succeeded", "completed"]);
    const ended = (await json(inst.api(`/v1/runs/${opened.body.data.run_ulid}/events?limit=100`, { token: k }))).body.data;
    expect(ended.map((e: any) => e.type).slice(-4)).toEqual(["cleanup.started", "cleanup.completed", "session.released", "run.finished"]);
    expect(ended.at(-1).payload).toEqual({ status: "succeeded", failed_assertions: 0 });
    const again = await json(inst.api(`/v1/agent-sessions/${sid}/release`, { method: "POST", token: k }));
    expect(again.status).toBe(200);
    expect(again.body.data.status).toBe("released");

    const after = await withSession(k, sid, "/v1/inboxes", { method: "POST", json: {} });
    expect(after.status).toBe(409);
    expect(after.body.code).toBe("agent_session_closed");
  });

  test("a run's calls are its steps in the order they were answered, however fast they come", async () => {
    // Each call is recorded after its response has gone out; back-to-back calls therefore have their
    // recordings in flight together, and a slow one must not take its place after a later call's.
    const k = await key(["runs:write", "runs:read", "inboxes:write", "inboxes:read"]);
    const a = await agent(["inboxes:write", "inboxes:read"]);
    const opened = await open(k, { agent_id: a, scopes: ["inboxes:write", "inboxes:read"] });
    expect(opened.status).toBe(201);
    const sid = opened.body.data.ulid;
    const sent: string[] = [];
    for (let n = 0; n < 12; n++) {
      // A create (a transaction and a ledger entry) then a cheap refusal, whose recording is quicker.
      const created = await withSession(k, sid, "/v1/inboxes", { method: "POST", json: { name: `burst ${n}` } });
      expect(created.status).toBe(201);
      sent.push("POST 201");
      const refused = await withSession(k, sid, `/v1/inboxes/${created.body.data.id}/messages`);
      expect(refused.status).toBe(403);
      sent.push("GET 403");
    }
    const events = await json(inst.api(`/v1/runs/${opened.body.data.run_ulid}/events?limit=100`, { token: k }));
    expect(events.status).toBe(200);
    const calls = events.body.data.filter((e: any) => e.type === "session.call");
    expect(calls.map((e: any) => `${e.payload.method} ${e.payload.status}`)).toEqual(sent);
    const run = await json(inst.api(`/v1/runs/${opened.body.data.run_ulid}`, { token: k }));
    expect(run.status).toBe(200);
    expect((await json(inst.api(`/v1/agent-sessions/${sid}/release`, { method: "POST", token: k }))).body.data.status).toBe("released");
  });

  test("the session header is validated: not a ULID 422, unknown 404, another project's 404", async () => {
    expect((await withSession(inst.key, "nope", "/v1/inboxes")).status).toBe(422);
    const unknown = await withSession(inst.key, "01ARZ3NDEKTSV4RRFFQ69G5FAV", "/v1/inboxes");
    expect(unknown.status).toBe(404);
    const token = await login(inst);
    const other = await json(inst.api("/v1/projects", { method: "POST", token, json: { name: "Other sessions" } }));
    const otherKey = (await json(inst.api("/v1/api-keys", { method: "POST", token, project: other.body.data.id, json: { name: "o" } })))
      .body.data.secret;
    const s = (await open(otherKey, {})).body.data.ulid;
    expect((await withSession(inst.key, s, "/v1/inboxes")).status).toBe(404);
  });

  test("an expired session is refused and its ledger is applied by the sweep", async () => {
    const opened = (await open(inst.key, {})).body.data;
    const created = await withSession(inst.key, opened.ulid, "/v1/inboxes", { method: "POST", json: {} });
    expect(created.status).toBe(201);
    await Bun.sleep(3200);
    const late = await withSession(inst.key, opened.ulid, "/v1/inboxes");
    expect([409, 410]).toContain(late.status);
    let gone = false;
    for (let n = 0; n < 40 && !gone; n++) {
      gone = (await inst.api(`/v1/inboxes/${created.body.data.id}`)).status === 404;
      if (!gone) await Bun.sleep(250);
    }
    expect(gone).toBe(true);
    const rel = await json(inst.api(`/v1/agent-sessions/${opened.ulid}/release`, { method: "POST" }));
    expect(rel.status).toBe(200);
    expect(rel.body.data.status).toBe("expired");
  });
});
