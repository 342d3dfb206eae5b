// A minimal SMTP client for sending one message to our own listener (MCP's send_test_email).
// Plain SMTP on loopback; no AUTH, no TLS (the listener accepts both but needs neither).
import { connect, type Socket } from "node:net";

export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text?: string;
  html?: string;
}

/** RFC 5322 message with a text and/or HTML part (UTF-8, quoted-printable free: base64 bodies). */
export function buildMessage(m: OutgoingMail, messageId: string): string {
  const enc = (s: string) => (/^[\x20-\x7e]*$/.test(s) ? s : `=?UTF-8?B?${Buffer.from(s).toString("base64")}?=`);
  const b64 = (s: string) => Buffer.from(s).toString("base64").replace(/.{76}/g, "$&\r\n");
  const head = [
    `From: ${m.from}`,
    `To: ${m.to}`,
    `Subject: ${enc(m.subject)}`,
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: <${messageId}>`,
    "MIME-Version: 1.0",
  ];
  const part = (type: string, body: string) =>
    [`Content-Type: ${type}; charset=utf-8`, "Content-Transfer-Encoding: base64", "", b64(body)].join("\r\n");
  if (m.text !== undefined && m.html !== undefined) {
    const boundary = `b_${messageId.replace(/[^a-z0-9]/gi, "")}`;
    return [
      ...head,
      `Content-Type: multipart/alternative; boundary="${boundary}"`,
      "",
      `--${boundary}`,
      part("text/plain", m.text),
      `--${boundary}`,
      part("text/html", m.html),
      `--${boundary}--`,
      "",
    ].join("\r\n");
  }
  return [...head, part(m.html !== undefined ? "text/html" : "text/plain", m.html ?? m.text ?? "")].join("\r\n") + "\r\n";
}

/** The listener answered a step with another code than the one that goes on (a chaos rule, a size limit). */
export class SmtpRefused extends Error {
  constructor(
    /** greeting, EHLO, MAIL FROM, RCPT TO, DATA or end of data: never the message itself. */
    readonly step: string,
    /** The reply as the listener sent it (its first 500 characters). */
    readonly reply: string,
  ) {
    super(`SMTP ${step}: ${reply}`);
  }

  /** The reply's code (421, 451, 550, 554, …). */
  get code(): number {
    return Number(this.reply.slice(0, 3));
  }
}

export async function sendMail(host: string, port: number, m: OutgoingMail, messageId: string): Promise<string> {
  const socket: Socket = connect({ host, port });
  socket.setEncoding("utf8");
  let buf = "";
  const waiters: ((line: string) => void)[] = [];
  socket.on("data", (chunk: string) => {
    buf += chunk;
    // A reply is complete at a line "NNN text" (not "NNN-text").
    let m2: RegExpExecArray | null;
    while ((m2 = /^(\d{3}) .*\r?\n/m.exec(buf))) {
      const end = m2.index + m2[0].length;
      const reply = buf.slice(0, end);
      buf = buf.slice(end);
      waiters.shift()?.(reply);
    }
  });
  const failed = new Promise<never>((_, reject) => {
    socket.on("error", reject);
    socket.setTimeout(15_000, () => reject(new Error("SMTP timeout")));
  });
  const reply = () => Promise.race([new Promise<string>((r) => waiters.push(r)), failed]);
  const expect = async (step: string, cmd: string | null, code: string) => {
    const p = reply();
    if (cmd !== null) socket.write(cmd + "\r\n");
    const r = await p;
    if (!r.startsWith(code)) throw new SmtpRefused(step, r.trim().slice(0, 500));
    return r;
  };
  try {
    await expect("greeting", null, "220");
    await expect("EHLO", "EHLO inboxd-mcp", "250");
    await expect("MAIL FROM", `MAIL FROM:<${m.from}>`, "250");
    await expect("RCPT TO", `RCPT TO:<${m.to}>`, "250");
    await expect("DATA", "DATA", "354");
    const body = buildMessage(m, messageId).replace(/\r?\n/g, "\r\n").replace(/^\./gm, "..");
    const done = await expect("end of data", body + (body.endsWith("\r\n") ? "" : "\r\n") + ".", "250");
    socket.write("QUIT\r\n");
    return done.trim();
  } finally {
    socket.end();
  }
}
