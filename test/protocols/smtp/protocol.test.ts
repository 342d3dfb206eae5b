// Our SMTP listener as clients see it, with raw sockets (exact replies), nodemailer and Python's
// smtplib: the greeting, EHLO, pipelining, BDAT, STARTTLS, AUTH (any credentials, and
// INBOXD_SMTP_AUTH=require), SMTP smuggling shapes, limits and command order, many short
// connections, and LMTP with one reply per recipient.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { json, startInboxd, type Instance } from "../../support/harness";
import { code, createInbox, SmtpDialog, transport } from "../../support/mail";
import { needs } from "../../support/components";
import { sendThenShutWrite } from "../../support/net";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd({ INBOXD_CATCH_ALL: "off", INBOXD_SMTP_MAX_BYTES: "200000", INBOXD_LMTP_PORT: "0" });
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const rawOf = async (id: string) => Buffer.from(await (await inst.api(`/v1/messages/${id}/raw`)).arrayBuffer());
const count = async (id: string) => (await json(inst.api(`/v1/inboxes/${id}`))).body.data.message_count as number;
const storedId = (reply: string) => /^250 2\.0\.0 stored ([0-9A-Z]{26})/.exec(reply)?.[1] ?? null;

async function greeted(port = inst.ports.smtp!, hello = "EHLO client.test") {
  const { dialog, greeting } = await SmtpDialog.open(port);
  expect(code(greeting)).toBe(220);
  const ehlo = await dialog.cmd(hello);
  expect(code(ehlo)).toBe(250);
  return { dialog, ehlo };
}

describe("greeting and EHLO", () => {
  test("220 comes first, unasked; EHLO lists every extension we offer", async () => {
    const socket = connect(inst.ports.smtp!, "127.0.0.1");
    // Nothing is written: the greeting must come on its own.
    const first = await new Promise<string>((resolve, reject) => {
      socket.once("data", (d) => resolve(d.toString("utf8")));
      socket.once("error", reject);
    });
    socket.destroy();
    expect(first).toMatch(/^220 \S+ ESMTP .*\r\n$/);
    const { dialog, ehlo } = await greeted();
    try {
      for (const ext of ["PIPELINING", "8BITMIME", "SMTPUTF8", "SIZE 200000", "CHUNKING", "STARTTLS", "ENHANCEDSTATUSCODES"]) {
        expect(ehlo).toMatch(new RegExp(`^250[- ]${ext}\\r$`, "m"));
      }
      expect(ehlo).toMatch(/^250[- ]AUTH PLAIN LOGIN\r$/m);
      expect(await dialog.cmd("HELO old.client")).toMatch(/^250 /);
      expect(await dialog.cmd("NOOP")).toBe("250 2.0.0 OK\r\n");
      expect(code(await dialog.cmd("HELP"))).toBe(214);
      expect(code(await dialog.cmd("VRFY someone"))).toBe(252);
      expect(await dialog.cmd("QUIT")).toBe("221 2.0.0 Bye\r\n");
    } finally {
      dialog.close();
    }
  });
});

describe("pipelining", () => {
  test("MAIL, RCPT (one unknown), DATA in one write are answered in order; the body with the next envelope too", async () => {
    const inbox = await createInbox(inst);
    const { dialog } = await greeted();
    try {
      dialog.write(`MAIL FROM:<app@example.com>\r\nRCPT TO:<${inbox.address}>\r\nRCPT TO:<nobody@nowhere.test>\r\nDATA\r\n`);
      expect(await dialog.reply()).toBe("250 2.1.0 Accepted\r\n");
      expect(await dialog.reply()).toBe("250 2.1.5 Accepted\r\n");
      expect(await dialog.reply()).toMatch(/^550 5\.1\.1 <nobody@nowhere\.test>/);
      expect(code(await dialog.reply())).toBe(354);
      // The first body, the second whole envelope and DATA, in one write.
      dialog.write(`Subject: one\r\n\r\nfirst\r\n.\r\nMAIL FROM:<app@example.com>\r\nRCPT TO:<${inbox.address}>\r\nDATA\r\n`);
      const first = await dialog.reply();
      expect(storedId(first)).not.toBeNull();
      expect(code(await dialog.reply())).toBe(250);
      expect(code(await dialog.reply())).toBe(250);
      expect(code(await dialog.reply())).toBe(354);
      dialog.write("Subject: two\r\n\r\nsecond\r\n.\r\nQUIT\r\n");
      expect(storedId(await dialog.reply())).not.toBeNull();
      expect(code(await dialog.reply())).toBe(221);
    } finally {
      dialog.close();
    }
    expect(await count(inbox.id)).toBe(2);
  });
});

