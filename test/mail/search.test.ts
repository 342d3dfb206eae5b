// Search (docs/search.md) through real SMTP and HTTP: every grammar key, negation, phrases, accents,
// project-wide search (and tenancy), invalid q, the filtered long-poll, wait-for-count and bulk
// delete. No timing assertions: only outcomes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, login, startInboxd, type Instance } from "../support/harness";
import { createInbox, transport } from "../support/mail";
import { connected, type Box } from "../support/imap";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd();
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

/** Sends one message through SMTP and returns its id (from the 250 reply). */
async function send(to: string, mail: Record<string, unknown>, envelopeFrom = "sender@example.com"): Promise<string> {
  const t = transport(inst);
  try {
    const info = await t.sendMail({ from: "App <app@example.com>", to, ...mail, envelope: { from: envelopeFrom, to: [to] } });
    return /stored ([0-9A-Z]{26})/.exec(info.response)![1]!;
  } finally {
    t.close();
  }
}

const list = (path: string, params: Record<string, string> = {}, init: { token?: string; project?: string } = {}) =>
  json(inst.api(`${path}?${new URLSearchParams(params)}`, init));

describe("search in one inbox", () => {
  let inbox: { id: string; address: string };
  const ids: Record<string, string> = {};
  const find = async (q: string) => {
    const r = await list(`/v1/inboxes/${inbox.id}/messages`, { q });
    expect(r.status).toBe(200);
    return (r.body.data as any[]).map((m) => m.id);
  };
  const names = async (q: string) => {
    const found = await find(q);
    return Object.keys(ids)
      .filter((k) => found.includes(ids[k]!))
      .sort();
  };

  beforeAll(async () => {
    inbox = await createInbox(inst, { name: "search" });
    ids.cafe = await send(inbox.address, {
      from: "Alice Martin <alice@shop.example>",
      subject: "Your Café order",
      text: "Thanks for ordering the crème brûlée. Your verification code is 482913.",
      headers: { "X-Campaign": "spring-sale" },
    });
    ids.news = await send(inbox.address, {
      from: "Bob <bob@news.example>",
      cc: "Carol <carol@cc.example>",
      subject: "Weekly newsletter",
      html: "<p>Read the <a href='https://example.com/x'>latest news</a> about password reset flows.</p>",
      attachments: [{ filename: "notes.txt", content: "attached notes" }],
    });
    ids.reset = await send(inbox.address, {
      from: "Shop <alice@shop.example>",
      subject: "Password reset",
      text: `Click to reset your password.\n${"padding line for size\n".repeat(1000)}`,
    });
  });

  test("no q lists everything, newest first", async () => {
    expect(await find("")).toEqual([ids.reset, ids.news, ids.cafe]);
  });

  test("words match subject and bodies, case- and accent-insensitively; html bodies as text", async () => {
    expect(await names("newsletter")).toEqual(["news"]);
    expect(await names("cafe")).toEqual(["cafe"]);
    expect(await names("CRÈME brulee")).toEqual(["cafe"]);
    expect(await names("latest")).toEqual(["news"]);
    expect(await names("pass*")).toEqual(["news", "reset"]);
  });

  test("quoted phrases match consecutive words", async () => {
    expect(await names('"password reset"')).toEqual(["news", "reset"]);
    expect(await names('"reset password"')).toEqual([]);
    expect(await names('"creme brulee"')).toEqual(["cafe"]);
  });

  test("from:, to: (To, Cc, envelope) and subject:", async () => {
    expect(await names("from:alice")).toEqual(["cafe", "reset"]);
    expect(await names('from:"alice martin"')).toEqual(["cafe"]);
    expect(await names("from:NEWS.EXAMPLE")).toEqual(["news"]);
    expect(await names("to:carol")).toEqual(["news"]);
    expect(await names(`to:${inbox.address}`)).toEqual(["cafe", "news", "reset"]);
    expect(await names("subject:cafe")).toEqual(["cafe"]);
    expect(await names("subject:password")).toEqual(["reset"]);
    expect(await names('subject:"weekly newsletter"')).toEqual(["news"]);
  });

  test("code:, header:, has:", async () => {
    expect(await names("code:482913")).toEqual(["cafe"]);
    expect(await names("has:code")).toContain("cafe");
    expect(await names("header:X-Campaign=spring")).toEqual(["cafe"]);
    expect(await names("header:x-campaign")).toEqual(["cafe"]);
    expect(await names('header:X-Campaign="autumn sale"')).toEqual([]);
    expect(await names("has:attachment")).toEqual(["news"]);
    expect(await names("has:link")).toEqual(["news"]);
  });

  test("is:read / is:unread follow the read flag", async () => {
    expect(await names("is:unread")).toEqual(["cafe", "news", "reset"]);
    expect((await inst.api(`/v1/messages/${ids.cafe}`, { method: "PATCH", json: { read: true } })).status).toBe(200);
    expect(await names("is:read")).toEqual(["cafe"]);
    expect(await names("is:unread")).toEqual(["news", "reset"]);
  });

  test("after: / before: with dates and date-times", async () => {
    expect(await names("after:2000-01-01")).toEqual(["cafe", "news", "reset"]);
    expect(await names("before:2000-01-01")).toEqual([]);
    expect(await names("after:2999-12-31")).toEqual([]);
    const news = (await json(inst.api(`/v1/messages/${ids.news}`))).body.data;
    expect(await names(`after:${news.received_at}`)).toEqual(["news", "reset"]);
    expect(await names(`before:${news.received_at}`)).toEqual(["cafe"]);
    expect(await names(`-after:${news.received_at}`)).toEqual(["cafe"]);
  });

  test("larger: / smaller: in bytes, k and m", async () => {
    expect(await names("larger:10k")).toEqual(["reset"]);
    expect(await names("smaller:10k")).toEqual(["cafe", "news"]);
    expect(await names("larger:1m")).toEqual([]);
    expect(await names("larger:100")).toEqual(["cafe", "news", "reset"]);
  });

  test("a leading - negates; terms combine with AND", async () => {
    expect(await names("-from:alice")).toEqual(["news"]);
    expect(await names("-newsletter")).toEqual(["cafe", "reset"]);
    expect(await names('-"password reset"')).toEqual(["cafe"]);
    expect(await names("-has:attachment -is:read")).toEqual(["reset"]);
    expect(await names("from:alice password")).toEqual(["reset"]);
    expect(await names("from:alice newsletter")).toEqual([]);
  });

  test("pages of a search walk with the cursor", async () => {
    const first = await list(`/v1/inboxes/${inbox.id}/messages`, { q: "from:alice", limit: "1" });
    expect(first.body.data.map((m: any) => m.id)).toEqual([ids.reset]);
    expect(first.body.meta.has_more).toBe(true);
    const second = await list(`/v1/inboxes/${inbox.id}/messages`, { q: "from:alice", limit: "1", cursor: first.body.links.next });
    expect(second.body.data.map((m: any) => m.id)).toEqual([ids.cafe]);
    expect(second.body.links.next).toBeNull();
  });

  test("an unparsable q is 422 validation_error with its position and reason", async () => {
    const cases: Array<[string, number]> = [
      ["from:", 5],
      ['hello "unterminated', 6],
      ["foo:bar", 0],
      ["ok after:yesterday", 9],
      ["larger:10x", 7],
      ["has:kittens", 4],
      ["is:maybe", 3],
      ["a - b", 2],
    ];
    for (const [q, position] of cases) {
      const r = await list(`/v1/inboxes/${inbox.id}/messages`, { q });
      expect(r.status).toBe(422);
      expect(r.body.code).toBe("validation_error");
      expect(r.body.details).toMatchObject({ field: "q", position });
      expect(typeof r.body.details.reason).toBe("string");
    }
    expect((await list("/v1/messages", { q: "from:" })).status).toBe(422);
    expect((await list(`/v1/inboxes/${inbox.id}/messages/latest`, { q: "from:" })).status).toBe(422);
  });
});

