// Connection faults (docs/chaos.md "Connection faults") against a real server: the REST resource
// (roundtrip, limits, who may use it) and what a real client sees when it connects: a late 220, a
// 421 and a closed socket, a 554 that serves only QUIT; with real clients (raw TCP, nodemailer).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { addUser, json, login, startInboxd, type Instance } from "../support/harness";
import { code, createInbox, sendRaw } from "../support/mail";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd();
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const put = (rules: unknown, token?: string, project?: string) =>
  json(inst.api("/v1/smtp/chaos", { method: "PUT", json: { rules }, token, project }));
const get = (token?: string, project?: string) => json(inst.api("/v1/smtp/chaos", { token, project }));
const clear = (token?: string, project?: string) => inst.api("/v1/smtp/chaos", { method: "DELETE", token, project });
const count = async (id: string) => (await json(inst.api(`/v1/inboxes/${id}`))).body.data.message_count as number;

async function setRules(rules: unknown[]) {
  const r = await put(rules);
  expect(r.status).toBe(200);
  return r.body.data.rules;
}

const simpleMail = (to: string, subject = "connect chaos") =>
  `From: app@example.com\r\nTo: ${to}\r\nSubject: ${subject}\r\nMessage-ID: <${crypto.randomUUID()}@example.com>\r\n\r\nhello\r\n`;

/** A raw TCP client that knows when its socket came up (SmtpDialog starts no clock). */
class Raw {
  private buf = "";
  private constructor(
    readonly socket: Socket,
    /** performance.now() at the connect event. */
    readonly connectedAt: number,
  ) {
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      this.buf += d;
    });
  }

  static async open(): Promise<Raw> {
    const socket = connect({ port: inst.ports.smtp!, host: "127.0.0.1" });
    socket.on("error", () => {});
    const at = await new Promise<number>((resolve) => socket.once("connect", () => resolve(performance.now())));
    return new Raw(socket, at);
  }

  /** What arrived so far, unread. */
  get pending(): string {
    return this.buf;
  }

  async reply(): Promise<string> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const m = /^(?:\d{3}-.*\r\n)*\d{3}(?: .*)?\r\n/.exec(this.buf);
      if (m) {
        this.buf = this.buf.slice(m[0].length);
        return m[0];
      }
      if (Date.now() > deadline) throw new Error(`no SMTP reply; buffer: ${JSON.stringify(this.buf)}`);
      await Bun.sleep(5);
    }
  }

  cmd(line: string): Promise<string> {
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }

  close(): void {
    this.socket.destroy();
  }
}

/** A new connection's first reply and how long after the connect it came. */
async function firstReply(): Promise<{ client: Raw; socket: Socket; reply: string; ms: number }> {
  const client = await Raw.open();
  const reply = await client.reply();
  return { client, socket: client.socket, reply, ms: performance.now() - client.connectedAt };
}

const closed = (socket: Socket) =>
  new Promise<void>((resolve) => {
    if (socket.destroyed || socket.readyState === "closed") return resolve();
    socket.once("close", () => resolve());
  });