describe("a client that closes its sending side after its commands (half-close)", () => {
  const envelope = (to: string, i: number) =>
    `MAIL FROM:<app@example.com>\r\nRCPT TO:<${to}>\r\nDATA\r\nSubject: m${i}\r\n\r\nbody ${i}\r\n.\r\n`;

  test("every pipelined message is stored and answered, then QUIT's 221, then the server closes", async () => {
    const inbox = await createInbox(inst);
    const input = `EHLO client.test\r\n${Array.from({ length: 25 }, (_, i) => envelope(inbox.address, i)).join("")}QUIT\r\n`;
    const { output, closedByServer } = await sendThenShutWrite(inst.ports.smtp!, input);
    expect(closedByServer).toBe(true);
    expect(output.match(/^250 2\.0\.0 stored [0-9A-Z]{26}\r$/gm)?.length).toBe(25);
    expect(output).toEndWith("221 2.0.0 Bye\r\n");
    expect(await count(inbox.id)).toBe(25);
  });

  test("after STARTTLS too", async () => {
    const inbox = await createInbox(inst);
    const input = `EHLO client.test\r\n${Array.from({ length: 5 }, (_, i) => envelope(inbox.address, i)).join("")}QUIT\r\n`;
    const { output, closedByServer } = await sendThenShutWrite(inst.ports.smtp!, input, {
      starttls: { say: "EHLO client.test\r\nSTARTTLS\r\n", until: /^220 2\.0\.0 /m },
    });
    expect(closedByServer).toBe(true);
    expect(output.match(/^250 2\.0\.0 stored /gm)?.length).toBe(5);
    expect(output).toEndWith("221 2.0.0 Bye\r\n");
    expect(await count(inbox.id)).toBe(5);
  });

  test("without QUIT the messages are stored and answered too; the server then closes its side", async () => {
    const inbox = await createInbox(inst);
    const { output, closedByServer } = await sendThenShutWrite(
      inst.ports.smtp!,
      `EHLO client.test\r\n${envelope(inbox.address, 0)}${envelope(inbox.address, 1)}NOOP\r\n`,
    );
    expect(closedByServer).toBe(true);
    expect(output.match(/^250 2\.0\.0 stored /gm)?.length).toBe(2);
    expect(output).toEndWith("250 2.0.0 OK\r\n");
    expect(await count(inbox.id)).toBe(2);
  });

  test("a message cut off before its final dot is not stored; neither is an AUTH left without its response", async () => {
    const inbox = await createInbox(inst);
    const cut = await sendThenShutWrite(
      inst.ports.smtp!,
      `EHLO client.test\r\nMAIL FROM:<app@example.com>\r\nRCPT TO:<${inbox.address}>\r\nDATA\r\nSubject: cut\r\n\r\nno end`,
    );
    expect(cut.closedByServer).toBe(true);
    expect(code(cut.output.split("\r\n").at(-2)!)).toBe(354);
    const auth = await sendThenShutWrite(inst.ports.smtp!, "EHLO client.test\r\nAUTH PLAIN\r\n");
    expect(auth.closedByServer).toBe(true);
    expect(auth.output).toEndWith("334 \r\n");
    expect(await count(inbox.id)).toBe(0);
  });
});

