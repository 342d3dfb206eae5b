// The receipt checks read an unsigned message's header only (src/mail/auth-input.ts). What this
// holds: mailauth's findings from the header alone equal its findings from the whole message for
// unsigned mail (SPF pass and fail, DMARC, bare LF line ends, a header split across stream chunks),
// and signed mail (DKIM, ARC) is never cut short. Checked against a real DNS server started here.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { Readable } from "node:stream";
import nodemailer from "nodemailer";
import { CachedDnsLookup } from "../../src/lib/dns";
import { HEADER_SCAN_LIMIT, headerOfUnsigned, prefixOf } from "../../src/mail/auth-input";
import { type CheckEnvelope, findings } from "../../src/mail/auth-summary";
import { startTestDns, type TestDns } from "../support/dns-server";

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
let dns: TestDns;
let lookup: CachedDnsLookup;

beforeAll(async () => {
  dns = await startTestDns();
  dns.set("good.test", { type: "TXT", value: "v=spf1 ip4:127.0.0.1 -all" });
  dns.set("_dmarc.good.test", { type: "TXT", value: "v=DMARC1; p=reject" });
  dns.set("mail._domainkey.good.test", {
    type: "TXT",
    value: `v=DKIM1; k=rsa; p=${publicKey.export({ type: "spki", format: "der" }).toString("base64")}`,
  });
  lookup = new CachedDnsLookup([`127.0.0.1:${dns.port}`], 1500);
});
afterAll(() => dns.close());

const env = (ip: string): CheckEnvelope => ({ ip, helo: "client.good.test", sender: "orders@good.test", mta: "inboxd.test" });

async function compose(opts: { text: string; dkim?: boolean; arc?: boolean }): Promise<Buffer> {
  const t = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    ...(opts.dkim
      ? { dkim: { domainName: "good.test", keySelector: "mail", privateKey: privateKey.export({ type: "pkcs8", format: "pem" }) } }
      : {}),
  } as never);
  const headers = opts.arc ? { "ARC-Seal": "i=1; a=rsa-sha256; cv=none; d=good.test; s=mail; t=1; b=AAAA" } : undefined;
  const m = await t.sendMail({ from: "Shop <orders@good.test>", to: "x@inboxd.test", subject: "Order", text: opts.text, headers });
  return m.message as unknown as Buffer;
}

describe("an unsigned message is checked from its header", () => {
  test("the header ends at its blank line, CRLF or bare LF, and is a copy", () => {
    const crlf = Buffer.from("From: a@good.test\r\nSubject: x\r\n\r\nbody\r\n\r\nmore\r\n");
    const h = headerOfUnsigned(crlf)!;
    expect(Buffer.from(h).toString()).toBe("From: a@good.test\r\nSubject: x\r\n\r\n");
    expect(h.buffer).not.toBe(crlf.buffer);
    expect(Buffer.from(headerOfUnsigned(Buffer.from("From: a@good.test\nSubject: x\n\nbody\n"))!).toString()).toBe(
      "From: a@good.test\nSubject: x\n\n",
    );
    // No blank line in what was read: not known to be the whole header.
    expect(headerOfUnsigned(Buffer.from("From: a@good.test\r\nSubject: x\r\n"))).toBeNull();
    // A header field that merely mentions a signature is not one.
    expect(headerOfUnsigned(Buffer.from("Subject: about DKIM-Signature: headers\r\n\r\nb"))).not.toBeNull();
  });

  test("a DKIM-Signature or any ARC field, in any case, keeps the whole message", async () => {
    expect(headerOfUnsigned(await compose({ text: "signed", dkim: true }))).toBeNull();
    expect(headerOfUnsigned(await compose({ text: "sealed", arc: true }))).toBeNull();
    expect(headerOfUnsigned(Buffer.from("From: a@good.test\r\ndkim-signature : v=1\r\n\r\nb"))).toBeNull();
    expect(headerOfUnsigned(Buffer.from("From: a@good.test\r\nArc-Message-Signature: i=1\r\n\r\nb"))).toBeNull();
  });

  test("mailauth finds the same from the header alone as from the whole message", async () => {
    for (const text of ["Order 4812 has shipped.", "line one\nline two\n".repeat(2000)]) {
      const raw = await compose({ text });
      const header = headerOfUnsigned(raw);
      expect(header).not.toBeNull();
      expect(header!.byteLength).toBeLessThan(raw.byteLength);
      for (const ip of ["127.0.0.1", "192.0.2.7"]) {
        const whole = await findings(raw, env(ip), lookup);
        expect(await findings(header!, env(ip), lookup)).toEqual(whole);
        // The two addresses give different verdicts: the comparison is not of two empty results.
        expect(whole.spf.result).toBe(ip === "127.0.0.1" ? "pass" : "fail");
      }
    }
  });

  test("a signed message is still checked whole: its body hash verifies, and fails once the body changes", async () => {
    const raw = await compose({ text: "Order 4812 has shipped.", dkim: true });
    expect((await findings(raw, env("127.0.0.1"), lookup)).dkim[0]!.result).toBe("pass");
    const changed = Buffer.from(raw.toString().replace("4812", "4813"));
    expect((await findings(changed, env("127.0.0.1"), lookup)).dkim[0]!.result).not.toBe("pass");
  });

  test("the prefix of a stream reads until the header's end, across chunks, and no further than the limit", async () => {
    const raw = Buffer.concat([Buffer.from("From: a@good.test\r\nSubject: x\r"), Buffer.from("\n\r\nbody"), Buffer.alloc(1 << 20, 0x61)]);
    const chunks = [raw.subarray(0, 31), raw.subarray(31, 40), raw.subarray(40)];
    const stream = Readable.from(chunks);
    const head = await prefixOf(stream, HEADER_SCAN_LIMIT);
    // The two chunks that hold the blank line, not the megabyte after them.
    expect(head.byteLength).toBe(40);
    expect(stream.destroyed).toBe(true);
    expect(Buffer.from(headerOfUnsigned(head)!).toString()).toBe("From: a@good.test\r\nSubject: x\r\n\r\n");
    const noEnd = await prefixOf(
      Readable.from([Buffer.alloc(HEADER_SCAN_LIMIT / 2, 0x61), Buffer.alloc(HEADER_SCAN_LIMIT, 0x61)]),
      HEADER_SCAN_LIMIT,
    );
    expect(noEnd.byteLength).toBe(HEADER_SCAN_LIMIT * 1.5);
    expect(headerOfUnsigned(noEnd)).toBeNull();
  });
});
