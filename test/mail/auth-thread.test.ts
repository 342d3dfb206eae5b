// The check thread (src/mail/auth-thread.ts, auth-worker.ts): mailauth run in a worker gives the
// same findings as on the event loop, against a real DNS server (test/support/dns-server.ts) and a
// message nodemailer signed; a check the thread held when it stopped is handed back (ThreadGone),
// so the service checks it on the event loop instead of losing it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import dgram from "node:dgram";
import nodemailer from "nodemailer";
import { CachedDnsLookup } from "../../src/lib/dns";
import { type CheckEnvelope, findings } from "../../src/mail/auth-summary";
import { AuthCheckThread, ThreadGone } from "../../src/mail/auth-thread";
import { startTestDns, type TestDns } from "../support/dns-server";

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const SIGNING = {
  domainName: "good.test",
  keySelector: "mail",
  privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
};
const ENV: CheckEnvelope = { ip: "127.0.0.1", helo: "client.good.test", sender: "orders@good.test", mta: "inboxd.test" };

let dns: TestDns;
let signed: Uint8Array;

beforeAll(async () => {
  dns = await startTestDns();
  dns.set("good.test", { type: "TXT", value: "v=spf1 ip4:127.0.0.1 -all" });
  dns.set("mail._domainkey.good.test", {
    type: "TXT",
    value: `v=DKIM1; k=rsa; p=${publicKey.export({ type: "spki", format: "der" }).toString("base64")}`,
  });
  dns.set("_dmarc.good.test", { type: "TXT", value: "v=DMARC1; p=reject" });
  const signer = nodemailer.createTransport({ streamTransport: true, buffer: true, dkim: SIGNING } as any);
  const msg = { from: "Shop <orders@good.test>", to: "buyer@example.test", subject: "Your order", text: "Order 4812 has shipped." };
  signed = new Uint8Array((await signer.sendMail(msg)).message as Buffer);
});

afterAll(async () => {
  await dns?.close();
});

test("the thread's findings are the event loop's: SPF, DKIM and DMARC pass for a signed mail from an allowed client", async () => {
  const servers = [`127.0.0.1:${dns.port}`];
  const thread = new AuthCheckThread({ dnsServers: servers, dnsTimeoutMs: 1500 });
  try {
    const fromThread = await thread.run(signed, ENV);
    const onLoop = await findings(signed, ENV, new CachedDnsLookup(servers, 1500));
    expect(fromThread).not.toBeNull();
    expect(fromThread!.verdict).toBe("pass");
    expect(fromThread!.dkim).toEqual([expect.objectContaining({ domain: "good.test", selector: "mail", result: "pass", aligned: true })]);
    expect(fromThread!.spf).toMatchObject({ result: "pass", domain: "good.test" });
    expect(fromThread).toEqual(onLoop);
  } finally {
    thread.stop();
  }
}, 30_000);

test("a check the thread holds when it stops rejects with ThreadGone, and a stopped thread takes no more", async () => {
  // A DNS server that never answers: the check waits in the thread until it is stopped.
  const silent = dgram.createSocket("udp4");
  await new Promise<void>((r) => silent.bind(0, "127.0.0.1", r));
  const thread = new AuthCheckThread({ dnsServers: [`127.0.0.1:${silent.address().port}`], dnsTimeoutMs: 10_000 });
  try {
    const pending = thread.run(signed, ENV);
    expect(pending).not.toBeNull();
    const outcome = pending!.then(
      () => "answered",
      (e) => e,
    );
    await Bun.sleep(100); // the job is in the thread, waiting on DNS
    thread.stop();
    expect(await outcome).toBeInstanceOf(ThreadGone);
    expect(thread.run(signed, ENV)).toBeNull();
  } finally {
    thread.stop();
    silent.close();
  }
}, 30_000);