describe("CHUNKING (BDAT)", () => {
  test("a message in three BDAT chunks with LAST is stored byte for byte, dots and bare line ends included", async () => {
    const inbox = await createInbox(inst);
    const message = Buffer.concat([
      Buffer.from(`Subject: chunks\r\nTo: ${inbox.address}\r\n\r\n`),
      Buffer.from(".leading dot, not stuffed in BDAT\r\n.\r\nbare\nlf and bare\rcr\r\n"),
      Buffer.from([0, 1, 2, 0xff, 0xfe, 13, 10]),
      Buffer.from("end\r\n"),
    ]);
    const cuts = [0, 20, 61, message.length];
    const { dialog } = await greeted();
    try {
      expect(code(await dialog.cmd("MAIL FROM:<app@example.com> BODY=BINARYMIME"))).toBe(250);
      expect(code(await dialog.cmd(`RCPT TO:<${inbox.address}>`))).toBe(250);
      for (let i = 0; i < 3; i++) {
        const chunk = message.subarray(cuts[i], cuts[i + 1]);
        const last = i === 2;
        dialog.write(Buffer.concat([Buffer.from(`BDAT ${chunk.length}${last ? " LAST" : ""}\r\n`), chunk]));
        const r = await dialog.reply();
        if (!last) expect(r).toBe(`250 2.0.0 ${chunk.length} octets received\r\n`);
        else {
          const id = storedId(r);
          expect(id).not.toBeNull();
          expect((await rawOf(id!)).equals(message)).toBe(true);
        }
      }
      // BDAT out of order: the chunk is still read (the session stays in step), then 503.
      dialog.write("BDAT 5 LAST\r\nhello");
      expect(await dialog.reply()).toMatch(/^503 5\.5\.1/);
      expect(await dialog.cmd("NOOP")).toBe("250 2.0.0 OK\r\n");
      // BINARYMIME needs BDAT.
      await dialog.cmd("MAIL FROM:<app@example.com> BODY=BINARYMIME");
      await dialog.cmd(`RCPT TO:<${inbox.address}>`);
      expect(await dialog.cmd("DATA")).toMatch(/^503 5\.5\.1/);
    } finally {
      dialog.close();
    }
  });
});

describe("STARTTLS and AUTH", () => {
  test("nodemailer with requireTLS (self-signed certificate) delivers over STARTTLS", async () => {
    const inbox = await createInbox(inst);
    const t = transport(inst, { requireTLS: true, tls: { rejectUnauthorized: false } });
    try {
      const info = await t.sendMail({ from: "app@example.com", to: inbox.address, subject: "over tls", text: "secret" });
      expect(info.response).toMatch(/^250 2\.0\.0 stored /);
    } finally {
      t.close();
    }
    expect(await count(inbox.id)).toBe(1);
  });

  test("AUTH PLAIN and LOGIN, with and without initial response, accept any credentials by default", async () => {
    const b64 = (s: string) => Buffer.from(s).toString("base64");
    const { dialog } = await greeted();
    try {
      expect(await dialog.cmd(`AUTH PLAIN ${b64("\0anyone\0anything")}`)).toBe("235 2.7.0 Authentication successful\r\n");
      expect(code(await dialog.cmd(`AUTH PLAIN ${b64("\0again\0x")}`))).toBe(503);
    } finally {
      dialog.close();
    }
    const d2 = (await greeted()).dialog;
    try {
      expect(await d2.cmd("AUTH LOGIN")).toBe(`334 ${b64("Username:")}\r\n`);
      expect(await d2.cmd(b64("someone"))).toBe(`334 ${b64("Password:")}\r\n`);
      expect(code(await d2.cmd(b64("whatever")))).toBe(235);
      expect(code(await d2.cmd("MAIL FROM:<a@example.com>"))).toBe(250);
    } finally {
      d2.close();
    }
    const d3 = (await greeted()).dialog;
    try {
      expect(await d3.cmd("AUTH PLAIN")).toBe("334 \r\n");
      expect(code(await d3.cmd("*"))).toBe(501);
      expect(code(await d3.cmd(`AUTH LOGIN ${b64("someone")}`))).toBe(334);
      expect(code(await d3.cmd(b64("pw")))).toBe(235);
      expect(code(await d3.cmd("AUTH CRAM-MD5"))).toBe(503);
    } finally {
      d3.close();
    }
    for (const method of ["PLAIN", "LOGIN"]) {
      const inbox = await createInbox(inst);
      const t = transport(inst, { auth: { user: "u", pass: "p" }, authMethod: method });
      try {
        expect((await t.sendMail({ from: "a@example.com", to: inbox.address, subject: method, text: "x" })).response).toMatch(/^250 /);
      } finally {
        t.close();
      }
    }
  });

  test("INBOXD_SMTP_AUTH=require: MAIL waits for AUTH, which takes an inbox's address and its IMAP/POP3 password", async () => {
    const strict = await startInboxd({ INBOXD_SMTP_AUTH: "require" });
    try {
      const inbox = await createInbox(strict);
      const creds = (await json(strict.api(`/v1/inboxes/${inbox.id}/credentials`))).body.data;
      const { dialog } = await greeted(strict.ports.smtp!);
      try {
        expect(await dialog.cmd("MAIL FROM:<a@example.com>")).toBe("530 5.7.0 Authentication required\r\n");
        const plain = (u: string, p: string) => Buffer.from(`\0${u}\0${p}`).toString("base64");
        expect(await dialog.cmd(`AUTH PLAIN ${plain(creds.username, "wrong")}`)).toMatch(/^535 5\.7\.8/);
        expect(code(await dialog.cmd(`AUTH PLAIN ${plain(creds.username, creds.password)}`))).toBe(235);
        expect(code(await dialog.cmd("MAIL FROM:<a@example.com>"))).toBe(250);
      } finally {
        dialog.close();
      }
      const bad = transport(strict, { auth: { user: "nobody@x.test", pass: "nope" } });
      const err = await bad.sendMail({ from: "a@example.com", to: inbox.address, subject: "x", text: "x" }).catch((e) => e);
      bad.close();
      expect(err.responseCode).toBe(535);
      const good = transport(strict, { requireTLS: true, auth: { user: creds.username, pass: creds.password } });
      try {
        const info = await good.sendMail({ from: "a@example.com", to: inbox.address, subject: "authed", text: "x" });
        expect(info.response).toMatch(/^250 2\.0\.0 stored/);
      } finally {
        good.close();
      }
    } finally {
      await strict.stop();
      strict.cleanup();
    }
  });
});

