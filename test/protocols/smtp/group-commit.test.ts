// The group commit's wait for announced deliveries (mail/ingest.ts announce): an SMTP transaction
// opened with MAIL FROM makes the next commit wait for it a little, so every way a transaction
// ends (delivered, RSET, a new MAIL, QUIT, the client vanishing mid-DATA, a refused recipient)
// must end its announcement, and a client that opens a transaction and never sends DATA must not
// hold other senders' messages back: after ANNOUNCE_FRESH_MS groups stop waiting for it. In
// process, to read the counts of announced and awaited deliveries.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startInProcess, type InProcess } from "../../support/in-process";
import { code, SmtpDialog } from "../../support/mail";

let srv: InProcess;
let address: string;
let inboxId: string;
beforeAll(async () => {
  srv = await startInProcess({ INBOXD_CATCH_ALL: "off", INBOXD_SMTP_MAX_BYTES: "100000" });
  const r = await srv.api("/v1/inboxes", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "group" }),
  });
  const inbox = (await r.json()).data;
  address = inbox.address;
  inboxId = inbox.id;
});
afterAll(async () => {
  await srv.stop();
});

const port = () => srv.server.ctx.ports.smtp!;
const announced = () => srv.server.services.ingest.announcedDeliveries;
const awaited = () => srv.server.services.ingest.awaitedDeliveries;
const stored = (reply: string) => /^250 2\.0\.0 stored ([0-9A-Z]{26})/.exec(reply)?.[1] ?? null;

async function greeted() {
  const { dialog, greeting } = await SmtpDialog.open(port());
  expect(code(greeting)).toBe(220);
  expect(code(await dialog.cmd("EHLO client.test"))).toBe(250);
  return dialog;
}

/** Waits (bounded) until the server has seen the client go: the count is read, never timed. */
async function settled(): Promise<number> {
  for (let i = 0; i < 100 && announced() !== 0; i++) await Bun.sleep(10);
  return announced();
}

test("a transaction is announced from MAIL FROM; RSET, a second MAIL and QUIT end it", async () => {
  const d = await greeted();
  try {
    expect(announced()).toBe(0);
    expect(code(await d.cmd("MAIL FROM:<a@example.com>"))).toBe(250);
    expect(announced()).toBe(1);
    expect(code(await d.cmd("RSET"))).toBe(250);
    expect(announced()).toBe(0);
    expect(code(await d.cmd("MAIL FROM:<a@example.com>"))).toBe(250);
    expect(code(await d.cmd(`RCPT TO:<${address}>`))).toBe(250);
    expect(code(await d.cmd("RCPT TO:<nobody@nowhere.test>"))).toBe(550);
    expect(announced()).toBe(1);
    expect(code(await d.cmd("QUIT"))).toBe(221);
  } finally {
    d.close();
  }
  expect(await settled()).toBe(0);
});

test("a client that vanishes mid-DATA ends its announcement, and stores nothing", async () => {
  const before = (await (await srv.api(`/v1/inboxes/${inboxId}`)).json()).data.message_count;
  const d = await greeted();
  expect(code(await d.cmd("MAIL FROM:<a@example.com>"))).toBe(250);
  expect(code(await d.cmd(`RCPT TO:<${address}>`))).toBe(250);
  expect(code(await d.cmd("DATA"))).toBe(354);
  d.write("Subject: cut\r\n\r\nhalf a message");
  await Bun.sleep(20);
  expect(announced()).toBe(1);
  d.close();
  expect(await settled()).toBe(0);
  const after = (await (await srv.api(`/v1/inboxes/${inboxId}`)).json()).data.message_count;
  expect(after).toBe(before);
});

test("a message refused for its size ends its announcement; the session goes on", async () => {
  const d = await greeted();
  try {
    expect(code(await d.cmd("MAIL FROM:<a@example.com>"))).toBe(250);
    expect(code(await d.cmd(`RCPT TO:<${address}>`))).toBe(250);
    expect(code(await d.cmd("DATA"))).toBe(354);
    expect(announced()).toBe(1);
    const big = `Subject: big\r\n\r\n${"x".repeat(998)}\r\n`.repeat(150);
    expect(code(await d.cmd(`${big}.`))).toBe(552);
    expect(announced()).toBe(0);
    expect(code(await d.cmd("NOOP"))).toBe(250);
  } finally {
    d.close();
  }
});

test("a transaction left open without DATA does not hold other senders' messages back", async () => {
  const idle = await greeted();
  try {
    expect(code(await idle.cmd("MAIL FROM:<idle@example.com>"))).toBe(250);
    expect(code(await idle.cmd(`RCPT TO:<${address}>`))).toBe(250);
    // Eight senders at once while the idle transaction stays announced: each gets its 250, and
    // each message is listed (committed) with its own UID.
    const subjects = Array.from({ length: 8 }, (_, i) => `grouped ${i} ${Date.now()}`);
    const replies = await Promise.all(
      subjects.map(async (subject) => {
        const d = await greeted();
        try {
          d.write(`MAIL FROM:<s@example.com>\r\nRCPT TO:<${address}>\r\nDATA\r\n`);
          expect(code(await d.reply())).toBe(250);
          expect(code(await d.reply())).toBe(250);
          expect(code(await d.reply())).toBe(354);
          d.write(`Subject: ${subject}\r\n\r\nbody\r\n.\r\n`);
          return await d.reply();
        } finally {
          d.close();
        }
      }),
    );
    const ids = replies.map(stored);
    expect(ids.every((id) => id !== null)).toBe(true);
    expect(announced()).toBeGreaterThanOrEqual(1);
    const listed = (await (await srv.api(`/v1/inboxes/${inboxId}/messages?limit=100`)).json()).data as Array<{
      id: string;
      subject: string;
    }>;
    for (const [i, id] of ids.entries()) expect(listed.find((m) => m.id === id)?.subject).toBe(subjects[i]!);
    // The idle transaction still delivers when it finally sends its message.
    expect(code(await idle.cmd("DATA"))).toBe(354);
    expect(stored(await idle.cmd("Subject: late\r\n\r\nbody\r\n."))).not.toBeNull();
    expect(announced()).toBe(0);
  } finally {
    idle.close();
  }
  expect(await settled()).toBe(0);
});

test("a slow transaction stays announced but stops being waited for: groups wait only for fresh ones", async () => {
  const slow = await greeted();
  try {
    expect(code(await slow.cmd("MAIL FROM:<slow@example.com>"))).toBe(250);
    expect(announced()).toBe(1);
    // The client pauses between commands. Read, never timed: poll (bounded) until the rule turns.
    for (let i = 0; i < 200 && awaited() !== 0; i++) await Bun.sleep(5);
    expect(awaited()).toBe(0);
    expect(announced()).toBe(1);
    // It still delivers when it goes on.
    expect(code(await slow.cmd(`RCPT TO:<${address}>`))).toBe(250);
    expect(code(await slow.cmd("DATA"))).toBe(354);
    expect(stored(await slow.cmd("Subject: slow\r\n\r\nbody\r\n."))).not.toBeNull();
  } finally {
    slow.close();
  }
  expect(await settled()).toBe(0);
});
