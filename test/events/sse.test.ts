// GET /v1/events: Server-Sent Events of the bound project, per principal, with Last-Event-ID resume.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addUser, json, login, startInboxd, ULID, type Instance } from "../support/harness";
import { transport } from "../support/mail";

let inst: Instance;
let owner: string, member: string, other: string;
let projectA: string, projectB: string;

beforeAll(async () => {
  inst = await startInboxd({ INBOXD_SSE_HEARTBEAT_MS: "300" });
  await addUser(inst, "member@a.test", "member-password-1", "member");
  await addUser(inst, "owner@b.test", "owner-b-password-1", "owner", "team-b");
  owner = await login(inst);
  member = await login(inst, "member@a.test", "member-password-1");
  other = await login(inst, "owner@b.test", "owner-b-password-1");
  projectA = (await json(inst.api("/v1/projects", { token: owner }))).body.data[0].id;
  projectB = (await json(inst.api("/v1/projects", { token: other }))).body.data[0].id;
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

interface Frame {
  id?: string;
  event?: string;
  data?: any;
  comment?: string;
}

/** A minimal SSE client over fetch: collects frames until closed. */
class Stream {
  frames: Frame[] = [];
  private ac = new AbortController();
  private waiters: Array<() => void> = [];
  status = 0;
  contentType = "";

  static async open(opts: { token?: string | null; project?: string; lastEventId?: string }): Promise<Stream> {
    const s = new Stream();
    const headers: Record<string, string> = {};
    if (opts.lastEventId) headers["last-event-id"] = opts.lastEventId;
    const res = await inst.api("/v1/events", { token: opts.token, project: opts.project, headers, signal: s.ac.signal });
    s.status = res.status;
    s.contentType = res.headers.get("content-type") ?? "";
    if (res.status !== 200) {
      s.frames.push({ data: await res.json() });
      return s;
    }
    void s.read(res.body!);
    return s;
  }

  private async read(body: ReadableStream<Uint8Array>) {
    const dec = new TextDecoder();
    let buf = "";
    try {
      for await (const chunk of body) {
        buf += dec.decode(chunk, { stream: true });
        let i: number;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const f: Frame = {};
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) f.comment = line.slice(1).trim();
            else if (line.startsWith("id: ")) f.id = line.slice(4);
            else if (line.startsWith("event: ")) f.event = line.slice(7);
            else if (line.startsWith("data: ")) f.data = JSON.parse(line.slice(6));
          }
          this.frames.push(f);
          for (const w of this.waiters.splice(0)) w();
        }
      }
    } catch {}
  }

  events(type?: string): Frame[] {
    return this.frames.filter((f) => f.event && (!type || f.event === type));
  }

  async waitFor(pred: (s: Stream) => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pred(this)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`stream: condition not met; frames: ${JSON.stringify(this.frames.slice(-10))}`);
      await new Promise<void>((res) => {
        const t = setTimeout(res, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          res();
        });
      });
    }
  }

  close() {
    this.ac.abort();
  }
}

async function newInbox(token: string | undefined, project: string | undefined, body: Record<string, unknown> = {}) {
  const r = await json(inst.api("/v1/inboxes", { method: "POST", json: body, token, project }));
  expect(r.status).toBe(201);
  return r.body.data as { id: string; address: string };
}

async function send(to: string, subject: string) {
  const t = transport(inst);
  try {
    await t.sendMail({ from: "a@example.com", to, subject, text: subject, html: `<p>${subject}</p>` });
  } finally {
    t.close();
  }
}

