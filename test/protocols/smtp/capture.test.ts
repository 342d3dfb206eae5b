// Capture of any recipient (API.md): an app under test sends to whatever its users typed, and the
// mail is caught. Routing order: exact inbox, the inbox without the +tag, a custom domain's
// catch-all (test/domains), the instance's catch-all inbox, else 550 (INBOXD_CATCH_ALL=off).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, type Instance } from "../../support/harness";
import { createInbox, nextMessage, sendRaw, SmtpDialog } from "../../support/mail";
import { Receiver, registerWebhook } from "../../support/webhook-receiver";

let inst: Instance;

beforeAll(async () => {
  inst = await startInboxd();
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

async function catchAllInbox(i: Instance) {
  const r = await json(i.api("/v1/inboxes?type=catch_all"));
  expect(r.status).toBe(200);
  expect(r.body.data).toHaveLength(1);
  return r.body.data[0];
}

describe("capture of any recipient", () => {
  test("the bootstrap project has one catch-all inbox: persistent, no expiry, listed by type", async () => {
    const c = await catchAllInbox(inst);
    expect(c).toMatchObject({ type: "catch_all", expires_at: null, name: "Catch-all" });
    expect(c.address).toMatch(/^catch-all@/);
    const disposable = await createInbox(inst);
    const only = await json(inst.api("/v1/inboxes?type=disposable"));
    expect(only.body.data.map((i: any) => i.id)).toContain(disposable.id);
    expect(only.body.data.map((i: any) => i.id)).not.toContain(c.id);
    const bad = await json(inst.api("/v1/inboxes?type=nope"));
    expect(bad.status).toBe(422);
  });

  test("mail to an address no inbox has lands in the catch-all inbox; the envelope tells which address", async () => {
    const c = await catchAllInbox(inst);
    const before = c.message_count;
    await sendRaw(inst, "someone.the.user.typed@anything.example", "Subject: welcome\r\n\r\nhello\r\n", "app@example.com");
    const m = await nextMessage(inst, c.id);
    expect(m.subject).toBe("welcome");
    expect(m.envelope).toEqual({ mail_from: "app@example.com", rcpt_to: ["someone.the.user.typed@anything.example"] });
    expect((await catchAllInbox(inst)).message_count).toBe(before + 1);
  });

  test("the envelope keeps a recipient's case as sent; the same address in another case is listed once; to: finds it in any case", async () => {
    const c = await catchAllInbox(inst);
    const run = crypto.randomUUID().slice(0, 8);
    const sent = `Someone.Else-${run}@Other.Example`;
    // A raw dialogue: nodemailer would lower-case the domain before sending it.
    const dialogue = async (rcpts: string[], subject: string) => {
      const { dialog } = await SmtpDialog.open(inst.ports.smtp);
      expect(await dialog.cmd("EHLO client.test")).toStartWith("250");
      expect(await dialog.cmd("MAIL FROM:<app@example.com>")).toStartWith("250");
      for (const r of rcpts) expect(await dialog.cmd(`RCPT TO:<${r}>`)).toStartWith("250");
      expect(await dialog.cmd("DATA")).toStartWith("354");
      expect(await dialog.cmd(`Subject: ${subject}\r\n\r\nx\r\n.`)).toStartWith("250");
      await dialog.cmd("QUIT");
      dialog.close();
    };
    await dialogue([sent, sent.toLowerCase()], `case ${run}`);
    const m = await nextMessage(inst, c.id);
    expect(m.subject).toBe(`case ${run}`);
    expect(m.envelope.rcpt_to).toEqual([sent]);
    for (const q of [`to:${sent}`, `to:${sent.toUpperCase()}`]) {
      const found = await json(inst.api(`/v1/inboxes/${c.id}/messages?q=${encodeURIComponent(q)}`));
      expect([q, found.body.data.map((x: any) => x.id)]).toEqual([q, [m.id]]);
    }
    // An inbox's own address in another case still reaches that inbox, and is recorded as sent.
    const box = await createInbox(inst);
    const upper = box.address.toUpperCase();
    await dialogue([upper], "upper");
    expect((await nextMessage(inst, box.id)).envelope.rcpt_to).toEqual([upper]);
  });

  test("plus-addressing: box+tag@domain goes to box@domain, and the envelope keeps the tag", async () => {
    const box = await createInbox(inst);
    const [local, domain] = box.address.split("@");
    const tagged = `${local}+signup-42@${domain}`;
    await sendRaw(inst, tagged, "Subject: tagged\r\n\r\nx\r\n");
    const m = await nextMessage(inst, box.id);
    expect(m.subject).toBe("tagged");
    expect(m.envelope.rcpt_to).toEqual([tagged]);
    // An exact inbox with the tagged address wins over the untagged one.
    const exact = await createInbox(inst, { local_part: `${local}+exact` });
    await sendRaw(inst, exact.address, "Subject: exact\r\n\r\nx\r\n");
    expect((await nextMessage(inst, exact.id)).subject).toBe("exact");
  });

  test("several addresses of one inbox in one transaction: one message whose envelope lists them all, found by each", async () => {
    const c = await catchAllInbox(inst);
    const box = await createInbox(inst);
    const [local, domain] = box.address.split("@");
    const rx = await Receiver.start();
    try {
      await registerWebhook(inst, { url: rx.url("/hook"), inbox_id: c.id });
      const run = crypto.randomUUID().slice(0, 8);
      const [to, bcc] = [`to-${run}@first.example`, `bcc-${run}@second.example`];
      // To and Bcc caught by the catch-all, two tags of one inbox, one address twice.
      const info = await sendRaw(
        inst,
        [to, `${local}+a@${domain}`, bcc, `${local}+b@${domain}`, to],
        `To: ${to}\r\nSubject: many ${run}\r\n\r\nx\r\n`,
      );
      expect(/stored (\S+)/.exec(info.response)![1]!.split(",")).toHaveLength(2);
      const caught = await nextMessage(inst, c.id);
      expect(caught.subject).toBe(`many ${run}`);
      expect(caught.envelope.rcpt_to).toEqual([to, bcc]);
      const tagged = await nextMessage(inst, box.id);
      expect(tagged.envelope.rcpt_to).toEqual([`${local}+a@${domain}`, `${local}+b@${domain}`]);
      // The Bcc address is in no header: the envelope is how a test finds that mail.
      for (const q of [`to:${to}`, `to:${bcc}`]) {
        const found = await json(inst.api(`/v1/inboxes/${c.id}/messages?q=${encodeURIComponent(q)}`));
        expect([q, found.body.data.map((m: any) => m.id)]).toEqual([q, [caught.id]]);
      }
      const [hook] = await rx.waitFor((g) => (g.length > 0 ? g : null));
      expect(hook!.json.data.envelope).toEqual({ from: "sender@example.com", to, rcpt_to: [to, bcc] });
    } finally {
      rx.stop();
    }
  });

  test('a quoted local part that needs no quotes ("box"@domain) reaches box@domain, as with Postfix', async () => {
    const box = await createInbox(inst);
    const [local, domain] = box.address.split("@");
    const { dialog } = await SmtpDialog.open(inst.ports.smtp);
    expect(await dialog.cmd("EHLO client.test")).toStartWith("250");
    expect(await dialog.cmd('MAIL FROM:<"app"@example.com>')).toStartWith("250");
    expect(await dialog.cmd(`RCPT TO:<"${local}+q"@${domain}>`)).toStartWith("250");
    expect(await dialog.cmd("DATA")).toStartWith("354");
    expect(await dialog.cmd("Subject: quoted\r\n\r\nx\r\n.")).toStartWith("250");
    await dialog.cmd("QUIT");
    dialog.close();
    const m = await nextMessage(inst, box.id);
    expect(m.subject).toBe("quoted");
    expect(m.envelope).toEqual({ mail_from: "app@example.com", rcpt_to: [`${local}+q@${domain}`] });
  });

  test("the catch-all inbox cannot be deleted (409) and does not count toward the plan's inboxes", async () => {
    const c = await catchAllInbox(inst);
    const del = await json(inst.api(`/v1/inboxes/${c.id}`, { method: "DELETE" }));
    expect(del.status).toBe(409);
    expect(del.body.code).toBe("catch_all_inbox");
    const ttl = await json(inst.api(`/v1/inboxes/${c.id}`, { method: "PATCH", json: { ttl_seconds: 60 } }));
    expect(ttl.status).toBe(422);
    const usage = (await json(inst.api("/v1/usage"))).body.data.usage.concurrent_inboxes;
    const all = (await json(inst.api("/v1/inboxes?limit=100"))).body.data.length;
    expect(usage).toBe(all - 1);
  });

  test("a restart keeps the one catch-all inbox and its mail", async () => {
    const c = await catchAllInbox(inst);
    await inst.stop();
    inst = await inst.restart();
    const again = await catchAllInbox(inst);
    expect(again.id).toBe(c.id);
    expect(again.message_count).toBe(c.message_count);
  });
});

describe("INBOXD_CATCH_ALL=off", () => {
  test("mail to an unknown address is refused with 550 5.1.1; plus-addressing still routes", async () => {
    const off = await startInboxd({ INBOXD_CATCH_ALL: "off" });
    try {
      const none = await json(off.api("/v1/inboxes?type=catch_all"));
      expect(none.body.data).toHaveLength(0);
      const err = await sendRaw(off, "nobody@anything.example", "Subject: lost\r\n\r\nx\r\n").catch((e) => e);
      expect(err.responseCode).toBe(550);
      expect(String(err.response)).toMatch(/^550 5\.1\.1/);
      const box = await createInbox(off);
      const [local, domain] = box.address.split("@");
      await sendRaw(off, `${local}+t@${domain}`, "Subject: still routed\r\n\r\nx\r\n");
      expect((await nextMessage(off, box.id)).subject).toBe("still routed");
    } finally {
      await off.stop();
      off.cleanup();
    }
  });
});
