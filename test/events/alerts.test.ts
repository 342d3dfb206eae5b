// Alerts and watches, rule by rule (CONTRACT.md: Alert, Alerts operations, Watch rules), with two
// users in one team and a third user in another team.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addUser, json, login, startInboxd, ULID, type Instance } from "../support/harness";
import { transport } from "../support/mail";

let inst: Instance;
// Team A: owner (bootstrap admin, two devices) and a member. Team B: its own owner.
let ownerA: string, ownerA2: string, memberA: string, ownerB: string;
let projectA: string, projectB: string;

beforeAll(async () => {
  inst = await startInboxd({ INBOXD_SWEEP_INTERVAL_MS: "200" });
  await addUser(inst, "member@a.test", "member-password-1", "member");
  await addUser(inst, "owner@b.test", "owner-b-password-1", "owner", "team-b");
  ownerA = await login(inst);
  ownerA2 = await login(inst);
  memberA = await login(inst, "member@a.test", "member-password-1");
  ownerB = await login(inst, "owner@b.test", "owner-b-password-1");
  projectA = (await json(inst.api("/v1/projects", { token: ownerA }))).body.data[0].id;
  projectB = (await json(inst.api("/v1/projects", { token: ownerB }))).body.data[0].id;
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const as = (token: string, project: string) => ({
  get: (path: string) => json(inst.api(path, { token, project })),
  post: (path: string, body?: unknown) => json(inst.api(path, { method: "POST", token, project, json: body })),
  put: (path: string) => json(inst.api(path, { method: "PUT", token, project })),
  del: (path: string) => json(inst.api(path, { method: "DELETE", token, project })),
  patch: (path: string, body: unknown) => json(inst.api(path, { method: "PATCH", token, project, json: body })),
});

async function newInbox(token: string, project: string, body: Record<string, unknown> = {}) {
  const r = await as(token, project).post("/v1/inboxes", body);
  expect(r.status).toBe(201);
  return r.body.data as { id: string; address: string; watched: boolean };
}

async function send(to: string, subject: string) {
  const t = transport(inst);
  try {
    await t.sendMail({ from: "Bob <bob@example.com>", to, subject, text: subject });
  } finally {
    t.close();
  }
}

async function alerts(token: string, project: string, q = "") {
  const r = await as(token, project).get(`/v1/alerts${q}`);
  expect(r.status).toBe(200);
  return r.body as { data: any[]; meta: { unread_count: number; limit: number; has_more: boolean } };
}

describe("device principals only", () => {
  test("an API key gets 403 principal_not_permitted on the alert list, mark-read, watch and unwatch", async () => {
    const inbox = await newInbox(ownerA, projectA);
    for (const [method, path] of [
      ["GET", "/v1/alerts"],
      ["POST", "/v1/alerts/mark-read"],
      ["PUT", `/v1/inboxes/${inbox.id}/watch`],
      ["DELETE", `/v1/inboxes/${inbox.id}/watch`],
    ] as const) {
      const r = await json(inst.api(path, { method }));
      expect([method, path, r.status, r.body.code]).toEqual([method, path, 403, "principal_not_permitted"]);
      expect(r.body.request_id).toMatch(ULID);
    }
  });

  test("an API key passing watch: true on create gets 422", async () => {
    const r = await json(inst.api("/v1/inboxes", { method: "POST", json: { watch: true } }));
    expect(r.status).toBe(422);
  });
});

describe("watch rules", () => {
  test("create with watch: true from a device subscribes that device; watched reflects the calling device", async () => {
    const inbox = await newInbox(ownerA, projectA, { watch: true });
    expect(inbox.watched).toBe(true);
    expect((await as(ownerA, projectA).get(`/v1/inboxes/${inbox.id}`)).body.data.watched).toBe(true);
    // Another device of the same user, another user, and an API key do not watch it.
    expect((await as(ownerA2, projectA).get(`/v1/inboxes/${inbox.id}`)).body.data.watched).toBe(false);
    expect((await as(memberA, projectA).get(`/v1/inboxes/${inbox.id}`)).body.data.watched).toBe(false);
    expect((await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data.watched).toBe(false);
    const list = await as(ownerA, projectA).get("/v1/inboxes?limit=100");
    expect(list.body.data.find((i: any) => i.id === inbox.id).watched).toBe(true);
  });

  test("watch and unwatch are idempotent", async () => {
    const inbox = await newInbox(ownerA, projectA);
    const m = as(memberA, projectA);
    for (let i = 0; i < 2; i++) {
      const r = await m.put(`/v1/inboxes/${inbox.id}/watch`);
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ inbox_id: inbox.id, watched: true });
    }
    expect((await m.get(`/v1/inboxes/${inbox.id}`)).body.data.watched).toBe(true);
    for (let i = 0; i < 2; i++) {
      const r = await m.del(`/v1/inboxes/${inbox.id}/watch`);
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ inbox_id: inbox.id, watched: false });
    }
    expect((await m.get(`/v1/inboxes/${inbox.id}`)).body.data.watched).toBe(false);
  });

  test("another team's inbox cannot be watched (404)", async () => {
    const inbox = await newInbox(ownerA, projectA);
    expect((await as(ownerB, projectB).put(`/v1/inboxes/${inbox.id}/watch`)).status).toBe(404);
    expect((await as(ownerB, projectA).put(`/v1/inboxes/${inbox.id}/watch`)).status).toBe(404);
  });

  test("a watch delivers arrivals as one message.arrived alert per user, coalesced with a count", async () => {
    const inbox = await newInbox(ownerA, projectA, { watch: true });
    // The owner's second device watches too: still one alert for the user.
    expect((await as(ownerA2, projectA).put(`/v1/inboxes/${inbox.id}/watch`)).status).toBe(200);
    const before = await alerts(memberA, projectA);
    for (const s of ["one", "two", "three"]) await send(inbox.address, s);
    const mine = (await alerts(ownerA, projectA, "?type=message.arrived")).data.filter((a) => a.inbox.id === inbox.id);
    expect(mine).toHaveLength(1);
    const a = mine[0];
    expect(a.id).toMatch(ULID);
    expect(a).toMatchObject({
      type: "message.arrived",
      channel: "arrivals",
      severity: "success",
      resource_type: "inbox",
      resource_id: inbox.id,
      inbox: { id: inbox.id, address: inbox.address },
      count: 3,
      read_at: null,
    });
    expect(a.title).toContain("3 new messages");
    expect(a.detail).toContain("three");
    expect(Number.isNaN(Date.parse(a.occurred_at))).toBe(false);
    // The same alert is visible from the user's other device; the non-watching member got nothing.
    expect((await alerts(ownerA2, projectA)).data.map((x) => x.id)).toContain(a.id);
    expect((await alerts(memberA, projectA)).data.length).toBe(before.data.length);
  });

  test("after unwatch no more alerts are raised for that device's user", async () => {
    const inbox = await newInbox(memberA, projectA, { watch: true });
    await send(inbox.address, "watched");
    const a1 = (await alerts(memberA, projectA)).data.filter((a) => a.inbox.id === inbox.id);
    expect(a1).toHaveLength(1);
    expect((await as(memberA, projectA).del(`/v1/inboxes/${inbox.id}/watch`)).status).toBe(200);
    await send(inbox.address, "not watched");
    const a2 = (await alerts(memberA, projectA)).data.filter((a) => a.inbox.id === inbox.id);
    expect(a2).toHaveLength(1);
    expect(a2[0].count).toBe(1);
  });

  test("a watch delivers that inbox's expiry alert (inbox.expiring, channel failures)", async () => {
    const inbox = await newInbox(memberA, projectA, { watch: true });
    await Bun.sleep(1000);
    expect((await as(memberA, projectA).patch(`/v1/inboxes/${inbox.id}`, { ttl_seconds: 4 })).status).toBe(200);
    let found: any;
    for (let i = 0; i < 100 && !found; i++) {
      found = (await alerts(memberA, projectA, "?type=inbox.expiring")).data.find((a) => a.inbox.id === inbox.id);
      if (!found) await Bun.sleep(100);
    }
    expect(found).toMatchObject({
      type: "inbox.expiring",
      channel: "failures",
      resource_type: "inbox",
      resource_id: inbox.id,
      inbox: { id: inbox.id, address: inbox.address },
      count: 1,
      read_at: null,
    });
    // Only the watcher: the owner does not watch this inbox.
    expect((await alerts(ownerA, projectA, "?type=inbox.expiring")).data.some((a) => a.inbox.id === inbox.id)).toBe(false);
  });
});

