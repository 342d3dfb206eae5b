// The PROXY protocol on the mail listeners (INBOXD_PROXY_PROTOCOL_FROM, src/protocols/proxy/):
// the parser on bytes, then a real inboxd trusting 127.0.0.1 as its balancer, driven with raw
// sockets that send v1 and v2 headers. 127.0.0.2 (Linux routes all of 127/8 to lo) is a client
// that is not a balancer. What the server believes is read back from what it does with the
// address: the SPF verdict and `client_ip` of the auth analysis (against a test DNS server that
// allows only the proxied address), and the per-address IMAP pre-auth cap.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import tls from "node:tls";
import { parseProxyHeader, V2_SIGNATURE } from "../../src/protocols/proxy/header";
import { startTestDns, type TestDns } from "../support/dns-server";
import { json, startInboxd, type Instance } from "../support/harness";
import { type Box, newBox, RawImap } from "../support/imap";
import { code, createInbox, SmtpDialog, storedId } from "../support/mail";

const v1 = (src: string, sport = 40000) => Buffer.from(`PROXY TCP4 ${src} 192.0.2.10 ${sport} 25\r\n`);

function v2(src: number[] | null, opts: { command?: number; family?: number; tlv?: Buffer } = {}): Buffer {
  const command = opts.command ?? 1;
  const family = opts.family ?? (src && src.length === 16 ? 0x21 : 0x11);
  let addr = Buffer.alloc(0);
  if (src && src.length === 4) {
    addr = Buffer.alloc(12);
    Buffer.from(src).copy(addr, 0);
    Buffer.from([192, 0, 2, 10]).copy(addr, 4);
    addr.writeUInt16BE(40001, 8);
    addr.writeUInt16BE(993, 10);
  } else if (src) {
    addr = Buffer.alloc(36);
    Buffer.from(src).copy(addr, 0);
    addr.writeUInt16BE(40002, 32);
    addr.writeUInt16BE(993, 34);
  }
  const body = Buffer.concat([addr, opts.tlv ?? Buffer.alloc(0)]);
  const head = Buffer.from([0x20 | command, family, 0, 0]);
  head.writeUInt16BE(body.length, 2);
  return Buffer.concat([V2_SIGNATURE, head, body]);
}

describe("the PROXY header parser", () => {
  test("v1 TCP4, TCP6 and UNKNOWN", () => {
    expect(parseProxyHeader(v1("203.0.113.7"))).toEqual({
      status: "done",
      version: 1,
      length: v1("203.0.113.7").length,
      source: { address: "203.0.113.7", port: 40000 },
    });
    const six = Buffer.from("PROXY TCP6 2001:db8::7 2001:db8::1 5000 143\r\nA1 NOOP\r\n");
    const r = parseProxyHeader(six);
    expect(r).toMatchObject({ status: "done", source: { address: "2001:db8::7", port: 5000 } });
    // The bytes after the header are the protocol's, not the header's.
    if (r.status === "done") expect(six.subarray(r.length).toString()).toBe("A1 NOOP\r\n");
    expect(parseProxyHeader(Buffer.from("PROXY UNKNOWN\r\n"))).toMatchObject({ status: "done", source: null });
    expect(parseProxyHeader(Buffer.from("PROXY UNKNOWN ffff::1 ffff::2 1 2\r\n"))).toMatchObject({ status: "done", source: null });
  });

  test("v2 PROXY over IPv4 and IPv6 (TLVs skipped), LOCAL and UNSPEC name no client", () => {
    const four = v2([198, 51, 100, 9], { tlv: Buffer.from([0x01, 0x00, 0x02, 0x68, 0x32]) });
    expect(parseProxyHeader(four)).toEqual({
      status: "done",
      version: 2,
      length: four.length,
      source: { address: "198.51.100.9", port: 40001 },
    });
    const ip6 = [0x20, 0x01, 0x0d, 0xb8, ...Array(11).fill(0), 0x09];
    expect(parseProxyHeader(v2(ip6))).toMatchObject({ status: "done", source: { address: "2001:db8::9", port: 40002 } });
    expect(parseProxyHeader(v2([198, 51, 100, 9], { command: 0 }))).toMatchObject({ status: "done", source: null });
    expect(parseProxyHeader(v2(null, { family: 0x00 }))).toMatchObject({ status: "done", source: null });
  });

  test("a header cut anywhere asks for more bytes", () => {
    for (const h of [v1("203.0.113.7"), v2([198, 51, 100, 9])])
      for (let i = 0; i < h.length; i++) expect(parseProxyHeader(h.subarray(0, i)).status).toBe("more");
  });

  test("malformed headers are invalid", () => {
    const bad = [
      "EHLO client.example\r\n",
      "PROXY TCP4 203.0.113.7 192.0.2.10 40000\r\n",
      "PROXY TCP4 2001:db8::1 192.0.2.10 1 2\r\n",
      "PROXY TCP4 203.0.113.7 192.0.2.10 70000 25\r\n",
      "PROXY TCP4 203.0.113.777 192.0.2.10 1 25\r\n",
      "PROXY UDP4 203.0.113.7 192.0.2.10 1 25\r\n",
      `PROXY TCP4 ${"1".repeat(120)}`,
    ];
    for (const b of bad) expect(parseProxyHeader(Buffer.from(b)).status).toBe("invalid");
    const wrongVersion = v2([1, 2, 3, 4]);
    wrongVersion[12] = 0x11;
    expect(parseProxyHeader(wrongVersion).status).toBe("invalid");
    const shortBlock = v2([1, 2, 3, 4]).subarray(0, 20);
    shortBlock.writeUInt16BE(4, 14);
    expect(parseProxyHeader(shortBlock).status).toBe("invalid");
  });
});

