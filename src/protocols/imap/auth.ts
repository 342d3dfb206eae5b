// The end of every log-in path (LOGIN, AUTHENTICATE PLAIN): check the credentials through the
// shared mail-access service (which also backs off failures per inbox and client address) and
// move the session to the authenticated state.
import { recordLogin } from "../login-log";
import type { Session } from "./session";

export async function completeLogin(s: Session, username: string, password: string, what: string): Promise<string> {
  const r = await s.services.mailAccess.login(username, password, s.ip);
  if (!r.ok && r.retryAfter > 0) {
    recordLogin(s.ctx, "imap", s.ip, username, "throttled");
    // RFC 5530: UNAVAILABLE is "temporary failure"; the client may retry later.
    return `NO [UNAVAILABLE] Too many failed log-ins; try again in ${r.retryAfter} seconds`;
  }
  if (!r.ok) {
    recordLogin(s.ctx, "imap", s.ip, username, "invalid");
    return "NO [AUTHENTICATIONFAILED] Invalid credentials";
  }
  if (!s.authenticated(r.inbox)) {
    recordLogin(s.ctx, "imap", s.ip, username, "busy");
    return "NO [LIMIT] Too many connections to this inbox";
  }
  s.watchCredential(username, password);
  // Sent, Drafts, Trash, Junk and Archive exist from the first command on (mail/imap-folders.ts).
  await s.services.folders.ensureSpecialUse(r.inbox);
  recordLogin(s.ctx, "imap", s.ip, username, "ok");
  return `OK [CAPABILITY ${s.capabilities().join(" ")}] ${what} completed`;
}
