// Mixed concurrent load on one instance, for what only concurrency shows (lock orders, races between
// a deletion and a check): 4 SMTP senders of multi-recipient mail (recipients in two orders) to three
// inboxes with webhooks and watches, 3 REST loops (flag PATCHes, mark-read, DELETEs) and one IMAP
// client per inbox (STORE over the whole mailbox, \Deleted and EXPUNGE). Prints what each did and
// every failure: an SMTP refusal, a 5xx, an IMAP error, and the server's ERROR lines.
//
//   bun bench/mixed-stress.ts [--seconds 20]            # SQLite
//   INBOXD_TEST_DATABASE=postgres bun bench/mixed-stress.ts  # PostgreSQL (a server of its own)
//
// It found PostgreSQL's deadlocks between those paths (answered 500/451/NO until the storage retried
// a deadlock's victim) and an SPF/DKIM record racing a deletion (docs/scaling.md, "Deadlocks").
import nodemailer from "nodemailer";
import { json, login, startInboxd } from "../test/support/harness";
import { imapflow } from "../test/support/imap";
import { createInbox } from "../test/support/mail";
import { Receiver, registerWebhook } from "../test/support/webhook-receiver";
import { arg } from "./support";

const seconds = arg("--seconds", 20);
const rx = await Receiver.start();
const inst = await startInboxd({ INBOXD_PLAN: "" });
const token = await login(inst);
const boxes: { id: string; address: string; password: string }[] = [];
for (let i = 0; i < 3; i++) {
  const ib = await createInbox(inst);
  const cr = await json(inst.api(`/v1/inboxes/${ib.id}/credentials`));
  boxes.push({ id: ib.id, address: ib.address, password: cr.body.data.password });
  await registerWebhook(inst, { url: rx.url(`/w${i}`), inbox_id: ib.id });
  await inst.api(`/v1/inboxes/${ib.id}/watch`, { method: "POST", token, json: {} });
}
await registerWebhook(inst, { url: rx.url("/all") });

const failures: string[] = [];
const done = { smtp: 0, patch: 0, markRead: 0, delete: 0, imapRounds: 0 };
const end = Date.now() + seconds * 1000;

const senders = Array.from({ length: 4 }, async (_, s) => {
  const t = nodemailer.createTransport({ host: "127.0.0.1", port: inst.ports.smtp, secure: false, tls: { rejectUnauthorized: false } });
  for (let n = 0; Date.now() < end; n++) {
    const to = (n % 2 === 0 ? [boxes[0]!, boxes[1]!, boxes[2]!] : [boxes[2]!, boxes[0]!]).map((b) => b.address);
    try {
      await t.sendMail({ from: "a@example.com", to, subject: `s${s} ${n}`, text: `code ${100000 + n}` });
      done.smtp++;
    } catch (e) {
      failures.push(`smtp: ${(e as Error).message}`);
    }
  }
  t.close();
});

const rest = boxes.map(async (b) => {
  while (Date.now() < end) {
    const list = await json(inst.api(`/v1/inboxes/${b.id}/messages?limit=50&view=summary`));
    if (list.status !== 200) failures.push(`list: ${list.status}`);
    const ids: string[] = list.status === 200 ? list.body.data.map((m: { id: string }) => m.id) : [];
    for (const id of ids.slice(0, 10)) {
      const r = await inst.api(`/v1/messages/${id}`, { method: "PATCH", json: { read: Math.random() < 0.5 } });
      if (r.status >= 500) failures.push(`PATCH: ${r.status} ${await r.text()}`);
      else done.patch++;
    }
    const mr = await inst.api(`/v1/inboxes/${b.id}/mark-read`, { method: "POST", json: {} });
    if (mr.status >= 500) failures.push(`mark-read: ${mr.status} ${await mr.text()}`);
    else done.markRead++;
    for (const id of ids.slice(-3)) {
      const r = await inst.api(`/v1/messages/${id}`, { method: "DELETE" });
      if (r.status >= 500) failures.push(`DELETE: ${r.status} ${await r.text()}`);
      else done.delete++;
    }
    if (ids.length === 0) await Bun.sleep(5);
  }
});

const imap = boxes.map(async (b) => {
  const c = imapflow(inst, b);
  try {
    await c.connect();
    while (Date.now() < end) {
      const lock = await c.getMailboxLock("INBOX");
      try {
        if (c.mailbox && c.mailbox.exists > 0) {
          await c.messageFlagsAdd("1:*", ["\\Flagged", "\\Seen"]);
          await c.messageFlagsRemove("1:*", ["\\Seen"]);
          await c.messageFlagsAdd("1:3", ["\\Deleted"]);
          await c.messageDelete("1:2");
          done.imapRounds++;
        } else {
          // Nothing seen yet: ask (imapflow learns of new mail from the server's answers).
          await c.noop();
        }
      } finally {
        lock.release();
      }
      // imapflow's lock resolves without I/O: without a pause an empty mailbox spins this process.
      await Bun.sleep(5);
    }
    await c.logout();
  } catch (e) {
    failures.push(`imap: ${(e as Error).message} ${(e as { responseText?: string }).responseText ?? ""}`);
  }
});

await Promise.all([...senders, ...rest, ...imap]);
await Bun.sleep(1000);
await inst.stop();
const errors = inst
  .output()
  .split("\n")
  .filter((l) => / (ERROR|FATAL) /.test(l));
console.log(
  `engine ${process.env.INBOXD_TEST_DATABASE ?? "sqlite"}, ${seconds} s: ${JSON.stringify(done)}, webhook requests ${rx.got.length}`,
);
console.log(`failures ${failures.length}, server ERROR lines ${errors.length}`);
for (const f of [...new Set(failures)].slice(0, 20)) console.log(`  ${f.slice(0, 300)}`);
for (const l of errors.slice(0, 20)) console.log(`  ${l.slice(0, 300)}`);
inst.cleanup();
rx.stop();
process.exit(failures.length + errors.length > 0 ? 1 : 0);
