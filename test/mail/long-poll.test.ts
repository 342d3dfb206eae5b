// GET /v1/inboxes/{id}/messages/latest: baseline rule, poll_token iteration, event-driven wake-up,
// 404 after the wait, validation. (No timing assertions: only order and outcome.)
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, type Instance } from "../support/harness";
import { createInbox, sendRaw } from "../support/mail";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd();
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const latest = (inboxId: string, q: Record<string, string> = {}) =>
  json(inst.api(`/v1/inboxes/${inboxId}/messages/latest?${new URLSearchParams(q)}`));
const send = async (address: string, subject: string) => {
  const info = await sendRaw(inst, address, `Subject: ${subject}\r\nFrom: app@example.com\r\n\r\nbody of ${subject}\r\n`);
  return /stored ([0-9A-Z]{26})/.exec(info.response)![1]!;
};

describe("latest message", () => {
  test("empty inbox with wait=0 answers 404 not_found at once", async () => {
    const inbox = await createInbox(inst);
    const r = await latest(inbox.id, { wait: "0" });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("not_found");
    expect(r.body.details.poll_token).toBeNull();
  });

  test("without a baseline the newest message is returned at once, full view by default, with a poll_token", async () => {
    const inbox = await createInbox(inst);
    await send(inbox.address, "first");
    const second = await send(inbox.address, "second");
    const r = await latest(inbox.id);
    expect(r.status).toBe(200);
    expect(r.body.data.id).toBe(second);
    expect(r.body.data.subject).toBe("second");
    expect(r.body.data.text).toContain("body of second"); // full view
    expect(typeof r.body.meta.poll_token).toBe("string");
    const summary = await latest(inbox.id, { view: "summary" });
    expect(summary.body.data.text).toBeUndefined();
  });

  test("a parked long-poll is answered by the next delivery", async () => {
    const inbox = await createInbox(inst);
    const waiting = latest(inbox.id, { wait: "30" });
    await Bun.sleep(200);
    const id = await send(inbox.address, "arrives later");
    const r = await waiting;
    expect(r.status).toBe(200);
    expect(r.body.data.id).toBe(id);
  });

  test("passing back poll_token walks every message once, in order, then waits and 404s", async () => {
    const inbox = await createInbox(inst);
    const ids = [await send(inbox.address, "a"), await send(inbox.address, "b"), await send(inbox.address, "c")];
    const first = await latest(inbox.id, { after: ids[0]! });
    expect(first.body.data.id).toBe(ids[1]);
    let token = first.body.meta.poll_token;
    const second = await latest(inbox.id, { poll_token: token });
    expect(second.body.data.id).toBe(ids[2]);
    token = second.body.meta.poll_token;
    const none = await latest(inbox.id, { poll_token: token, wait: "1" });
    expect(none.status).toBe(404);
    expect(none.body.details.poll_token).toBe(token);
    // The token still means "after c": the next delivery answers a parked poll.
    const parked = latest(inbox.id, { poll_token: token, wait: "30" });
    await Bun.sleep(100);
    const d = await send(inbox.address, "d");
    expect((await parked).body.data.id).toBe(d);
  });

  test("after newer than every message waits; after + poll_token use the later baseline", async () => {
    const inbox = await createInbox(inst);
    const a = await send(inbox.address, "a");
    const b = await send(inbox.address, "b");
    const tokenAfterA = (await latest(inbox.id, { after: "0".repeat(26) })).body.meta.poll_token; // oldest newer than 0… = a
    expect((await latest(inbox.id, { after: "0".repeat(26) })).body.data.id).toBe(a);
    const r = await latest(inbox.id, { after: b, poll_token: tokenAfterA, wait: "0" });
    expect(r.status).toBe(404);
  });

  test("a deleted inbox ends a parked poll, plain or with q, with the inbox's own 404", async () => {
    for (const q of [{}, { q: "hello" }] as Record<string, string>[]) {
      const inbox = await createInbox(inst);
      const waiting = latest(inbox.id, { wait: "30", ...q });
      await Bun.sleep(200);
      expect((await inst.api(`/v1/inboxes/${inbox.id}`, { method: "DELETE" })).status).toBe(204);
      const r = await waiting;
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("not_found");
      expect(r.body.message).toBe("inbox not found");
    }
  });

  test("concurrent pollers of one inbox are all answered by one delivery", async () => {
    const inbox = await createInbox(inst);
    const polls = Array.from({ length: 5 }, () => latest(inbox.id, { wait: "30", view: "summary" }));
    await Bun.sleep(200);
    const id = await send(inbox.address, "for everyone");
    for (const r of await Promise.all(polls)) expect(r.body.data.id).toBe(id);
  });

  test("validation: wait above 60, negative or fractional wait, bad after, foreign poll_token are 422", async () => {
    const inbox = await createInbox(inst);
    const queries: Record<string, string>[] = [
      { wait: "61" },
      { wait: "-1" },
      { wait: "1.5" },
      { after: "not-a-ulid" },
      { poll_token: "garbage!" },
      { view: "raw" },
    ];
    for (const q of queries) {
      const r = await latest(inbox.id, q);
      expect(r.status).toBe(422);
      expect(r.body.code).toBe("validation_error");
    }
    const unknown = await latest("01ARZ3NDEKTSV4RRFFQ69G5FAV");
    expect(unknown.status).toBe(404);
  });
});