describe("project-wide search: GET /v1/messages", () => {
  test("covers every inbox of the bound project, newest first, and no other project's", async () => {
    const a = await createInbox(inst);
    const b = await createInbox(inst);
    const inA = await send(a.address, { subject: "Zebra crossing in A", text: "first" });
    const inB = await send(b.address, { subject: "Zébra sighting in B", text: "second" });
    await send(b.address, { subject: "unrelated", text: "nothing" });

    const ownerToken = await login(inst);
    const other = await json(
      inst.api("/v1/projects", { method: "POST", token: ownerToken, json: { name: "Other", slug: "other-search" } }),
    );
    expect(other.status).toBe(201);
    const otherProject = other.body.data.id as string;
    const c = await createInbox(inst, {}, ownerToken, otherProject);
    const inC = await send(c.address, { subject: "Zebra in another project", text: "third" });

    const r = await list("/v1/messages", { q: "zebra" });
    expect(r.status).toBe(200);
    expect(r.body.data.map((m: any) => m.id)).toEqual([inB, inA]);
    expect(r.body.data.map((m: any) => m.inbox_id)).toEqual([b.id, a.id]);
    expect(r.body.meta).toMatchObject({ limit: 50, has_more: false });
    expect(r.body.links.next).toBeNull();
    expect(Object.keys(r.body.data[0])).toContain("preview");

    const full = await list("/v1/messages", { q: "zebra", view: "full" });
    expect(full.body.data[0].text).toContain("second");

    const theirs = await list("/v1/messages", { q: "zebra" }, { token: ownerToken, project: otherProject });
    expect(theirs.body.data.map((m: any) => m.id)).toEqual([inC]);

    const all = await list("/v1/messages", { limit: "100" });
    expect(all.body.data.map((m: any) => m.id)).not.toContain(inC);
    expect(all.body.data.map((m: any) => m.id)).toEqual(expect.arrayContaining([inA, inB]));
  });

  test("needs messages:read", async () => {
    const key = await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "inboxes only", scopes: ["inboxes:read"] } }));
    expect(key.status).toBe(201);
    const r = await json(inst.api("/v1/messages", { token: key.body.data.secret }));
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("insufficient_scope");
  });
});