describe("alert list", () => {
  test("unread, channel and type filters; meta.unread_count; invalid filters are 422", async () => {
    const inbox = await newInbox(ownerB, projectB, { watch: true });
    await send(inbox.address, "for b");
    const all = await alerts(ownerB, projectB);
    expect(all.meta).toMatchObject({ limit: 50, has_more: false });
    expect(all.meta.unread_count).toBe(all.data.filter((a) => a.read_at === null).length);
    expect(all.meta.unread_count).toBeGreaterThanOrEqual(1);
    expect((await alerts(ownerB, projectB, "?unread=true")).data.every((a) => a.read_at === null)).toBe(true);
    expect((await alerts(ownerB, projectB, "?unread=false")).data).toEqual([]);
    expect((await alerts(ownerB, projectB, "?channel=arrivals")).data.length).toBe(all.data.length);
    expect((await alerts(ownerB, projectB, "?channel=failures")).data).toEqual([]);
    expect((await alerts(ownerB, projectB, "?type=message.arrived")).data.length).toBe(all.data.length);
    expect((await alerts(ownerB, projectB, "?type=team.quota")).data).toEqual([]);
    for (const q of ["?channel=email", "?type=message.deleted", "?unread=maybe", "?limit=0", "?limit=101", "?limit=1.5"]) {
      const r = await as(ownerB, projectB).get(`/v1/alerts${q}`);
      expect([q, r.status, r.body.code]).toEqual([q, 422, "validation_error"]);
    }
    // Alerts belong to the project: the user's other team's project is 404, and user A sees none of B's.
    expect((await as(ownerA, projectB).get("/v1/alerts")).status).toBe(404);
    expect((await alerts(ownerA, projectA)).data.some((a) => a.inbox.id === inbox.id)).toBe(false);
  });

  test("pagination walks newest first with links.next", async () => {
    const inbox1 = await newInbox(ownerB, projectB, { watch: true });
    const inbox2 = await newInbox(ownerB, projectB, { watch: true });
    await send(inbox1.address, "p1");
    await send(inbox2.address, "p2");
    const page1 = await alerts(ownerB, projectB, "?limit=1");
    expect(page1.meta.has_more).toBe(true);
    expect(page1.data[0].inbox.id).toBe(inbox2.id);
    const next = (await as(ownerB, projectB).get(`/v1/alerts?limit=1&cursor=${page1.data[0].id}`)).body;
    expect(next.data[0].inbox.id).toBe(inbox1.id);
  });
});