describe("SMTP smuggling", () => {
  for (const [name, ending] of [
    ["bare LF dot bare LF", "\n.\n"],
    ["bare CR dot bare CR", "\r.\r"],
    ["CRLF dot bare LF", "\r\n.\n"],
    ["bare LF dot CRLF", "\n.\r\n"],
  ] as const) {
    test(`${name} inside the data does not end it and smuggles no second message`, async () => {
      const victim = await createInbox(inst);
      const target = await createInbox(inst);
      const smuggled = `MAIL FROM:<admin@bank.example>\r\nRCPT TO:<${target.address}>\r\nDATA\r\nSubject: smuggled\r\n\r\nevil\r\n`;
      const body = `Subject: carrier\r\n\r\nhello${ending}${smuggled}`;
      const { dialog } = await greeted();
      try {
        dialog.write(`MAIL FROM:<app@example.com>\r\nRCPT TO:<${victim.address}>\r\nDATA\r\n`);
        for (const c of [250, 250, 354]) expect(code(await dialog.reply())).toBe(c);
        dialog.write(`${body}.\r\n`);
        const id = storedId(await dialog.reply());
        expect(id).not.toBeNull();
        const raw = (await rawOf(id!)).toString("latin1");
        // Everything up to CRLF.CRLF is the one message (a dot right after CRLF is dot-stuffing).
        expect(raw).toContain("smuggled");
        expect(raw.startsWith("Subject: carrier\r\n\r\nhello")).toBe(true);
        expect(await dialog.cmd("NOOP")).toBe("250 2.0.0 OK\r\n");
      } finally {
        dialog.close();
      }
      expect(await count(victim.id)).toBe(1);
      expect(await count(target.id)).toBe(0);
    });
  }

  test("bare LF and bare CR in the body are kept byte for byte", async () => {
    const inbox = await createInbox(inst);
    const body = Buffer.from("Subject: bare\r\n\r\nline one\nline two\rline three\r\n\n.\nstill\r\n");
    const { dialog } = await greeted();
    try {
      dialog.write(`MAIL FROM:<app@example.com>\r\nRCPT TO:<${inbox.address}>\r\nDATA\r\n`);
      for (const c of [250, 250, 354]) expect(code(await dialog.reply())).toBe(c);
      dialog.write(Buffer.concat([body, Buffer.from(".\r\n")]));
      const id = storedId(await dialog.reply());
      expect((await rawOf(id!)).equals(body)).toBe(true);
    } finally {
      dialog.close();
    }
  });
});