describe("the connection-faults resource", () => {
  test("PUT, GET, DELETE roundtrip; defaults filled in; the reply a client will see is shown", async () => {
    expect(await get()).toMatchObject({ status: 200, body: { data: { rules: [] } } });
    const r = await put([
      { stage: "connect", delay_ms: 1500, rate: 0.25 },
      { stage: "connect", code: 421, message: "busy, come back later", rate: 0 },
      { stage: "connect", code: 554, message: "5.7.1 go away", rate: 0 },
      { stage: "connect", code: null, delay_ms: 10, rate: 0 },
      { stage: "connect", code: 421, rate: 0 },
    ]);
    expect(r.status).toBe(200);
    const rules = r.body.data.rules;
    expect(Object.keys(r.body.data)).toEqual(["rules"]);
    expect(rules[0]).toEqual({ stage: "connect", code: null, message: null, rate: 0.25, delay_ms: 1500, reply: rules[0].reply });
    expect(rules[0].reply).toMatch(/^220 \S+ ESMTP inboxd test mail sink$/);
    expect(rules[1]).toEqual({
      stage: "connect",
      code: 421,
      message: "busy, come back later",
      rate: 0,
      delay_ms: 0,
      reply: "421 4.3.2 busy, come back later",
    });
    expect(rules[2].reply).toBe("554 5.7.1 go away");
    expect(rules[3].code).toBeNull();
    expect(rules[4].reply).toMatch(/^421 4\.3\.2 \S+ service not available \(inboxd chaos fault injection\)/);
    expect((await get()).body).toEqual(r.body);
    // PUT replaces; an empty list is the same as none.
    expect((await put([{ stage: "connect", code: 554, rate: 0 }])).body.data.rules).toHaveLength(1);
    expect((await put([])).body.data.rules).toEqual([]);
    await put([{ stage: "connect", code: 421, rate: 0 }]);
    const del = await clear();
    expect(del.status).toBe(204);
    expect(await del.text()).toBe("");
    expect((await get()).body.data.rules).toEqual([]);
    expect((await clear()).status).toBe(204);
  });

  test("an Idempotency-Key replays the same answer", async () => {
    const headers = { "idempotency-key": crypto.randomUUID() };
    const body = { rules: [{ stage: "connect", code: 421, rate: 0 }] };
    const first = await json(inst.api("/v1/smtp/chaos", { method: "PUT", json: body, headers }));
    const again = await json(inst.api("/v1/smtp/chaos", { method: "PUT", json: body, headers }));
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    await clear();
  });

  test("bad input is 422 validation_error naming the field; nothing of it is stored", async () => {
    const bad: Array<[unknown, string]> = [
      [[{ stage: "rcpt", code: 421 }], "rules[0].stage"],
      [[{ stage: "connect", code: 450 }], "rules[0].code"],
      [[{ stage: "connect", code: 550 }], "rules[0].code"],
      [[{ stage: "connect", code: 421, rate: 2 }], "rules[0].rate"],
      [[{ stage: "connect", code: 421, delay_ms: 40_000 }], "rules[0].delay_ms"],
      [[{ stage: "connect" }], "rules[0].delay_ms"],
      [[{ stage: "connect", code: null, delay_ms: 0 }], "rules[0].delay_ms"],
      [[{ stage: "connect", delay_ms: 100, message: "hello" }], "rules[0].message"],
      [[{ stage: "connect", code: 421, message: "5.3.2 wrong class" }], "rules[0].message"],
      [[{ stage: "connect", code: 554, message: "two\r\nlines" }], "rules[0].message"],
      [
        [
          { stage: "connect", code: 421 },
          { stage: "connect", code: 421, rate: -1 },
        ],
        "rules[1].rate",
      ],
      [Array.from({ length: 11 }, () => ({ stage: "connect", code: 421 })), "rules"],
    ];
    for (const [rules, field] of bad) {
      const r = await put(rules);
      expect({ rules, status: r.status, code: r.body.code, field: r.body.details?.field }).toEqual({
        rules,
        status: 422,
        code: "validation_error",
        field,
      });
      expect(Object.keys(r.body).sort()).toEqual(["code", "details", "message", "request_id"]);
    }
    // A rule without a stage fails the body's schema: the same 422, its details name the path.
    const missing = await put([{ code: 421 }]);
    expect({ status: missing.status, code: missing.body.code }).toEqual({ status: 422, code: "validation_error" });
    expect(JSON.stringify(missing.body.details)).toContain("/rules/0/stage");
    expect((await get()).body.data.rules).toEqual([]);
    const ten = await put(Array.from({ length: 10 }, () => ({ stage: "connect", code: 421, rate: 0, delay_ms: 30_000 })));
    expect(ten.status).toBe(200);
    await clear();
  });

  test("only the instance's operator: another team's owner, a member, a key without * get 403 principal_not_permitted", async () => {
    await setRules([{ stage: "connect", code: 421, rate: 0 }]);
    // The bootstrap team's owner, signed in, may.
    const owner = await login(inst);
    const projects = (await json(inst.api("/v1/projects", { token: owner }))).body.data;
    expect((await get(owner, projects[0].id)).status).toBe(200);

    await addUser(inst, "other-owner@team.test", "other-password-1", "owner", "Other team");
    const other = await login(inst, "other-owner@team.test", "other-password-1");
    const otherProject = (await json(inst.api("/v1/projects", { token: other }))).body.data[0].id;
    await addUser(inst, "member@default.test", "member-password-1", "member");
    const member = await login(inst, "member@default.test", "member-password-1");
    const key = (
      await json(inst.api("/v1/api-keys", { method: "POST", json: { name: "no star", scopes: ["inboxes:read", "inboxes:write"] } }))
    ).body.data.secret as string;
    for (const [who, token, project] of [
      ["another team's owner", other, otherProject],
      ["a member of the bootstrap team", member, projects[0].id],
      ["a key without *", key, undefined],
    ] as const) {
      for (const r of [await get(token, project), await put([], token, project)]) {
        expect({ who, status: r.status, code: r.body.code }).toEqual({ who, status: 403, code: "principal_not_permitted" });
        expect(Object.keys(r.body).sort()).toEqual(["code", "details", "message", "request_id"]);
      }
      expect((await clear(token, project)).status).toBe(403);
    }
    // None of them changed anything.
    expect((await get()).body.data.rules).toHaveLength(1);
    await clear();
  });
});

