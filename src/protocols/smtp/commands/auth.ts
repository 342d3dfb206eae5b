// AUTH PLAIN and LOGIN (RFC 4954), with or without an initial response. INBOXD_SMTP_AUTH=any (the
// default) accepts any well-formed credentials: inboxd is a sink, not a relay, and AUTH exists only
// for mailers that insist on logging in. INBOXD_SMTP_AUTH=require checks them (an inbox's address
// and its IMAP/POP3 password, through mailAccess like IMAP and POP3) and makes MAIL wait for them.
import { decodeBase64, decodeSaslPlain } from "../parser";
import type { SmtpSession } from "../session";
import type { CommandDef } from "./types";

const USERNAME = Buffer.from("Username:").toString("base64");
const PASSWORD = Buffer.from("Password:").toString("base64");

async function login(s: SmtpSession, user: string, password: string): Promise<void> {
  if (!s.host.authRequired) {
    s.user = user || "anonymous";
    return s.reply("235 2.7.0 Authentication successful");
  }
  const r = await s.host.services.mailAccess.login(user, password, s.ip);
  if (!r.ok && r.retryAfter > 0) return s.reply(`454 4.7.0 Too many failed log-ins; try again in ${r.retryAfter} seconds`);
  if (!r.ok) return s.reply("535 5.7.8 Authentication credentials invalid");
  s.user = r.inbox.address;
  s.reply("235 2.7.0 Authentication successful");
}

/** The client's next line, or null when it cancelled with "*" (501 sent). */
async function response(s: SmtpSession, challenge: string): Promise<string | null> {
  const line = await s.ask(`334 ${challenge}`);
  if (line === null) return null;
  if (line.trim() === "*") {
    s.reply("501 5.7.0 Authentication cancelled");
    return null;
  }
  return line;
}

export default {
  verbs: ["AUTH"],
  states: ["greeted"],
  outOfOrder: "503 5.5.1 Error: AUTH is not allowed during a mail transaction",
  async run(s, c) {
    if (c.verb !== "AUTH") return;
    if (s.user !== null) return s.reply("503 5.5.1 Error: already authenticated");
    if (c.mechanism === "PLAIN") {
      const b64 = c.initial ?? (await response(s, ""));
      if (b64 === null) return;
      const creds = decodeSaslPlain(b64);
      if (!creds) return s.reply("501 5.5.2 Error: malformed PLAIN response");
      if (creds.authzid !== "" && creds.authzid.toLowerCase() !== creds.user.toLowerCase()) {
        return s.reply("535 5.7.8 Acting as another user is not supported");
      }
      return login(s, creds.user, creds.password);
    }
    if (c.mechanism === "LOGIN") {
      const u64 = c.initial ?? (await response(s, USERNAME));
      if (u64 === null) return;
      const user = decodeBase64(u64);
      if (user === null) return s.reply("501 5.5.2 Error: malformed LOGIN response");
      const p64 = await response(s, PASSWORD);
      if (p64 === null) return;
      const password = decodeBase64(p64);
      if (password === null) return s.reply("501 5.5.2 Error: malformed LOGIN response");
      return login(s, user, password);
    }
    s.reply("504 5.5.4 Error: unrecognized authentication type; PLAIN and LOGIN are offered");
  },
} satisfies CommandDef;
