// `inboxd sendmail [-t] [-f FROM] [RCPT...]`: reads one message on stdin, as `sendmail -t` does, and
// delivers it over SMTP to inboxd (127.0.0.1:INBOXD_SMTP_PORT unless --smtp-host/--smtp-port say
// otherwise). Recipients are the arguments, plus the To, Cc and Bcc headers when -t is given or no
// argument is; the Bcc header is removed before sending, and From, Date and Message-ID are added when
// missing. Lines end in CRLF on the wire. A lone "." line does not end the input (as with -i): the
// message is everything up to end of file.
import { createTransport } from "nodemailer";
import addressparser from "nodemailer/lib/addressparser";
import { hostname, userInfo } from "node:os";
import { randomUUID } from "node:crypto";
import type { Config } from "../runtime/config";
import { CliFailure } from "./failure";

export interface SendmailOptions {
  readHeaders: boolean;
  from?: string;
  /** The sender's name (-F), for an added From header. */
  fullName?: string;
  smtpHost: string;
  recipients: string[];
}

export async function sendmail(config: Config, opts: SendmailOptions, input?: Uint8Array): Promise<number> {
  const bytes = input ?? new Uint8Array(await Bun.stdin.arrayBuffer());
  const text = Buffer.from(bytes).toString("latin1"); // byte-preserving; headers are ASCII
  const crlf = text.replace(/\r?\n/g, "\r\n");
  const { headerBlock, body } = splitMessage(crlf);
  const headers = parseHeaders(headerBlock);
  const rcpts = [...opts.recipients];
  if (opts.readHeaders || opts.recipients.length === 0) {
    for (const name of ["to", "cc", "bcc"]) for (const v of headers.get(name) ?? []) rcpts.push(...addresses(v));
  }
  const to = [...new Set(rcpts.map((r) => r.trim()).filter(Boolean))];
  if (to.length === 0) throw new CliFailure("no recipients: give them as arguments, or in To, Cc or Bcc headers");
  const from = opts.from ?? addresses(headers.get("from")?.[0] ?? "")[0] ?? `${localUser()}@localhost`;
  const raw = Buffer.from(missingHeaders(headers, from, opts.fullName) + stripHeader(headerBlock, "bcc") + body, "latin1");
  const port = config.smtpPort;
  const transport = createTransport({ host: opts.smtpHost, port, secure: false, ignoreTLS: true, connectionTimeout: 10_000 });
  try {
    await transport.sendMail({ envelope: { from, to }, raw });
  } catch (e: any) {
    const where = `${opts.smtpHost}:${port}`;
    if (/ENOTFOUND|EAI_AGAIN/.test(String(e?.message)))
      throw new CliFailure(`cannot find the SMTP host ${opts.smtpHost} (--smtp-host): ${e.message}`);
    if (e?.code === "ESOCKET" || e?.code === "ECONNECTION" || /ECONNREFUSED/.test(String(e?.message))) {
      throw new CliFailure(`nothing accepts SMTP at ${where} (INBOXD_SMTP_PORT / --smtp-port, --smtp-host): ${e.message}`);
    }
    throw new CliFailure(`the SMTP server at ${where} refused the message: ${e?.response ?? e?.message ?? e}`);
  } finally {
    transport.close();
  }
  console.log(`sent to ${to.join(", ")}`);
  return 0;
}

/**
 * From, Date and Message-ID for a message that lacks them, as sendmail and Postfix's pickup add them:
 * a cron job's or a PHP script's mail otherwise shows no sender and no date.
 */
function missingHeaders(headers: Map<string, string[]>, from: string, fullName: string | undefined): string {
  let out = "";
  if (!headers.has("from")) {
    const name = fullName?.replace(/[\r\n"\\]/g, "").trim();
    out += `From: ${name ? `"${name}" <${from}>` : from}\r\n`;
  }
  if (!headers.has("date")) out += `Date: ${new Date().toUTCString().replace("GMT", "+0000")}\r\n`;
  if (!headers.has("message-id")) out += `Message-ID: <${randomUUID()}@${hostname() || "localhost"}>\r\n`;
  return out;
}

/**
 * The header lines (each with its CRLF) and the rest, which starts with the blank line between them. As
 * sendmail reads a message, the header ends at a blank line or at the first line that is not a header field:
 * `echo "backup done" | sendmail admin@example.com` is a message whose body is that line.
 */
export function splitMessage(crlf: string): { headerBlock: string; body: string } {
  for (let at = 0; at < crlf.length; ) {
    const eol = crlf.indexOf("\r\n", at);
    const line = eol < 0 ? crlf.slice(at) : crlf.slice(at, eol);
    if (line === "") return { headerBlock: crlf.slice(0, at), body: crlf.slice(at) };
    const field = /^[\x21-\x39\x3b-\x7e]+:/.test(line) || (at > 0 && /^[ \t]/.test(line));
    if (!field) return { headerBlock: crlf.slice(0, at), body: `\r\n${crlf.slice(at)}` };
    if (eol < 0) return { headerBlock: `${crlf}\r\n`, body: "" };
    at = eol + 2;
  }
  return { headerBlock: crlf, body: "" };
}

/** Header values by lower-case name, continuation lines unfolded. */
function parseHeaders(block: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const field of block.replace(/\r\n(?=[ \t])/g, "").split("\r\n")) {
    const colon = field.indexOf(":");
    if (colon <= 0) continue;
    const name = field.slice(0, colon).trim().toLowerCase();
    out.set(name, [...(out.get(name) ?? []), field.slice(colon + 1).trim()]);
  }
  return out;
}

/** The header block without every field of this name (continuation lines included). */
function stripHeader(block: string, name: string): string {
  const lines = block.split("\r\n");
  const kept: string[] = [];
  let dropping = false;
  for (const line of lines) {
    if (/^[ \t]/.test(line) && line !== "") {
      if (!dropping) kept.push(line);
      continue;
    }
    dropping = line.toLowerCase().startsWith(`${name}:`);
    if (!dropping) kept.push(line);
  }
  return kept.join("\r\n");
}

function addresses(value: string): string[] {
  const out: string[] = [];
  const visit = (list: ReturnType<typeof addressparser>) => {
    for (const a of list) {
      if ("group" in a && a.group) visit(a.group);
      else if (a.address) out.push(a.address);
    }
  };
  visit(addressparser(value));
  return out;
}

/** The user sendmail runs as, as a sender name: Bun's userInfo() says "unknown" where no passwd entry is read (containers). */
function localUser(): string {
  const name = process.env.USER || process.env.LOGNAME || userInfo().username;
  return name === "unknown" && process.getuid?.() === 0 ? "root" : name;
}