describe("waiting for matches", () => {
  test("the filtered long-poll skips a non-matching arrival and answers the matching one", async () => {
    const inbox = await createInbox(inst);
    const poll = list(`/v1/inboxes/${inbox.id}/messages/latest`, { q: "subject:ready", wait: "30", view: "summary" });
    await send(inbox.address, { subject: "Still processing", text: "not yet" });
    const wanted = await send(inbox.address, { subject: "Your export is ready", text: "download it" });
    const r = await poll;
    expect(r.status).toBe(200);
    expect(r.body.data.id).toBe(wanted);
    // The poll_token continues the filtered stream: nothing newer matches yet.
    const again = await list(`/v1/inboxes/${inbox.id}/messages/latest`, { q: "subject:ready", poll_token: r.body.meta.poll_token });
    expect(again.status).toBe(404);
  });

  test("the filtered long-poll answers 404 when only non-matching mail came", async () => {
    const inbox = await createInbox(inst);
    await send(inbox.address, { subject: "Still processing", text: "not yet" });
    const r = await list(`/v1/inboxes/${inbox.id}/messages/latest`, { q: "subject:ready", wait: "1" });
    expect(r.status).toBe(404);
  });

  test("wait with min holds the list until that many messages match", async () => {
    const inbox = await createInbox(inst);
    const pending = list(`/v1/inboxes/${inbox.id}/messages`, { q: "invoice", wait: "30", min: "3" });
    const sent: string[] = [];
    sent.push(await send(inbox.address, { subject: "Invoice 1", text: "x" }));
    await send(inbox.address, { subject: "Receipt", text: "no match here" });
    sent.push(await send(inbox.address, { subject: "Invoice 2", text: "x" }));
    sent.push(await send(inbox.address, { subject: "Invoice 3", text: "x" }));
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.body.meta.complete).toBe(true);
    expect(r.body.data.map((m: any) => m.id)).toEqual(sent.reverse());
  });

  test("project-wide wait counts arrivals in any inbox of the project", async () => {
    const a = await createInbox(inst);
    const b = await createInbox(inst);
    const pending = list("/v1/messages", { q: "walrus", wait: "30", min: "2" });
    await send(a.address, { subject: "walrus one", text: "x" });
    await send(b.address, { subject: "walrus two", text: "x" });
    const r = await pending;
    expect(r.body.meta.complete).toBe(true);
    expect(r.body.data.length).toBe(2);
  });

  test("when the wait runs out: meta.complete false with what matched so far", async () => {
    const inbox = await createInbox(inst);
    const one = await send(inbox.address, { subject: "Invoice alone", text: "x" });
    const r = await list(`/v1/inboxes/${inbox.id}/messages`, { q: "invoice", wait: "1", min: "2" });
    expect(r.status).toBe(200);
    expect(r.body.meta.complete).toBe(false);
    expect(r.body.data.map((m: any) => m.id)).toEqual([one]);
    const enough = await list(`/v1/inboxes/${inbox.id}/messages`, { q: "invoice", min: "1" });
    expect(enough.body.meta.complete).toBe(true);
    const plain = await list(`/v1/inboxes/${inbox.id}/messages`, { q: "invoice" });
    expect(plain.body.meta.complete).toBeUndefined();
  });

  test("an inbox deleted during the wait is a 404 at once, as for the latest-message poll", async () => {
    const inbox = await createInbox(inst);
    const pending = list(`/v1/inboxes/${inbox.id}/messages`, { wait: "20", min: "1" });
    await Bun.sleep(300);
    expect((await inst.api(`/v1/inboxes/${inbox.id}`, { method: "DELETE" })).status).toBe(204);
    const r = await pending;
    // (A wait that ran out would be a 200 with meta.complete false.)
    expect([r.status, r.body.code, r.body.message]).toEqual([404, "not_found", "inbox not found"]);
  });

  test("wait and min are validated", async () => {
    const inbox = await createInbox(inst);
    for (const q of [{ wait: "61" }, { wait: "-1" }, { min: "0" }, { min: "101" }] as Record<string, string>[]) {
      expect((await list(`/v1/inboxes/${inbox.id}/messages`, q)).status).toBe(422);
    }
  });
});

