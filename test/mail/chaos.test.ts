// Fault injection per inbox (docs/chaos.md) against a real server: the REST resource (roundtrip,
// limits, scopes, tenancy) and what a real SMTP client sees at RCPT and at the end of DATA.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, login, startInboxd, type Instance } from "../support/harness";
import { code, createInbox, SmtpDialog, sendRaw, transport } from "../support/mail";
import { withDatabase } from "../support/database-rows";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd();
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

type Rule = { stage: string; code: number; message?: string | null; rate?: number; delay_ms?: number };

const put = (id: string, rules: unknown, token?: string) =>
  json(inst.api(`/v1/inboxes/${id}/chaos`, { method: "PUT", json: { rules }, token }));
const get = (id: string, token?: string) => json(inst.api(`/v1/inboxes/${id}/chaos`, { token }));
const clear = (id: string, token?: string) => inst.api(`/v1/inboxes/${id}/chaos`, { method: "DELETE", token });
const count = async (id: string) => (await json(inst.api(`/v1/inboxes/${id}`))).body.data.message_count as number;

async function chaosInbox(rules: Rule[]) {
  const inbox = await createInbox(inst);
  const r = await put(inbox.id, rules);
  expect(r.status).toBe(200);
  return inbox;
}

const simpleMail = (to: string, subject = "chaos") =>
  `From: app@example.com\r\nTo: ${to}\r\nSubject: ${subject}\r\nMessage-ID: <${crypto.randomUUID()}@example.com>\r\n\r\nhello\r\n`;

/** One raw transaction: the replies to MAIL, RCPT (each) and, when every RCPT passed or `data` is set, DATA and the body. */
async function transaction(rcpts: string[], opts: { data?: boolean } = {}) {
  const { dialog } = await SmtpDialog.open(inst.ports.smtp!);
  try {
    await dialog.cmd("EHLO client.test");
    expect(code(await dialog.cmd("MAIL FROM:<app@example.com>"))).toBe(250);
    const rcptReplies: string[] = [];
    for (const r of rcpts) rcptReplies.push(await dialog.cmd(`RCPT TO:<${r}>`));
    let dataReply: string | null = null;
    if (opts.data ?? rcptReplies.every((r) => code(r) === 250)) {
      expect(code(await dialog.cmd("DATA"))).toBe(354);
      dataReply = await dialog.cmd(`${simpleMail(rcpts.join(", "))}.`);
    }
    await dialog.cmd("QUIT").catch(() => "");
    return { rcptReplies, dataReply };
  } finally {
    dialog.close();
  }
}