describe("limits and command order", () => {
  test("an over-long command line is 500 5.5.2 and the session goes on", async () => {
    const { dialog } = await greeted();
    try {
      expect(await dialog.cmd(`NOOP ${"x".repeat(5000)}`)).toMatch(/^500 5\.5\.2/);
      // Sent in pieces, without a line end for a while.
      dialog.write(`MAIL FROM:<${"y".repeat(3000)}`);
      await Bun.sleep(20);
      dialog.write(`${"y".repeat(3000)}@example.com>\r\n`);
      expect(await dialog.reply()).toMatch(/^500 5\.5\.2/);
      expect(await dialog.cmd("NOOP")).toBe("250 2.0.0 OK\r\n");
    } finally {
      dialog.close();
    }
  });

  test("unknown commands are 500, known but unoffered ones 502", async () => {
    const { dialog } = await greeted();
    try {
      expect(await dialog.cmd("FROB x")).toMatch(/^500 5\.5\.2/);
      expect(await dialog.cmd("EXPN staff")).toMatch(/^502 5\.5\.1/);
      expect(await dialog.cmd("GET / HTTP/1.1")).toMatch(/^500 /);
      expect(await dialog.cmd("NOOP")).toBe("250 2.0.0 OK\r\n");
    } finally {
      dialog.close();
    }
  });

  test("commands out of order are 503 5.5.1; syntax errors 501; SIZE over the limit 552 at MAIL", async () => {
    const inbox = await createInbox(inst);
    const { dialog } = await SmtpDialog.open(inst.ports.smtp!);
    try {
      expect(await dialog.cmd("MAIL FROM:<a@example.com>")).toMatch(/^503 5\.5\.1 .*EHLO/);
      await dialog.cmd("EHLO client.test");
      expect(await dialog.cmd(`RCPT TO:<${inbox.address}>`)).toMatch(/^503 5\.5\.1/);
      expect(await dialog.cmd("DATA")).toMatch(/^503 5\.5\.1/);
      expect(await dialog.cmd("MAIL FROM:a@example.com>")).toMatch(/^501 5\.5\.4/);
      expect(await dialog.cmd("MAIL FROM:<a@example.com> SIZE=999999")).toMatch(/^552 5\.3\.4/);
      expect(await dialog.cmd("MAIL FROM:<a@example.com> FOO=bar")).toMatch(/^555 5\.5\.4/);
      expect(await dialog.cmd("MAIL FROM:<a@example.com> SIZE=100 BODY=8BITMIME SMTPUTF8")).toMatch(/^250 /);
      expect(await dialog.cmd("MAIL FROM:<b@example.com>")).toMatch(/^503 5\.5\.1/);
      expect(await dialog.cmd("DATA")).toMatch(/^503 5\.5\.1/);
      expect(await dialog.cmd("STARTTLS")).toMatch(/^503 5\.5\.1/);
    } finally {
      dialog.close();
    }
  });

  test("RSET clears the transaction: DATA is then out of order and a new MAIL is accepted", async () => {
    const inbox = await createInbox(inst);
    const { dialog } = await greeted();
    try {
      await dialog.cmd("MAIL FROM:<a@example.com>");
      expect(code(await dialog.cmd(`RCPT TO:<${inbox.address}>`))).toBe(250);
      expect(await dialog.cmd("RSET")).toBe("250 2.0.0 Flushed\r\n");
      expect(await dialog.cmd("DATA")).toMatch(/^503 5\.5\.1/);
      expect(code(await dialog.cmd("MAIL FROM:<b@example.com>"))).toBe(250);
      expect(code(await dialog.cmd(`RCPT TO:<${inbox.address}>`))).toBe(250);
      expect(code(await dialog.cmd("DATA"))).toBe(354);
      expect(storedId(await dialog.cmd("Subject: after rset\r\n\r\nx\r\n."))).not.toBeNull();
    } finally {
      dialog.close();
    }
    const m = (await json(inst.api(`/v1/inboxes/${inbox.id}/messages?view=full`))).body.data;
    expect(m.map((x: any) => x.envelope.mail_from)).toEqual(["b@example.com"]);
  });

  test("DATA over INBOXD_SMTP_MAX_BYTES is 552 5.3.4 and the connection stays usable", async () => {
    const inbox = await createInbox(inst);
    const { dialog } = await greeted();
    try {
      dialog.write(`MAIL FROM:<a@example.com>\r\nRCPT TO:<${inbox.address}>\r\nDATA\r\n`);
      for (const c of [250, 250, 354]) expect(code(await dialog.reply())).toBe(c);
      dialog.write(`Subject: big\r\n\r\n${`${"z".repeat(998)}\r\n`.repeat(250)}.\r\n`);
      expect(await dialog.reply()).toMatch(/^552 5\.3\.4/);
      expect(await dialog.cmd("NOOP")).toBe("250 2.0.0 OK\r\n");
    } finally {
      dialog.close();
    }
    expect(await count(inbox.id)).toBe(0);
  });
});