describe("mark read", () => {
  test("ids of another user or another project are 422 and change nothing", async () => {
    const inboxA = await newInbox(ownerA, projectA, { watch: true });
    const inboxM = await newInbox(memberA, projectA, { watch: true });
    const inboxB = await newInbox(ownerB, projectB, { watch: true });
    await send(inboxA.address, "a");
    await send(inboxM.address, "m");
    await send(inboxB.address, "b");
    const mine = (await alerts(ownerA, projectA)).data.find((a) => a.inbox.id === inboxA.id)!;
    const members = (await alerts(memberA, projectA)).data.find((a) => a.inbox.id === inboxM.id)!;
    const otherProject = (await alerts(ownerB, projectB)).data.find((a) => a.inbox.id === inboxB.id)!;
    const unknown = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
    for (const foreign of [members.id, otherProject.id, unknown]) {
      const r = await as(ownerA, projectA).post("/v1/alerts/mark-read", { ids: [mine.id, foreign] });
      expect(r.status).toBe(422);
      expect(r.body.details.invalid_ids).toEqual([foreign]);
    }
    expect((await alerts(ownerA, projectA)).data.find((a) => a.id === mine.id).read_at).toBeNull();
    expect((await alerts(memberA, projectA)).data.find((a) => a.id === members.id).read_at).toBeNull();
    const bad = await as(ownerA, projectA).post("/v1/alerts/mark-read", { ids: ["not-a-ulid"] });
    expect(bad.status).toBe(422);
  });

  test("with ids marks those read and answers unread_count; a later arrival opens a new alert", async () => {
    const inbox = await newInbox(ownerA, projectA, { watch: true });
    await send(inbox.address, "first");
    const before = await alerts(ownerA, projectA);
    const a = before.data.find((x) => x.inbox.id === inbox.id)!;
    const r = await as(ownerA, projectA).post("/v1/alerts/mark-read", { ids: [a.id] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { unread_count: before.meta.unread_count - 1 } });
    const after = await alerts(ownerA, projectA);
    expect(after.meta.unread_count).toBe(before.meta.unread_count - 1);
    expect(Date.parse(after.data.find((x) => x.id === a.id).read_at)).toBeGreaterThan(0);
    // Marking it again is harmless.
    expect((await as(ownerA, projectA).post("/v1/alerts/mark-read", { ids: [a.id] })).status).toBe(200);
    await send(inbox.address, "second");
    const fresh = (await alerts(ownerA, projectA)).data.filter((x) => x.inbox.id === inbox.id);
    expect(fresh).toHaveLength(2);
    expect(fresh[0]).toMatchObject({ count: 1, read_at: null });
    expect(fresh[0].id).not.toBe(a.id);
  });

  test("without ids marks every unread alert of the caller in the bound project read", async () => {
    const inbox = await newInbox(memberA, projectA, { watch: true });
    await send(inbox.address, "x");
    const ownerBefore = await alerts(ownerB, projectB);
    const r = await as(memberA, projectA).post("/v1/alerts/mark-read");
    expect(r.status).toBe(200);
    expect(r.body.data.unread_count).toBe(0);
    const after = await alerts(memberA, projectA);
    expect(after.meta.unread_count).toBe(0);
    expect(after.data.every((a) => a.read_at !== null)).toBe(true);
    expect((await alerts(memberA, projectA, "?unread=true")).data).toEqual([]);
    // Other users' alerts are untouched.
    expect((await alerts(ownerB, projectB)).meta.unread_count).toBe(ownerBefore.meta.unread_count);
    // An empty body object works the same way.
    expect((await as(memberA, projectA).post("/v1/alerts/mark-read", {})).body.data.unread_count).toBe(0);
  });
});
