// Issue 14 with swaks, the SMTP test tool QA teams script by hand: capture of an address no inbox
// has, plus-addressing, STARTTLS, PIPELINING, AUTH (accept-any by default) and a chaos rule, each
// seen from swaks' side (its exit code and the transcript) and from the REST side. swaks is a
// Debian package that .ci/run installs; where it is missing the tests say so and skip (components.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, type Instance } from "../../support/harness";
import { createInbox, nextMessage } from "../../support/mail";
import { needs } from "../../support/components";

const SWAKS = needs("swaks", Bun.which("swaks") !== null, "apt-get install swaks");

let inst: Instance;
beforeAll(async () => {
  if (SWAKS) inst = await startInboxd();
});
afterAll(async () => {
  if (!inst) return;
  await inst.stop();
  inst.cleanup();
});

/** Runs swaks against the instance's SMTP port; its exit code and whole transcript. */
async function swaks(args: string[]): Promise<{ code: number; out: string }> {
  const p = Bun.spawn(["swaks", "--server", "127.0.0.1", "--port", String(inst.ports.smtp), "--timeout", "20", ...args], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code: await p.exited, out: out + err };
}

async function catchAll() {
  const r = await json(inst.api("/v1/inboxes?type=catch_all"));
  expect(r.status).toBe(200);
  return r.body.data[0] as { id: string };
}

/** The inbox's message whose subject is `subject` (full view), read through the search. */
async function bySubject(inboxId: string, subject: string) {
  const r = await json(inst.api(`/v1/inboxes/${inboxId}/messages?q=${encodeURIComponent(`subject:"${subject}"`)}`));
  expect(r.status).toBe(200);
  expect(r.body.data).toHaveLength(1);
  return (await json(inst.api(`/v1/messages/${r.body.data[0].id}`))).body.data;
}

describe.skipIf(!SWAKS)("swaks against inboxd's SMTP", () => {
  test("an address no inbox has is caught by the catch-all inbox, with its envelope", async () => {
    const sink = await catchAll();
    const subject = `swaks capture ${crypto.randomUUID()}`;
    const r = await swaks(["--from", "app@shop.example", "--to", "nobody.here@users.example", "--header", `Subject: ${subject}`]);
    expect(r.out).toMatch(/<- {2}250 2\.0\.0 stored [0-9A-Z]{26}/);
    expect(r.code).toBe(0);
    const m = await bySubject(sink.id, subject);
    expect(m.envelope).toEqual({ mail_from: "app@shop.example", rcpt_to: ["nobody.here@users.example"] });
  });

  test("box+tag@domain lands in box@domain; the tag stays in the envelope and is searchable", async () => {
    const inbox = await createInbox(inst);
    const [local, domain] = inbox.address.split("@");
    const tagged = `${local}+signup-42@${domain}`;
    const r = await swaks(["--from", "app@shop.example", "--to", tagged, "--header", "Subject: swaks plus"]);
    expect(r.code).toBe(0);
    const m = await nextMessage(inst, inbox.id);
    expect(m.subject).toBe("swaks plus");
    expect(m.envelope.rcpt_to).toEqual([tagged]);
    const found = await json(inst.api(`/v1/inboxes/${inbox.id}/messages?q=${encodeURIComponent("to:signup-42")}`));
    expect(found.body.data.map((x: { id: string }) => x.id)).toEqual([m.id]);
  });

  test("STARTTLS, then AUTH PLAIN with any credentials (the default), then the message", async () => {
    const inbox = await createInbox(inst);
    const r = await swaks([
      "--from",
      "app@shop.example",
      "--to",
      inbox.address,
      "--tls",
      "--auth",
      "PLAIN",
      "--auth-user",
      "whoever",
      "--auth-password",
      "anything",
      "--header",
      "Subject: swaks over tls",
    ]);
    expect(r.out).toContain("<-  220 2.0.0 Ready to start TLS");
    expect(r.out).toMatch(/TLS started with cipher/);
    expect(r.out).toMatch(/<~ {2}235 /);
    expect(r.code).toBe(0);
    expect((await nextMessage(inst, inbox.id)).subject).toBe("swaks over tls");
  });

  test("PIPELINING: MAIL, RCPT and DATA go in one write and get their three replies", async () => {
    const a = await createInbox(inst);
    const b = await createInbox(inst);
    const r = await swaks([
      "--pipeline",
      "--from",
      "app@shop.example",
      "--to",
      `${a.address},${b.address}`,
      "--header",
      "Subject: swaks pipelined",
    ]);
    expect(r.out).toContain("250-PIPELINING");
    // swaks writes the whole group before reading: its three commands come before their replies.
    const lines = r.out.split("\n").map((l) => l.trim());
    const mail = lines.findIndex((l) => l.startsWith("-> MAIL FROM:"));
    expect(lines.slice(mail, mail + 7)).toEqual([
      "-> MAIL FROM:<app@shop.example>",
      `-> RCPT TO:<${a.address}>`,
      `-> RCPT TO:<${b.address}>`,
      "-> DATA",
      "<-  250 2.1.0 Accepted",
      "<-  250 2.1.5 Accepted",
      "<-  250 2.1.5 Accepted",
    ]);
    expect(r.code).toBe(0);
    expect((await nextMessage(inst, a.id)).subject).toBe("swaks pipelined");
    expect((await nextMessage(inst, b.id)).subject).toBe("swaks pipelined");
  });

  test("a chaos rule at RCPT refuses the inbox with its code; swaks sees it and nothing is stored", async () => {
    const inbox = await createInbox(inst);
    const put = await json(inst.api(`/v1/inboxes/${inbox.id}/chaos`, { method: "PUT", json: { rules: [{ stage: "rcpt", code: 452 }] } }));
    expect(put.status).toBe(200);
    const r = await swaks(["--from", "app@shop.example", "--to", inbox.address, "--header", "Subject: swaks refused"]);
    expect(r.out).toContain(`<** 452 4.3.0 <${inbox.address}>: temporary failure injected by inboxd chaos`);
    expect(r.code).not.toBe(0);
    const list = await json(inst.api(`/v1/inboxes/${inbox.id}/messages`));
    expect(list.body.data).toEqual([]);
  });
});
