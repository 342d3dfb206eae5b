// Large messages for the memory test and bench/large-messages.ts: one shared ~N-byte body (a
// text part and one base64 attachment of random bytes) that every message reuses, with a head
// of its own (Message-ID, first attachment line), so N senders cost the client one body, not N.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import net from "node:net";

export interface LargeMessage {
  /** The shared middle: base64 lines of the attachment (no line starts with a dot). */
  body: Buffer;
  boundary: string;
}

export function largeMessage(bytes: number): LargeMessage {
  const lines = Math.ceil(bytes / 78);
  const raw = randomBytes(lines * 57);
  const out = Buffer.allocUnsafe(lines * 78);
  for (let i = 0; i < lines; i++) {
    out.write(raw.toString("base64", i * 57, (i + 1) * 57), i * 78, "latin1");
    out[i * 78 + 76] = 0x0d;
    out[i * 78 + 77] = 0x0a;
  }
  return { body: out, boundary: "b-large-1" };
}

function head(m: LargeMessage, to: string, i: number): Buffer {
  const first = randomBytes(57).toString("base64");
  return Buffer.from(
    `From: Large <large@example.com>\r\nTo: <${to}>\r\nSubject: large message ${i}\r\n` +
      `Message-ID: <large-${i}-${Date.now()}-${first.slice(0, 8)}@example.com>\r\nMIME-Version: 1.0\r\n` +
      `Content-Type: multipart/mixed; boundary="${m.boundary}"\r\n\r\n--${m.boundary}\r\n` +
      `Content-Type: text/plain; charset=utf-8\r\n\r\nThe attachment is the point. Code 482913.\r\n--${m.boundary}\r\n` +
      `Content-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="big-${i}.bin"\r\n` +
      `Content-Transfer-Encoding: base64\r\n\r\n${first}\r\n`,
    "latin1",
  );
}

function tail(m: LargeMessage): Buffer {
  return Buffer.from(`--${m.boundary}--\r\n`, "latin1");
}

/** Message i to `to` as one buffer (for a dialog that writes it itself). */
export function wholeMessage(m: LargeMessage, to: string, i: number): Buffer {
  return messageBytes(m, head(m, to, i));
}

/** The exact bytes message i was sent as (given its head), for a byte-identical check. */
export function messageBytes(m: LargeMessage, h: Buffer): Buffer {
  return Buffer.concat([h, m.body, tail(m)]);
}

export interface SendResult {
  /** The final reply line to the message (DATA's), or the reply that refused the envelope. */
  reply: string;
  head: Buffer;
}

/**
 * One SMTP transaction over a fresh connection: EHLO, MAIL (with SIZE= when `declareSize`),
 * RCPT, DATA, the message, QUIT. Resolves with the last reply that decided the message.
 */
export function sendLarge(port: number, to: string, m: LargeMessage, i: number, declareSize = false): Promise<SendResult> {
  const h = head(m, to, i);
  const t = tail(m);
  const size = h.length + m.body.length + t.length;
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, "127.0.0.1");
    let buf = "";
    let step = 0;
    const done = (reply: string) => {
      sock.end("QUIT\r\n");
      resolve({ reply, head: h });
    };
    sock.on("error", reject);
    sock.on("data", (d) => {
      buf += d.toString("latin1");
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl).replace(/\r$/, "");
        buf = buf.slice(nl + 1);
        if (line[3] === "-") continue;
        const code = line.slice(0, 3);
        switch (step++) {
          case 0:
            sock.write("EHLO large.local\r\n");
            break;
          case 1:
            sock.write(`MAIL FROM:<large@example.com>${declareSize ? ` SIZE=${size}` : ""}\r\n`);
            break;
          case 2:
            if (code !== "250") return done(line);
            sock.write(`RCPT TO:<${to}>\r\n`);
            break;
          case 3:
            if (code !== "250") return done(line);
            sock.write("DATA\r\n");
            break;
          case 4:
            if (code !== "354") return done(line);
            sock.write(h);
            sock.write(m.body);
            sock.write(t);
            sock.write(".\r\n");
            break;
          default:
            return done(line);
        }
      }
    });
  });
}

/** Resident set size of a process, bytes (Linux /proc). */
export function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) * 1024 : 0;
}