describe("live stream", () => {
  test("an API key receives message.received of its project, with ids, without bodies", async () => {
    const s = await Stream.open({});
    expect(s.status).toBe(200);
    expect(s.contentType).toStartWith("text/event-stream");
    const inbox = await newInbox(undefined, undefined);
    await send(inbox.address, "hello stream");
    await s.waitFor((x) => x.events("message.received").some((f) => f.data.data.inbox_id === inbox.id));
    const f = s.events("message.received").find((f) => f.data.data.inbox_id === inbox.id)!;
    expect(f.id).toMatch(/^\d+$/);
    expect(f.data.type).toBe("message.received");
    expect(f.data.id).toMatch(ULID);
    expect(Date.parse(f.data.timestamp)).toBeGreaterThan(0);
    expect(f.data.data).toMatchObject({ inbox_id: inbox.id, subject: "hello stream", has_text: true, has_html: true });
    expect(f.data.data.id).toMatch(ULID);
    expect(f.data.data.text).toBeUndefined();
    expect(f.data.data.html).toBeUndefined();
    // Deleting the message is announced live, without an id (it is not in the log, so not replayed).
    expect((await inst.api(`/v1/messages/${f.data.data.id}`, { method: "DELETE" })).status).toBe(204);
    await s.waitFor((x) => x.events("message.deleted").some((d) => d.data.data.id === f.data.data.id));
    const gone = s.events("message.deleted").find((d) => d.data.data.id === f.data.data.id)!;
    expect(gone.id).toBeUndefined();
    expect(gone.data).toMatchObject({ type: "message.deleted", data: { id: f.data.data.id, inbox_id: inbox.id } });
    // Deleting the inbox is announced too (live views drop it).
    expect((await inst.api(`/v1/inboxes/${inbox.id}`, { method: "DELETE" })).status).toBe(204);
    await s.waitFor((x) => x.events("inbox.deleted").some((f) => f.data.data.inbox_id === inbox.id));
    expect(Number(s.events("inbox.deleted").at(-1)!.id)).toBeGreaterThan(Number(f.id));
    s.close();
  });

  test("a device gets its own user's alerts; another user of the project gets the message but not the alert", async () => {
    const sOwner = await Stream.open({ token: owner, project: projectA });
    const sMember = await Stream.open({ token: member, project: projectA });
    const inbox = await newInbox(owner, projectA, { watch: true });
    await send(inbox.address, "watched arrival");
    await sOwner.waitFor((x) => x.events("alert.created").some((f) => f.data.data.inbox.id === inbox.id));
    await sMember.waitFor((x) => x.events("message.received").some((f) => f.data.data.inbox_id === inbox.id));
    const alert = sOwner.events("alert.created").find((f) => f.data.data.inbox.id === inbox.id)!;
    expect(alert.data.data).toMatchObject({ type: "message.arrived", count: 1, channel: "arrivals", read_at: null });
    const listed = await json(inst.api("/v1/alerts", { token: owner, project: projectA }));
    expect(listed.body.data.map((a: any) => a.id)).toContain(alert.data.data.id);
    // A second arrival bumps the same alert.
    await send(inbox.address, "second");
    await sOwner.waitFor((x) => x.events("alert.updated").some((f) => f.data.data.id === alert.data.data.id));
    expect(sOwner.events("alert.updated").find((f) => f.data.data.id === alert.data.data.id)!.data.data.count).toBe(2);
    // Marking read is announced too (other devices of the user clear their badge).
    await json(inst.api("/v1/alerts/mark-read", { method: "POST", token: owner, project: projectA }));
    await sOwner.waitFor((x) => x.events("alert.read").length > 0);
    expect(sOwner.events("alert.read").at(-1)!.data.data.unread_count).toBe(0);
    await Bun.sleep(200);
    expect(sMember.events().filter((f) => f.event!.startsWith("alert."))).toEqual([]);
    sOwner.close();
    sMember.close();
  });

  test("another project's stream hears nothing of this project; an API key without messages:read gets no message events", async () => {
    const sB = await Stream.open({ token: other, project: projectB });
    const k = await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "hooks only", scopes: ["webhooks:read"] } }));
    const sNarrow = await Stream.open({ token: k.body.data.secret });
    const sA = await Stream.open({});
    const inbox = await newInbox(undefined, undefined);
    await send(inbox.address, "private to A");
    await sA.waitFor((x) => x.events("message.received").some((f) => f.data.data.inbox_id === inbox.id));
    await Bun.sleep(300);
    expect(sB.events("message.received").filter((f) => f.data.data.inbox_id === inbox.id)).toEqual([]);
    expect(sNarrow.events("message.received")).toEqual([]);
    // Another team's device cannot open project A's stream at all.
    const forbidden = await Stream.open({ token: other, project: projectA });
    expect(forbidden.status).toBe(404);
    for (const s of [sA, sB, sNarrow]) s.close();
  });

  test("Last-Event-ID resumes after the last event seen, in order, with nothing lost", async () => {
    const inbox = await newInbox(undefined, undefined);
    const s1 = await Stream.open({});
    await send(inbox.address, "r0");
    await s1.waitFor((x) => x.events("message.received").some((f) => f.data.data.subject === "r0"));
    const last = s1.events("message.received").find((f) => f.data.data.subject === "r0")!.id!;
    s1.close();
    for (const subj of ["r1", "r2", "r3"]) await send(inbox.address, subj);
    const s2 = await Stream.open({ lastEventId: last });
    await s2.waitFor((x) => x.events("message.received").filter((f) => f.data.data.inbox_id === inbox.id).length >= 3);
    const mine = s2.events("message.received").filter((f) => f.data.data.inbox_id === inbox.id);
    expect(mine.map((f) => f.data.data.subject)).toEqual(["r1", "r2", "r3"]);
    const ids = s2.events().map((f) => Number(f.id));
    expect(ids.every((id) => id > Number(last))).toBe(true);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    s2.close();
    // Without Last-Event-ID the stream starts at "now": no replay.
    const s3 = await Stream.open({});
    await s3.waitFor((x) => x.frames.some((f) => f.comment?.startsWith("heartbeat")), 5_000);
    expect(s3.events("message.received")).toEqual([]);
    s3.close();
  });

  test("a Last-Event-ID beyond the newest event (a log started afresh) resumes at now: live events still come", async () => {
    const inbox = await newInbox(undefined, undefined);
    const s = await Stream.open({ lastEventId: "999999999" });
    await send(inbox.address, "after a wipe");
    await s.waitFor((x) => x.events("message.received").some((f) => f.data.data.subject === "after a wipe"));
    expect(Number(s.events("message.received").at(-1)!.id)).toBeLessThan(999999999);
    s.close();
  });

  test("idle streams carry heartbeats; a malformed Last-Event-ID is 422; no credential is 401", async () => {
    const s = await Stream.open({});
    await s.waitFor((x) => x.frames.filter((f) => f.comment?.startsWith("heartbeat")).length >= 2, 5_000);
    s.close();
    const bad = await Stream.open({ lastEventId: "abc" });
    expect(bad.status).toBe(422);
    const anon = await Stream.open({ token: null });
    expect(anon.status).toBe(401);
    const noProject = await Stream.open({ token: owner });
    expect(noProject.status).toBe(400);
  });

  test("EventSource-style access: credential and project as query parameters", async () => {
    const res = await fetch(`${inst.url}/v1/events?access_token=${encodeURIComponent(owner)}&project=${projectA}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain("retry:");
    await reader.cancel();
  });
});