describe("what a client sees when it connects", () => {
  test("no rules: the usual 220 greeting", async () => {
    const { client, reply } = await firstReply();
    client.close();
    expect(reply).toMatch(/^220 \S+ ESMTP inboxd test mail sink\r\n$/);
  });

  test("a delay-only rule: the 220 comes at least delay_ms late, and mail still goes through", async () => {
    await setRules([{ stage: "connect", delay_ms: 600 }]);
    const { client, reply, ms } = await firstReply();
    try {
      expect(reply).toMatch(/^220 \S+ ESMTP inboxd test mail sink\r\n$/);
      expect(ms).toBeGreaterThanOrEqual(600 - 2); // timer rounding
      expect(code(await client.cmd("EHLO client.test"))).toBe(250);
    } finally {
      client.close();
    }
    // A real client waits for the late greeting and delivers.
    const inbox = await createInbox(inst);
    const info = await sendRaw(inst, inbox.address, simpleMail(inbox.address));
    expect(info.accepted).toEqual([inbox.address]);
    expect(await count(inbox.id)).toBe(1);
    await clear();
  });

  test("commands sent before a late greeting wait for it and are answered after it, in order", async () => {
    await setRules([{ stage: "connect", delay_ms: 400 }]);
    const client = await Raw.open();
    try {
      client.socket.write("EHLO early.test\r\nNOOP\r\n");
      expect(await client.reply()).toMatch(/^220 /);
      expect(performance.now() - client.connectedAt).toBeGreaterThanOrEqual(400 - 2);
      expect(code(await client.reply())).toBe(250);
      expect(await client.reply()).toBe("250 2.0.0 OK\r\n");
    } finally {
      client.close();
    }
    await clear();
  });

  test("421: the client reads 421 4.3.2 and the socket is closed; nothing is stored", async () => {
    await setRules([{ stage: "connect", code: 421, message: "busy for the test", delay_ms: 200 }]);
    const { socket, reply, ms } = await firstReply();
    expect(reply).toBe("421 4.3.2 busy for the test\r\n");
    expect(ms).toBeGreaterThanOrEqual(200 - 2);
    await closed(socket);
    expect(socket.destroyed || socket.readyState === "closed").toBe(true);
    const inbox = await createInbox(inst);
    const err = await sendRaw(inst, inbox.address, simpleMail(inbox.address)).catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err.responseCode).toBe(421);
    await clear();
    expect(await count(inbox.id)).toBe(0);
  });

  test("554: the client reads 554 5.3.2, every command but QUIT gets 503, QUIT gets 221 and the close", async () => {
    await setRules([{ stage: "connect", code: 554 }]);
    const { client: dialog, socket, reply } = await firstReply();
    try {
      expect(reply).toMatch(/^554 5\.3\.2 \S+ no SMTP service here \(inboxd chaos fault injection\); send QUIT\r\n$/);
      expect(await dialog.cmd("EHLO client.test")).toBe("503 5.5.1 no service, send QUIT\r\n");
      expect(await dialog.cmd("MAIL FROM:<a@example.com>")).toBe("503 5.5.1 no service, send QUIT\r\n");
      expect(await dialog.cmd("STARTTLS")).toBe("503 5.5.1 no service, send QUIT\r\n");
      expect(await dialog.cmd("BOGUS")).toBe("503 5.5.1 no service, send QUIT\r\n");
      expect(await dialog.cmd("QUIT")).toBe("221 2.0.0 Bye\r\n");
      await closed(socket);
    } finally {
      dialog.close();
    }
    await clear();
  });

  test("rate 0 never fires: the usual greeting; DELETE brings the usual greeting back", async () => {
    // Were the rule to fire, the 421 would come 30 s late, well after the dialog gives up (10 s).
    await setRules([{ stage: "connect", code: 421, rate: 0, delay_ms: 30_000 }]);
    for (let i = 0; i < 3; i++) {
      const { client, reply } = await firstReply();
      client.close();
      expect(reply).toMatch(/^220 /);
    }
    await setRules([{ stage: "connect", code: 421 }]);
    expect((await firstReply()).reply).toMatch(/^421 /);
    expect((await clear()).status).toBe(204);
    const { client, reply } = await firstReply();
    client.close();
    expect(reply).toMatch(/^220 /);
  });

  test("a change applies to the next connection, without a restart", async () => {
    await setRules([{ stage: "connect", code: 421, message: "first" }]);
    expect((await firstReply()).reply).toBe("421 4.3.2 first\r\n");
    await setRules([{ stage: "connect", code: 554, message: "second" }]);
    const second = await firstReply();
    second.client.close();
    expect(second.reply).toBe("554 5.3.2 second\r\n");
    await setRules([
      { stage: "connect", code: 421, rate: 0 },
      { stage: "connect", code: 554, message: "5.7.1 third" },
    ]);
    const third = await firstReply();
    third.client.close();
    expect(third.reply).toBe("554 5.7.1 third\r\n");
    await clear();
  });

  test("a connection waiting on its delay blocks nobody; clients that hang up during it leave the server healthy", async () => {
    await setRules([{ stage: "connect", delay_ms: 1500 }]);
    // One client waits for its greeting; meanwhile the HTTP API answers.
    const waiting = await Raw.open();
    expect((await get()).status).toBe(200);
    expect(waiting.pending).toBe("");
    // Others connect and hang up before their greeting.
    for (let i = 0; i < 5; i++) (await Raw.open()).close();
    expect(await waiting.reply()).toMatch(/^220 /);
    waiting.close();
    // Past the hung-up clients' delays: nothing broke, the next connection and its mail work.
    await Bun.sleep(1600);
    await clear();
    const inbox = await createInbox(inst);
    expect((await sendRaw(inst, inbox.address, simpleMail(inbox.address))).accepted).toEqual([inbox.address]);
    expect((await json(inst.api("/healthz", { token: null }))).status).toBe(200);
  });
});