describe("bulk delete: DELETE /v1/inboxes/{id}/messages", () => {
  test("with q deletes the matching messages, without q all of them; counts and usage follow", async () => {
    const inbox = await createInbox(inst);
    await send(inbox.address, { subject: "purge me", text: "one" });
    await send(inbox.address, { subject: "purge me too", text: "two" });
    const keep = await send(inbox.address, { subject: "keep me", text: "three" });
    const before = (await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data;
    expect(before.message_count).toBe(3);
    const purged = (await list(`/v1/inboxes/${inbox.id}/messages`, { q: "purge" })).body.data as any[];
    const purgedBytes = purged.reduce((n, m) => n + m.size_bytes, 0);
    const usageBefore = (await json(inst.api("/v1/usage"))).body.data.usage;

    const r = await inst.api(`/v1/inboxes/${inbox.id}/messages?q=purge`, { method: "DELETE" });
    expect(r.status).toBe(204);
    const left = await list(`/v1/inboxes/${inbox.id}/messages`);
    expect(left.body.data.map((m: any) => m.id)).toEqual([keep]);
    const mid = (await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data;
    expect(mid.message_count).toBe(1);
    expect(mid.unread_count).toBe(1);
    const usageAfter = (await json(inst.api("/v1/usage"))).body.data.usage;
    expect(usageAfter.messages).toBe(usageBefore.messages - 2);
    expect(usageAfter.team_storage_bytes).toBe(usageBefore.team_storage_bytes - purgedBytes);

    expect((await inst.api(`/v1/inboxes/${inbox.id}/messages`, { method: "DELETE" })).status).toBe(204);
    expect((await list(`/v1/inboxes/${inbox.id}/messages`)).body.data).toEqual([]);
    expect((await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data.message_count).toBe(0);
  });

  test("with q right after the 250 finds what was just delivered, though the index is written after the commit", async () => {
    const inbox = await createInbox(inst);
    // A big body keeps the search index's worker busy for a while after the 250 (it tokenizes
    // every word): the delete's q must still see the message, as a search does.
    const words = Array.from({ length: 200_000 }, (_, i) => `filler${i % 997}`).join(" ");
    for (let round = 0; round < 3; round++) {
      await send(inbox.address, { subject: `bulky ${round}`, text: `${words} zebracode${round}` });
      const r = await inst.api(`/v1/inboxes/${inbox.id}/messages?q=zebracode${round}`, { method: "DELETE" });
      expect(r.status).toBe(204);
      expect((await json(inst.api(`/v1/inboxes/${inbox.id}`))).body.data.message_count).toBe(0);
    }
  });

  test("an IMAP session sees the deleted messages expunged", async () => {
    const inbox = await createInbox(inst);
    const creds = (await json(inst.api(`/v1/inboxes/${inbox.id}/credentials`))).body.data;
    await send(inbox.address, { subject: "purge via imap", text: "one" });
    await send(inbox.address, { subject: "stays", text: "two" });
    const box: Box = { id: inbox.id, address: inbox.address, password: creds.password };
    const client = await connected(inst, box);
    try {
      const lock = await client.getMailboxLock("INBOX");
      try {
        expect((client.mailbox as any).exists).toBe(2);
        const expunged: number[] = [];
        client.on("expunge", (e: { seq: number }) => expunged.push(e.seq));
        expect((await inst.api(`/v1/inboxes/${inbox.id}/messages?q=purge`, { method: "DELETE" })).status).toBe(204);
        // The first NOOP after the 204 reports it: the IMAP sessions hear of each deletion before the
        // 204 goes out (mail/removal.ts). Asserted at once, so a miss fails here rather than waiting
        // out the test's timeout.
        await client.noop();
        expect(expunged).toEqual([1]);
        expect((client.mailbox as any).exists).toBe(1);
      } finally {
        lock.release();
      }
    } finally {
      await client.logout();
    }
  });

  test("needs messages:write; another project's inbox is 404; an invalid q is 422", async () => {
    const inbox = await createInbox(inst);
    const key = await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "read only", scopes: ["messages:read"] } }));
    const denied = await json(inst.api(`/v1/inboxes/${inbox.id}/messages`, { method: "DELETE", token: key.body.data.secret }));
    expect(denied.status).toBe(403);
    const bad = await json(inst.api(`/v1/inboxes/${inbox.id}/messages?q=${encodeURIComponent('"open')}`, { method: "DELETE" }));
    expect(bad.status).toBe(422);
    expect(bad.body.details).toMatchObject({ field: "q", position: 0 });
    const ownerToken = await login(inst);
    const other = await json(inst.api("/v1/projects", { method: "POST", token: ownerToken, json: { name: "Del", slug: "other-delete" } }));
    const r = await inst.api(`/v1/inboxes/${inbox.id}/messages`, { method: "DELETE", token: ownerToken, project: other.body.data.id });
    expect(r.status).toBe(404);
  });
});