describe("many short connections", () => {
  test("200 sequential one-message connections are all stored", async () => {
    const inbox = await createInbox(inst);
    for (let i = 0; i < 200; i++) {
      const { dialog, greeting } = await SmtpDialog.open(inst.ports.smtp!);
      try {
        expect(code(greeting)).toBe(220);
        dialog.write(`EHLO c.test\r\nMAIL FROM:<a@example.com>\r\nRCPT TO:<${inbox.address}>\r\nDATA\r\n`);
        for (const c of [250, 250, 250, 354]) expect(code(await dialog.reply())).toBe(c);
        dialog.write(`Subject: n${i}\r\n\r\nmessage ${i}\r\n.\r\nQUIT\r\n`);
        expect(storedId(await dialog.reply())).not.toBeNull();
        expect(code(await dialog.reply())).toBe(221);
      } finally {
        dialog.close();
      }
    }
    expect(await count(inbox.id)).toBe(200);
  });
});

const python3 = needs("python3", Bun.which("python3") !== null, "apt-get install python3");

describe.skipIf(!python3)("other clients", () => {
  test("Python's smtplib sends a message (EHLO, STARTTLS, AUTH, sendmail)", async () => {
    const inbox = await createInbox(inst);
    const script = [
      "import smtplib, ssl, sys",
      "ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE",
      "s = smtplib.SMTP('127.0.0.1', int(sys.argv[1]), timeout=20)",
      "s.ehlo(); s.starttls(context=ctx); s.ehlo(); s.login('py', 'secret')",
      "msg = 'Subject: from python\\r\\nFrom: py@example.com\\r\\n\\r\\nhello from smtplib\\r\\n.dot line\\r\\n'",
      "s.sendmail('py@example.com', [sys.argv[2]], msg)",
      "s.quit(); print('sent')",
    ].join("\n");
    const p = Bun.spawn(["python3", "-c", script, String(inst.ports.smtp), inbox.address], { stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
    expect({ code: await p.exited, out: out.trim(), err }).toEqual({ code: 0, out: "sent", err: "" });
    const list = (await json(inst.api(`/v1/inboxes/${inbox.id}/messages?view=full`))).body.data;
    expect(list[0].subject).toBe("from python");
    expect(list[0].text).toContain(".dot line");
  });
});

describe("LMTP", () => {
  test("LHLO, then one reply per accepted recipient after DATA; an unknown one is refused at RCPT", async () => {
    const a = await createInbox(inst);
    const b = await createInbox(inst);
    const port = inst.ports.lmtp!;
    expect(port).toBeGreaterThan(0);
    const { dialog, greeting } = await SmtpDialog.open(port);
    try {
      expect(greeting).toMatch(/^220 \S+ LMTP /);
      expect(code(await dialog.cmd("EHLO client.test"))).toBe(500);
      const lhlo = await dialog.cmd("LHLO client.test");
      expect(lhlo).toMatch(/^250[- ]PIPELINING\r$/m);
      expect(code(await dialog.cmd("MAIL FROM:<app@example.com>"))).toBe(250);
      expect(code(await dialog.cmd(`RCPT TO:<${a.address}>`))).toBe(250);
      expect(await dialog.cmd("RCPT TO:<ghost@nowhere.test>")).toMatch(/^550 5\.1\.1/);
      expect(code(await dialog.cmd(`RCPT TO:<${b.address}>`))).toBe(250);
      expect(code(await dialog.cmd("DATA"))).toBe(354);
      dialog.write("Subject: lmtp\r\n\r\nto two\r\n.\r\n");
      const first = await dialog.reply();
      const second = await dialog.reply();
      expect(first).toMatch(new RegExp(`^250 2\\.0\\.0 stored [0-9A-Z]{26} for <${a.address}>\\r\\n$`));
      expect(second).toMatch(new RegExp(`^250 2\\.0\\.0 stored [0-9A-Z]{26} for <${b.address}>\\r\\n$`));
      // Exactly two: the next reply is NOOP's.
      expect(await dialog.cmd("NOOP")).toBe("250 2.0.0 OK\r\n");
    } finally {
      dialog.close();
    }
    expect(await count(a.id)).toBe(1);
    expect(await count(b.id)).toBe(1);
  });
});