describe("mail listeners behind a balancer (INBOXD_PROXY_PROTOCOL_FROM=127.0.0.1)", () => {
  let dns: TestDns;
  let inst: Instance;
  let inbox: { id: string; address: string };
  let box: Box;

  beforeAll(async () => {
    dns = await startTestDns();
    // Only the proxied client may send for proxied.test: an SPF pass proves the address was believed.
    dns.set("proxied.test", { type: "TXT", value: "v=spf1 ip4:203.0.113.7 -all" });
    inst = await startInboxd({
      INBOXD_DNS_SERVERS: `127.0.0.1:${dns.port}`,
      INBOXD_PROXY_PROTOCOL_FROM: "127.0.0.1/32, 10.0.0.0/8",
      INBOXD_POP3_PLAIN_PORT: "0",
      INBOXD_IMAP_PREAUTH_PER_ADDRESS: "2",
    });
    inbox = await createInbox(inst, { name: "proxied" });
    box = await newBox(inst);
  }, 60_000);

  afterAll(async () => {
    await inst?.stop();
    inst?.cleanup();
    await dns?.close();
  });

  async function mailThrough(d: SmtpDialog, subject: string): Promise<string> {
    expect(code(await d.cmd("EHLO client.proxied.test"))).toBe(250);
    expect(code(await d.cmd("MAIL FROM:<news@proxied.test>"))).toBe(250);
    expect(code(await d.cmd(`RCPT TO:<${inbox.address}>`))).toBe(250);
    expect(code(await d.cmd("DATA"))).toBe(354);
    const done = await d.cmd(`From: news@proxied.test\r\nTo: ${inbox.address}\r\nSubject: ${subject}\r\n\r\nhello\r\n.`);
    expect(code(done)).toBe(250);
    d.close();
    return storedId(done);
  }

  const auth = async (id: string) => (await json(inst.api(`/v1/messages/${id}/analysis/auth`))).body.data;

  test("SMTP after a v1 header: the message's client is the proxied address (SPF passes for it)", async () => {
    const { dialog, greeting } = await SmtpDialog.open(inst.ports.smtp!, "127.0.0.1", v1("203.0.113.7"));
    expect(code(greeting)).toBe(220);
    const a = await auth(await mailThrough(dialog, "via v1"));
    expect(a.client_ip).toBe("203.0.113.7");
    expect(a.spf.result).toBe("pass");
    expect(a.headers).toContain("203.0.113.7");
  });

  test("SMTP after a v2 header sent in pieces, the first command in the same packet as its end", async () => {
    const header = v2([203, 0, 113, 7]);
    const socket = net.connect({ port: inst.ports.smtp!, host: "127.0.0.1" });
    await new Promise((r) => socket.once("connect", r));
    socket.write(header.subarray(0, 5));
    await Bun.sleep(50);
    socket.end(Buffer.concat([header.subarray(5), Buffer.from("EHLO client.proxied.test\r\nQUIT\r\n")]));
    let out = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      out += d;
    });
    await new Promise((r) => socket.once("close", r));
    expect(out).toMatch(/^220 /);
    expect(out).toContain("250-");
    expect(out).toMatch(/221 [^\r]*\r\n$/);
  });

  test("a connection from a balancer without a valid header is refused with the protocol's error", async () => {
    const { dialog, greeting } = await SmtpDialog.open(inst.ports.smtp!, "127.0.0.1", Buffer.from("EHLO no-header.test\r\n"));
    expect(greeting).toMatch(/^421 4\.7\.0 .*PROXY/);
    dialog.close();
    const { dialog: d2, greeting: g2 } = await SmtpDialog.open(
      inst.ports.smtp!,
      "127.0.0.1",
      Buffer.from("PROXY TCP4 999.0.0.1 1.2.3.4 1 2\r\n"),
    );
    expect(g2).toMatch(/^421 /);
    d2.close();
  });

  test("a header from an address that is not a balancer is not believed", async () => {
    const { dialog, greeting } = await SmtpDialog.open(inst.ports.smtp!, "127.0.0.2", v1("203.0.113.7"));
    expect(code(greeting)).toBe(220);
    // The header reached SMTP as a line of its own: an unknown command, not an address.
    expect(code(await dialog.reply())).toBe(500);
    const a = await auth(await mailThrough(dialog, "spoofed"));
    expect(a.client_ip).toBe("127.0.0.2");
    expect(a.spf.result).toBe("fail");
  });

  test("IMAP over TLS after a v2 header: the handshake and log-in work", async () => {
    const imap = await RawImap.open(inst.ports.imap!, "127.0.0.1", v2([198, 51, 100, 20]));
    await imap.login(box);
    expect(await imap.cmd("A2", "SELECT INBOX")).toContain("A2 OK");
    expect(await imap.cmd("A3", "LOGOUT")).toContain("A3 OK");
    imap.close();
  });

  test("IMAP counts connections under the proxied address (the per-address pre-auth cap of 2)", async () => {
    const held = [
      await RawImap.open(inst.ports.imap!, "127.0.0.1", v2([198, 51, 100, 30])),
      await RawImap.open(inst.ports.imap!, "127.0.0.1", v2([198, 51, 100, 30])),
    ];
    for (const c of held) expect(await c.until("* OK")).toContain("* OK");
    // A third from the same client is over its cap …
    const third = await RawImap.open(inst.ports.imap!, "127.0.0.1", v2([198, 51, 100, 30]));
    expect(await third.until("* BYE")).toContain("[UNAVAILABLE]");
    // … while another client behind the same balancer is not.
    const other = await RawImap.open(inst.ports.imap!, "127.0.0.1", v1("198.51.100.31"));
    expect(await other.until("* OK")).toContain("IMAP4rev1");
    for (const c of [...held, third, other]) c.close();
  });

  test("IMAP over TLS: a malformed header is refused before any TLS; a client not behind the balancer connects as before", async () => {
    const bad = net.connect({ port: inst.ports.imap!, host: "127.0.0.1" });
    await new Promise((r) => bad.once("connect", r));
    bad.write("PROXY TCP4 nonsense\r\n");
    let got = 0;
    bad.on("data", (d: Buffer) => {
      got += d.length;
    });
    bad.on("error", () => {});
    await new Promise((r) => bad.once("close", r));
    expect(got).toBe(0);
    const direct = await RawImap.open(inst.ports.imap!, "127.0.0.2");
    await direct.login(box);
    direct.close();
  });

  test("POP3 over TLS after a v1 header, and the plain port's error for a bad one", async () => {
    const plain = net.connect({ port: inst.ports.pop3!, host: "127.0.0.1" });
    await new Promise((r) => plain.once("connect", r));
    plain.write(v1("203.0.113.40"));
    const secure = tls.connect({ socket: plain, rejectUnauthorized: false });
    const greeting = await new Promise<string>((resolve, reject) => {
      secure.once("data", (d: Buffer) => resolve(d.toString()));
      secure.once("error", reject);
    });
    expect(greeting).toMatch(/^\+OK/);
    secure.destroy();
    const pop3plain = inst.ports.pop3plain!;
    const raw = net.connect({ port: pop3plain, host: "127.0.0.1" });
    await new Promise((r) => raw.once("connect", r));
    raw.write("USER someone\r\n");
    let out = "";
    raw.on("data", (d: Buffer) => {
      out += d.toString();
    });
    await new Promise((r) => raw.once("close", r));
    expect(out).toMatch(/^-ERR \[SYS\/TEMP\] invalid PROXY/);
  });
});
