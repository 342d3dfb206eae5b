// SPF, DKIM, DMARC and ARC checked at receipt (GET /v1/messages/{id}/analysis/auth), against a real
// DNS server started here (test/support/dns-server.ts) that inboxd reaches through
// INBOXD_DNS_SERVERS. The test publishes SPF and DMARC records and a DKIM key, and nodemailer signs
// with the private half (a DKIM implementation independent of the one that verifies). Outcomes
// only, no timings.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import dgram from "node:dgram";
import nodemailer from "nodemailer";
import { json, startInboxd, type Instance } from "../support/harness";
import { createInbox, sendMail, sendRaw, storedId, transport } from "../support/mail";
import { startTestDns, type TestDns } from "../support/dns-server";
import { launch, publishScenario, standardAgent } from "../support/automation";

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const PRIVATE_PEM = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
// 392 base64 characters: the record travels as two DNS character-strings.
const SIGNING = { domainName: "good.test", keySelector: "mail", privateKey: PRIVATE_PEM };
const ADDRESS = /[^<\s]+@[^>\s]+/;
const DKIM_RECORD = `v=DKIM1; k=rsa; p=${publicKey.export({ type: "spki", format: "der" }).toString("base64")}`;

let dns: TestDns;
let inst: Instance;
let inbox: { id: string; address: string };

beforeAll(async () => {
  dns = await startTestDns();
  // good.test: the SMTP client (127.0.0.1) may send, mail is signed, DMARC rejects failures.
  dns.set("good.test", { type: "TXT", value: "v=spf1 ip4:127.0.0.1 -all" });
  dns.set("mail._domainkey.good.test", { type: "TXT", value: DKIM_RECORD });
  dns.set("_dmarc.good.test", { type: "TXT", value: "v=DMARC1; p=reject" });
  // bad.test: only 192.0.2.1 may send for it, and DMARC rejects.
  dns.set("bad.test", { type: "TXT", value: "v=spf1 ip4:192.0.2.1 -all" });
  dns.set("_dmarc.bad.test", { type: "TXT", value: "v=DMARC1; p=reject" });
  inst = await startInboxd({ INBOXD_DNS_SERVERS: `127.0.0.1:${dns.port}` });
  inbox = await createInbox(inst, { name: "auth" });
}, 60_000);

afterAll(async () => {
  await inst?.stop();
  inst?.cleanup();
  await dns?.close();
});

async function send(opts: { from: string; subject: string; text: string; sign?: boolean; mutate?: boolean }): Promise<string> {
  const t = transport(inst, {
    name: "client.good.test",
    ...(opts.sign ? { dkim: SIGNING } : {}),
  });
  try {
    const message: Record<string, unknown> = { from: opts.from, to: inbox.address, subject: opts.subject, text: opts.text };
    if (opts.mutate) {
      // Signed, then changed on the way: the body no longer matches the signature's body hash.
      const signer = nodemailer.createTransport({ streamTransport: true, buffer: true, dkim: SIGNING } as any);
      const signed = (await signer.sendMail(message)).message as Buffer;
      const changed = Buffer.from(signed.toString().replace(opts.text, `${opts.text} (altered)`));
      const info = await t.sendMail({ envelope: { from: ADDRESS.exec(opts.from)![0], to: [inbox.address] }, raw: changed });
      return storedId(info.response);
    }
    const info = await t.sendMail(message);
    return storedId(info.response);
  } finally {
    t.close();
  }
}

const auth = (id: string) => json(inst.api(`/v1/messages/${id}/analysis/auth`));

