// Quota alerts with real mail on the free plan (50 MiB per inbox, 250 MiB per team): inbox.quota
// goes to the inbox's watchers, team.quota to the team's owners (watching or not).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addUser, json, login, startInboxd, type Instance } from "../support/harness";
import { largeMessage, sendLarge, type LargeMessage } from "../support/large-mail";

const MiB = 1024 * 1024;
let inst: Instance;
let owner: string, member: string, project: string;

beforeAll(async () => {
  inst = await startInboxd({ INBOXD_SMTP_MAX_BYTES: String(80 * MiB), INBOXD_PLAN: "free" });
  await addUser(inst, "member@a.test", "member-password-1", "member");
  owner = await login(inst);
  member = await login(inst, "member@a.test", "member-password-1");
  project = (await json(inst.api("/v1/projects", { token: owner }))).body.data[0].id;
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

async function newInbox(token: string, body: Record<string, unknown> = {}) {
  const r = await json(inst.api("/v1/inboxes", { method: "POST", json: body, token, project }));
  expect(r.status).toBe(201);
  return r.body.data as { id: string; address: string };
}

/**
 * Sends one message of `m`'s size (raw bytes: a text part and a base64 attachment, already encoded, so the
 * test spends no time encoding) over SMTP; resolves to the reply that decided it.
 */
async function sendBig(to: string, m: LargeMessage, i: number): Promise<{ ok: boolean; code: number }> {
  const { reply } = await sendLarge(inst.ports.smtp!, to, m, i);
  const code = Number(reply.slice(0, 3));
  return { ok: code === 250, code };
}

async function alerts(token: string, q = "") {
  const r = await json(inst.api(`/v1/alerts${q}`, { token, project }));
  expect(r.status).toBe(200);
  return r.body.data as any[];
}

describe("quota alerts", () => {
  test("a refused delivery raises inbox.quota for the inbox's watchers only", async () => {
    const inbox = await newInbox(member, { watch: true });
    // Over the inbox's 50 MiB by itself.
    const over = largeMessage(54 * MiB);
    const r = await sendBig(inbox.address, over, 0);
    expect(r.ok).toBe(false);
    expect([452, 552]).toContain(r.code!);
    const mine = (await alerts(member, "?type=inbox.quota")).filter((a) => a.inbox.id === inbox.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      type: "inbox.quota",
      channel: "failures",
      resource_type: "inbox",
      resource_id: inbox.id,
      inbox: { id: inbox.id, address: inbox.address },
      count: 1,
      read_at: null,
    });
    expect(mine[0].severity).toBeString();
    // The owner does not watch this inbox: no inbox.quota for them.
    expect((await alerts(owner, "?type=inbox.quota")).some((a) => a.inbox.id === inbox.id)).toBe(false);
    // A second refusal bumps the unread alert instead of adding one.
    expect((await sendBig(inbox.address, over, 1)).ok).toBe(false);
    const again = (await alerts(member, "?type=inbox.quota")).filter((a) => a.inbox.id === inbox.id);
    expect(again).toHaveLength(1);
    expect(again[0].count).toBe(2);
  });

  test("when the team's storage is full, team.quota goes to the team's owners, not to members", async () => {
    // 5 inboxes at ~49 MiB each fill most of the team's 250 MiB; the next message has room in its own
    // inbox but not in the team.
    const inboxes = [];
    for (let i = 0; i < 6; i++) inboxes.push(await newInbox(member, { watch: true }));
    // Side by side: five inboxes, each far from its own quota, and together short of the team's.
    const big = largeMessage(49 * MiB);
    const sent = await Promise.all(inboxes.slice(0, 5).map((inbox, i) => sendBig(inbox.address, big, i)));
    expect(sent.map((s) => s.ok)).toEqual([true, true, true, true, true]);
    const team = (await json(inst.api(`/v1/inboxes/${inboxes[5]!.id}`, { token: owner, project }))).body.data.storage.team;
    const left = team.quota_bytes - team.used_bytes;
    expect(left).toBeLessThan(20 * MiB);
    const r = await sendBig(inboxes[5]!.address, largeMessage(left + MiB), 5);
    expect(r.ok).toBe(false);
    const ownerAlerts = await alerts(owner, "?type=team.quota");
    expect(ownerAlerts).toHaveLength(1);
    expect(ownerAlerts[0]).toMatchObject({ type: "team.quota", channel: "failures", resource_type: "team", count: 1 });
    expect(ownerAlerts[0].inbox).toEqual({ id: inboxes[5]!.id, address: inboxes[5]!.address });
    expect(await alerts(member, "?type=team.quota")).toEqual([]);
    const failures = await alerts(owner, "?channel=failures");
    expect(failures.map((a) => a.id)).toContain(ownerAlerts[0].id);
  }, 120_000);
});