describe("the chaos resource", () => {
  test("PUT, GET, DELETE roundtrip; defaults filled in; the reply a sender will see is shown", async () => {
    const inbox = await createInbox(inst);
    expect(await get(inbox.id)).toMatchObject({ status: 200, body: { data: { inbox_id: inbox.id, rules: [] } } });
    const rules = [
      { stage: "rcpt", code: 550, message: "mailbox disabled for testing" },
      { stage: "data", code: 451, rate: 0.25, delay_ms: 1500 },
      { stage: "rcpt", code: 550, message: "5.1.1 user unknown" },
    ];
    const r = await put(inbox.id, rules);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      inbox_id: inbox.id,
      rules: [
        {
          stage: "rcpt",
          code: 550,
          message: "mailbox disabled for testing",
          rate: 1,
          delay_ms: 0,
          reply: "550 5.7.1 mailbox disabled for testing",
        },
        {
          stage: "data",
          code: 451,
          message: null,
          rate: 0.25,
          delay_ms: 1500,
          reply: `451 4.3.0 message temporary failure injected by inboxd chaos for <${inbox.address}>`,
        },
        { stage: "rcpt", code: 550, message: "5.1.1 user unknown", rate: 1, delay_ms: 0, reply: "550 5.1.1 user unknown" },
      ],
    });
    expect((await get(inbox.id)).body).toEqual(r.body);
    // PUT replaces; an empty list is the same as no chaos.
    expect((await put(inbox.id, [{ stage: "data", code: 554 }])).body.data.rules).toHaveLength(1);
    expect((await get(inbox.id)).body.data.rules.map((x: Rule) => x.code)).toEqual([554]);
    expect((await put(inbox.id, [])).body.data.rules).toEqual([]);
    await put(inbox.id, rules);
    const del = await clear(inbox.id);
    expect(del.status).toBe(204);
    expect(await del.text()).toBe("");
    expect((await get(inbox.id)).body.data.rules).toEqual([]);
    // Clearing what is already clear is fine (idempotent).
    expect((await clear(inbox.id)).status).toBe(204);
  });

  test("bad input is 422 validation_error with the contract's envelope", async () => {
    const inbox = await createInbox(inst);
    const bad: Array<[unknown, string]> = [
      [[{ stage: "mail", code: 550 }], "stage"],
      [[{ stage: "rcpt", code: 399 }], "code"],
      [[{ stage: "rcpt", code: 600 }], "code"],
      [[{ stage: "rcpt", code: 250 }], "code"],
      [[{ stage: "data", code: 451.5 }], "code"],
      [[{ stage: "rcpt", code: 550, rate: 1.01 }], "rate"],
      [[{ stage: "rcpt", code: 550, rate: -0.1 }], "rate"],
      [[{ stage: "rcpt", code: 550, delay_ms: 30_001 }], "delay_ms"],
      [[{ stage: "rcpt", code: 550, delay_ms: -1 }], "delay_ms"],
      [Array.from({ length: 11 }, () => ({ stage: "rcpt", code: 550 })), "rules"],
      [[{ stage: "rcpt", code: 550, message: "two\r\nlines" }], "message"],
      [[{ stage: "rcpt", code: 550, message: "" }], "message"],
      [[{ stage: "rcpt", code: 550, message: "x".repeat(201) }], "message"],
      [[{ stage: "rcpt", code: 550, message: "4.2.2 mailbox full" }], "message"],
      [[{ code: 550 }], "stage"],
      ["not a list", "rules"],
    ];
    for (const [rules, field] of bad) {
      const r = await put(inbox.id, rules);
      expect({ rules, status: r.status, code: r.body.code }).toEqual({ rules, status: 422, code: "validation_error" });
      expect(Object.keys(r.body).sort()).toEqual(["code", "details", "message", "request_id"]);
      expect(JSON.stringify(r.body.details) + r.body.message).toContain(field);
    }
    expect((await json(inst.api(`/v1/inboxes/${inbox.id}/chaos`, { method: "PUT", json: {} }))).status).toBe(422);
    // Ten rules is the limit, not an error; nothing of the refused puts was stored.
    expect((await get(inbox.id)).body.data.rules).toEqual([]);
    const ten = await put(
      inbox.id,
      Array.from({ length: 10 }, () => ({ stage: "data", code: 451, rate: 0, delay_ms: 30_000 })),
    );
    expect(ten.status).toBe(200);
  });

  test("unknown id and another project's inbox are 404; scopes inboxes:read / inboxes:write", async () => {
    const inbox = await createInbox(inst);
    for (const r of [await get("01ARZ3NDEKTSV4RRFFQ69G5FAV"), await put("01ARZ3NDEKTSV4RRFFQ69G5FAV", [])]) {
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("not_found");
    }
    expect((await clear("01ARZ3NDEKTSV4RRFFQ69G5FAV")).status).toBe(404);

    const device = await login(inst);
    const project = await json(inst.api("/v1/projects", { method: "POST", token: device, json: { name: "Chaos other" } }));
    expect(project.status).toBe(201);
    const foreign = await json(inst.api("/v1/inboxes", { method: "POST", token: device, project: project.body.data.id, json: {} }));
    expect(foreign.status).toBe(201);
    const fid = foreign.body.data.id;
    expect((await get(fid)).status).toBe(404);
    expect((await put(fid, [{ stage: "rcpt", code: 550 }])).status).toBe(404);
    expect((await clear(fid)).status).toBe(404);
    const own = await json(
      inst.api(`/v1/inboxes/${fid}/chaos`, { method: "PUT", token: device, project: project.body.data.id, json: { rules: [] } }),
    );
    expect(own.status).toBe(200);

    const keyOf = async (scopes: string[]) =>
      (await json(inst.api("/v1/api-keys", { method: "POST", json: { name: scopes.join(" "), scopes } }))).body.data.secret as string;
    const reader = await keyOf(["inboxes:read"]);
    const writer = await keyOf(["inboxes:write"]);
    expect((await get(inbox.id, reader)).status).toBe(200);
    const denied = await put(inbox.id, [], reader);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe("insufficient_scope");
    expect((await clear(inbox.id, reader)).status).toBe(403);
    expect((await get(inbox.id, writer)).status).toBe(403);
    expect((await put(inbox.id, [], writer)).status).toBe(200);
    expect((await clear(inbox.id, writer)).status).toBe(204);
  });

  test("deleting the inbox deletes its rules", async () => {
    const inbox = await chaosInbox([{ stage: "rcpt", code: 550 }]);
    const rows = async () =>
      (await withDatabase(inst.dataDir, (db) => db.get("SELECT COUNT(*) AS n FROM inbox_chaos_rules WHERE inbox_id = ?", [inbox.id]))) as {
        n: number;
      };
    expect((await rows()).n).toBe(1);
    expect((await inst.api(`/v1/inboxes/${inbox.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await rows()).n).toBe(0);
  });
});

describe("what a sender sees", () => {
  test("rcpt 550 refuses RCPT with exactly that code and message; nothing is stored", async () => {
    const inbox = await chaosInbox([{ stage: "rcpt", code: 550, message: "mailbox disabled for testing" }]);
    const { rcptReplies, dataReply } = await transaction([inbox.address]);
    expect(rcptReplies).toEqual(["550 5.7.1 mailbox disabled for testing\r\n"]);
    expect(dataReply).toBeNull();
    // nodemailer (a real client) gets the same answer as an error.
    const t = transport(inst);
    const err = await t.sendMail({ from: "app@example.com", to: inbox.address, subject: "x", text: "x" }).catch((e) => e);
    t.close();
    expect(err).toBeInstanceOf(Error);
    expect(err.responseCode).toBe(550);
    expect(err.response).toBe("550 5.7.1 mailbox disabled for testing");
    expect(await count(inbox.id)).toBe(0);
  });

  test("a message that starts with an enhanced status code keeps it; the default text names inboxd chaos", async () => {
    const custom = await chaosInbox([{ stage: "rcpt", code: 550, message: "5.1.1 user unknown" }]);
    const plain = await chaosInbox([{ stage: "rcpt", code: 450 }]);
    const { rcptReplies } = await transaction([custom.address, plain.address], { data: false });
    expect(rcptReplies[0]).toBe("550 5.1.1 user unknown\r\n");
    expect(rcptReplies[1]).toBe(`450 4.3.0 <${plain.address}>: temporary failure injected by inboxd chaos\r\n`);
  });

  test("data 451 is a temporary failure at the end of DATA; nothing is stored", async () => {
    const inbox = await chaosInbox([{ stage: "data", code: 451 }]);
    const { rcptReplies, dataReply } = await transaction([inbox.address]);
    expect(code(rcptReplies[0]!)).toBe(250);
    expect(dataReply).toBe(`451 4.3.0 message temporary failure injected by inboxd chaos for <${inbox.address}>\r\n`);
    const err = await sendRaw(inst, inbox.address, simpleMail(inbox.address)).catch((e) => e);
    expect(err.responseCode).toBe(451);
    expect(await count(inbox.id)).toBe(0);
  });

  test("rules of a stage are tried in order: the first that fires wins; rate 0 never fires (mail stored)", async () => {
    const inbox = await chaosInbox([
      { stage: "rcpt", code: 550, rate: 0 },
      { stage: "data", code: 554, rate: 0 },
      { stage: "data", code: 452, message: "4.2.2 try later" },
      { stage: "data", code: 553 },
    ]);
    const { rcptReplies, dataReply } = await transaction([inbox.address]);
    expect(code(rcptReplies[0]!)).toBe(250);
    expect(dataReply).toBe("452 4.2.2 try later\r\n");
    await put(inbox.id, [
      { stage: "rcpt", code: 550, rate: 0 },
      { stage: "data", code: 451, rate: 0 },
    ]);
    for (let i = 0; i < 5; i++) await sendRaw(inst, inbox.address, simpleMail(inbox.address, `pass ${i}`));
    expect(await count(inbox.id)).toBe(5);
  });

  test("rate 0.5 over 200 RCPTs fires a plausible fraction", async () => {
    const inbox = await chaosInbox([{ stage: "rcpt", code: 450, rate: 0.5 }]);
    const { dialog } = await SmtpDialog.open(inst.ports.smtp!);
    let refused = 0;
    try {
      await dialog.cmd("EHLO client.test");
      for (let i = 0; i < 200; i++) {
        expect(code(await dialog.cmd("MAIL FROM:<app@example.com>"))).toBe(250);
        const c = code(await dialog.cmd(`RCPT TO:<${inbox.address}>`));
        expect([250, 450]).toContain(c);
        if (c === 450) refused++;
        expect(code(await dialog.cmd("RSET"))).toBe(250);
      }
    } finally {
      dialog.close();
    }
    // Binomial(200, 0.5): outside 60..140 has a probability below 1e-8.
    expect(refused / 200).toBeGreaterThan(0.3);
    expect(refused / 200).toBeLessThan(0.7);
  });

  test("delay_ms delays the injected reply (a lower bound), at RCPT and at DATA", async () => {
    const inbox = await chaosInbox([
      { stage: "rcpt", code: 451, delay_ms: 400, rate: 0 },
      { stage: "data", code: 451, delay_ms: 700 },
    ]);
    const { dialog } = await SmtpDialog.open(inst.ports.smtp!);
    try {
      await dialog.cmd("EHLO client.test");
      await dialog.cmd("MAIL FROM:<app@example.com>");
      expect(code(await dialog.cmd(`RCPT TO:<${inbox.address}>`))).toBe(250);
      expect(code(await dialog.cmd("DATA"))).toBe(354);
      const t0 = performance.now();
      const reply = await dialog.cmd(`${simpleMail(inbox.address)}.`);
      const took = performance.now() - t0;
      expect(code(reply)).toBe(451);
      expect(took).toBeGreaterThanOrEqual(700 - 2); // timer rounding
    } finally {
      dialog.close();
    }
    await put(inbox.id, [{ stage: "rcpt", code: 550, delay_ms: 500 }]);
    const { dialog: d2 } = await SmtpDialog.open(inst.ports.smtp!);
    try {
      await d2.cmd("EHLO client.test");
      await d2.cmd("MAIL FROM:<app@example.com>");
      const t0 = performance.now();
      const reply = await d2.cmd(`RCPT TO:<${inbox.address}>`);
      expect(code(reply)).toBe(550);
      expect(performance.now() - t0).toBeGreaterThanOrEqual(500 - 2);
    } finally {
      d2.close();
    }
    expect(await count(inbox.id)).toBe(0);
  });

  test("clearing restores delivery", async () => {
    const inbox = await chaosInbox([{ stage: "rcpt", code: 550 }]);
    expect((await sendRaw(inst, inbox.address, simpleMail(inbox.address)).catch((e) => e)).responseCode).toBe(550);
    expect((await clear(inbox.id)).status).toBe(204);
    const info = await sendRaw(inst, inbox.address, simpleMail(inbox.address, "after clear"));
    expect(info.accepted).toEqual([inbox.address]);
    expect(await count(inbox.id)).toBe(1);
  });

  test("a replaced rule applies to the very next RCPT (rules are kept in memory and dropped on change)", async () => {
    const inbox = await chaosInbox([{ stage: "rcpt", code: 550, message: "first rule" }]);
    for (let i = 0; i < 2; i++) expect((await transaction([inbox.address])).rcptReplies[0]).toStartWith("550 5.7.1 first rule");
    expect((await put(inbox.id, [{ stage: "rcpt", code: 451, message: "second rule" }])).status).toBe(200);
    expect((await transaction([inbox.address])).rcptReplies[0]).toStartWith("451 4.3.0 second rule");
    expect((await put(inbox.id, [])).status).toBe(200);
    expect(code((await transaction([inbox.address])).dataReply!)).toBe(250);
    expect(await count(inbox.id)).toBe(1);
  });

  test("two recipients, one with an rcpt rule: only that RCPT is refused, the other inbox gets the message", async () => {
    const refused = await chaosInbox([{ stage: "rcpt", code: 550, message: "no thanks" }]);
    const other = await createInbox(inst);
    const info = await sendRaw(inst, [refused.address, other.address], simpleMail(`${refused.address}, ${other.address}`));
    expect(info.accepted).toEqual([other.address]);
    expect(info.rejected).toEqual([refused.address]);
    expect(await count(other.id)).toBe(1);
    expect(await count(refused.id)).toBe(0);
    const msg = (await json(inst.api(`/v1/inboxes/${other.id}/messages`))).body.data[0];
    const full = (await json(inst.api(`/v1/messages/${msg.id}`))).body.data;
    expect(full.envelope.rcpt_to).toEqual([other.address]);
  });

  test("two recipients, one with a data rule that fires: the whole DATA gets the reply, nothing stored for anyone", async () => {
    const failing = await chaosInbox([{ stage: "data", code: 554, message: "5.6.0 content rejected" }]);
    const other = await createInbox(inst);
    const { rcptReplies, dataReply } = await transaction([other.address, failing.address]);
    expect(rcptReplies.map(code)).toEqual([250, 250]);
    expect(dataReply).toBe("554 5.6.0 content rejected\r\n");
    expect(await count(other.id)).toBe(0);
    expect(await count(failing.id)).toBe(0);
  });
});