describe("SPF, DKIM and DMARC at receipt", () => {
  test("a signed mail from an allowed client passes SPF, DKIM and DMARC", async () => {
    const id = await send({ from: "Shop <orders@good.test>", subject: "Your order", text: "Order 4812 has shipped.", sign: true });
    const r = await auth(id);
    expect(r.status).toBe(200);
    const a = r.body.data;
    expect(a.spf).toMatchObject({ result: "pass", domain: "good.test" });
    expect(a.dkim).toHaveLength(1);
    expect(a.dkim[0]).toMatchObject({ domain: "good.test", selector: "mail", result: "pass", aligned: true });
    expect(a.dmarc).toMatchObject({ result: "pass", domain: "good.test", policy: "reject" });
    expect(a.verdict).toBe("pass");
    expect(a.client_ip).toBe("127.0.0.1");
    expect(a.helo).toBe("client.good.test");
    expect(a.headers).toContain("dkim=pass");
    expect(a.headers).toContain("spf=pass");
  }, 30_000);

  test("mail from a client the domain does not allow fails SPF and DMARC", async () => {
    const id = await send({ from: "Bank <alerts@bad.test>", subject: "Verify your account", text: "Click here." });
    const a = (await auth(id)).body.data;
    expect(a.spf.result).toBe("fail");
    expect(a.spf.comment).toContain("127.0.0.1");
    expect(a.dkim).toEqual([]);
    expect(a.dmarc).toMatchObject({ result: "fail", policy: "reject" });
    expect(a.verdict).toBe("fail");
  }, 30_000);

  test("a body changed after signing does not verify; DMARC still passes through aligned SPF", async () => {
    const id = await send({ from: "News <news@good.test>", subject: "Weekly news", text: "This week in news.", mutate: true });
    const a = (await auth(id)).body.data;
    expect(a.dkim).toHaveLength(1);
    // As Gmail reports it: a body hash mismatch is "neutral (body hash did not verify)".
    expect(a.dkim[0].result).not.toBe("pass");
    expect(a.dkim[0].comment).toContain("body hash");
    // SPF passes for good.test from 127.0.0.1, so DMARC still passes through SPF alignment.
    expect(a.spf.result).toBe("pass");
    expect(a.dmarc.result).toBe("pass");
  }, 30_000);

  test("a DKIM signature whose key is not published does not pass", async () => {
    dns.set("nokey.test", { type: "TXT", value: "v=spf1 ip4:127.0.0.1 -all" });
    const id = await sendMail(
      inst,
      { from: "x@nokey.test", to: inbox.address, subject: "no key", text: "hello" },
      {
        dkim: { domainName: "nokey.test", keySelector: "gone", privateKey: PRIVATE_PEM },
      },
    );
    const a = (await auth(id)).body.data;
    // As Gmail reports it: "neutral (no key for signature)".
    expect(a.dkim[0]).toMatchObject({ domain: "nokey.test", selector: "gone", result: "neutral" });
    expect(a.dkim[0].comment).toContain("no key");
    expect(a.spf.result).toBe("pass");
  }, 30_000);

  test("large mail (over 4 MB, checked from the file): signed, its whole body is hashed; unsigned, judged as small mail is", async () => {
    const big = "A line of a large order confirmation.\n".repeat(130_000);
    const signed = await send({ from: "Shop <orders@good.test>", subject: "Large signed", text: big, sign: true });
    const altered = await send({ from: "Shop <orders@good.test>", subject: "Large altered", text: big, mutate: true });
    const unsigned = await send({ from: "Bank <alerts@bad.test>", subject: "Large unsigned", text: big });
    const [s, a, u] = await Promise.all([signed, altered, unsigned].map(async (id) => (await auth(id)).body.data));
    expect(s.dkim[0]).toMatchObject({ domain: "good.test", result: "pass" });
    expect(s.verdict).toBe("pass");
    expect(a.dkim[0].result).not.toBe("pass");
    expect(a.dkim[0].comment).toContain("body hash");
    expect(u.dkim).toEqual([]);
    expect(u.spf.result).toBe("fail");
    expect(u.dmarc).toMatchObject({ result: "fail", policy: "reject" });
    expect(u.verdict).toBe("fail");
  }, 60_000);

  test("auth: searches the stored verdict, and a long-poll waiting on auth:fail wakes when the check lands", async () => {
    const box = await createInbox(inst, { name: "auth search" });
    // slow.test's DNS answers wait until released: the check is still pending after the 250,
    // so only the check landing (not the arrival) can end the wait below.
    dns.set("slow.test", { type: "TXT", value: "v=spf1 ip4:192.0.2.1 -all" });
    const release = dns.hold("slow.test");
    const waiting = json(inst.api(`/v1/inboxes/${box.id}/messages?q=${encodeURIComponent("auth:fail")}&wait=20&min=1`));
    const t = transport(inst);
    try {
      await t.sendMail({ from: "alerts@slow.test", to: box.address, subject: "bad", text: "bad" });
      await t.sendMail({ from: "orders@good.test", to: box.address, subject: "good", text: "good" });
    } finally {
      t.close();
    }
    const pending = await json(inst.api(`/v1/inboxes/${box.id}/messages?q=${encodeURIComponent("auth:pending")}`));
    expect(pending.body.data.map((m: any) => m.subject)).toContain("bad");
    release();
    const waited = await waiting;
    expect(waited.status).toBe(200);
    expect(waited.body.meta.complete).toBe(true);
    expect(waited.body.data.map((m: any) => m.subject)).toEqual(["bad"]);
    const passing = await json(inst.api(`/v1/inboxes/${box.id}/messages?q=${encodeURIComponent("auth:pass")}&wait=20&min=1`));
    expect(passing.body.data.map((m: any) => m.subject)).toEqual(["good"]);
    const notFailed = await json(inst.api(`/v1/inboxes/${box.id}/messages?q=${encodeURIComponent("-auth:fail")}`));
    expect(notFailed.body.data.map((m: any) => m.subject)).toEqual(["good"]);
    const bad = await json(inst.api(`/v1/inboxes/${box.id}/messages?q=${encodeURIComponent("auth:maybe")}`));
    expect(bad.status).toBe(422);
  }, 60_000);

  test("an imported message is judged by its own Received header", async () => {
    const raw = [
      "Received: from client.good.test (client.good.test [127.0.0.1])\r\n\tby mx.example.net with ESMTP id 1; Mon, 23 Nov 2026 10:00:00 +0000",
      "From: orders@good.test",
      "To: someone@example.net",
      "Subject: imported",
      "Date: Mon, 23 Nov 2026 10:00:00 +0000",
      "Message-ID: <imported-1@good.test>",
      "",
      "hello",
      "",
    ].join("\r\n");
    const r = await json(
      inst.api(`/v1/inboxes/${inbox.id}/messages`, { method: "POST", body: raw, headers: { "content-type": "message/rfc822" } }),
    );
    expect(r.status).toBe(201);
    const a = (await auth(r.body.data.id)).body.data;
    expect(a.client_ip).toBeNull();
    expect(a.spf).toMatchObject({ result: "pass", domain: "good.test" });
  }, 30_000);

  test("the same analysis through message.check (check: auth) and an assert on its verdict", async () => {
    const id = await send({ from: "alerts@bad.test", subject: "step", text: "step" });
    const scenarioId = await publishScenario(
      inst,
      {
        schema_version: 1,
        steps: [
          { id: "auth", type: "message.check", message: id, check: "auth" },
          { type: "assert", value: "${steps.auth.verdict}", equals: "fail" },
        ],
      },
      "auth check",
    );
    const run = (await launch(inst, { agent_id: await standardAgent(inst), scenario_id: scenarioId }, 60)).body.data;
    expect(run.status).toBe("succeeded");
    expect(run.steps[0].output.spf.result).toBe("fail");
  }, 60_000);

  test("an unknown message is 404", async () => {
    expect((await auth("01J00000000000000000000000")).status).toBe(404);
  });
});

describe("the check queue", () => {
  test("a check past INBOXD_AUTH_CHECK_TIMEOUT_MS is ended with its thread; the next message's check does not wait behind it", async () => {
    const quick = await startInboxd({ INBOXD_DNS_SERVERS: `127.0.0.1:${dns.port}`, INBOXD_AUTH_CHECK_TIMEOUT_MS: "1000" });
    try {
      const box = await createInbox(quick, { name: "stuck check" });
      // One header folded over 40,000 lines (160 KB): mailauth's reading of it is quadratic, seconds here.
      const folded = `From: orders@good.test\r\nTo: ${box.address}\r\nSubject: folded\r\nX-F: a\r\n${" b\r\n".repeat(40_000)}\r\nbody\r\n`;
      const stuck = storedId((await sendRaw(quick, box.address, folded, "orders@good.test")).response);
      const timedOut = (await json(quick.api(`/v1/messages/${stuck}/analysis/auth`))).body.data;
      expect(timedOut).toMatchObject({ verdict: "none", spf: { result: "temperror" } });
      expect(timedOut.spf.comment).toContain("took over 1 s");
      // Before: the thread went on with it, and every later check timed out behind it.
      const id = await sendMail(
        quick,
        { from: "orders@good.test", to: box.address, subject: "after", text: "x" },
        { name: "client.good.test" },
      );
      expect((await json(quick.api(`/v1/messages/${id}/analysis/auth`))).body.data).toMatchObject({
        verdict: "pass",
        spf: { result: "pass" },
      });
    } finally {
      await quick.stop();
      quick.cleanup();
    }
  }, 60_000);

  test("a header section over 256 KiB is not checked (mailauth would take minutes to days on it)", async () => {
    const box = await createInbox(inst, { name: "huge header" });
    const folded = `From: orders@good.test\r\nTo: ${box.address}\r\nSubject: folded\r\nX-F: a\r\n${" b\r\n".repeat(100_000)}\r\nbody\r\n`;
    const id = storedId((await sendRaw(inst, box.address, folded, "orders@good.test")).response);
    const a = (await auth(id)).body.data;
    expect(a).toMatchObject({ verdict: "none", spf: { result: "permerror" } });
    expect(a.spf.comment).toContain("the header section is over 256 KiB: not checked");
  });

  test("a check cut short by kill -9 is done after the restart", async () => {
    // A resolver that never answers keeps the first instance's check waiting on DNS.
    const silent = dgram.createSocket("udp4");
    await new Promise<void>((r) => silent.bind(0, "127.0.0.1", () => r()));
    const first = await startInboxd({ INBOXD_DNS_SERVERS: `127.0.0.1:${silent.address().port}` });
    let second: Instance | null = null;
    try {
      const box = await createInbox(first, { name: "queued" });
      const id = await sendMail(
        first,
        { from: "orders@good.test", to: box.address, subject: "queued", text: "x" },
        { name: "client.good.test" },
      );
      const pending = await json(first.api(`/v1/inboxes/${box.id}/messages?q=auth:pending`));
      expect(pending.body.data.map((m: any) => m.id)).toEqual([id]);
      await first.kill();
      second = await startInboxd({ INBOXD_DNS_SERVERS: `127.0.0.1:${dns.port}` }, first.dataDir);
      const checked = await json(second.api(`/v1/inboxes/${box.id}/messages?q=auth:pass&wait=20&min=1`));
      expect(checked.body.data.map((m: any) => m.id)).toEqual([id]);
      const a = (await json(second.api(`/v1/messages/${id}/analysis/auth`))).body.data;
      expect(a).toMatchObject({ verdict: "pass", client_ip: "127.0.0.1", helo: "client.good.test" });
    } finally {
      await second?.stop();
      second?.cleanup();
      first.cleanup();
      silent.close();
    }
  }, 60_000);
});

describe("with INBOXD_AUTH_CHECK=off", () => {
  test("nothing is checked: 503 analysis_unavailable naming the setting", async () => {
    const off = await startInboxd({ INBOXD_AUTH_CHECK: "off" });
    try {
      const box = await createInbox(off, { name: "off" });
      const id = await sendMail(off, { from: "orders@good.test", to: box.address, subject: "x", text: "x" });
      const r = await json(off.api(`/v1/messages/${id}/analysis/auth`));
      expect(r.status).toBe(503);
      expect(r.body.code).toBe("analysis_unavailable");
      expect(r.body.message).toContain("INBOXD_AUTH_CHECK");
    } finally {
      await off.stop();
      off.cleanup();
    }
  }, 60_000);
});
