// The end of every log-in path (LOGIN, AUTHENTICATE PLAIN): check the credentials through the
// shared mail-access service (which also limits failures per client address) and move the
// session to the authenticated state.
import { recordLogin } from "../login-log";
import type { Session } from "./session";

export async function completeLogin(s: Session, username: string, password: string, what: string): Promise<string> {
  if (s.services.mailAccess.isThrottled(s.ip)) {
    recordLogin(s.ctx, "imap", s.ip, username, "throttled");
    return "NO [UNAVAILABLE] Too many failed log-ins from your address; try again later";
  }
  const inbox = await s.services.mailAccess.login(username, password, s.ip);
  if (!inbox) {
    recordLogin(s.ctx, "imap", s.ip, username, "invalid");
    return "NO [AUTHENTICATIONFAILED] Invalid credentials";
  }
  if (!s.authenticated(inbox)) {
    recordLogin(s.ctx, "imap", s.ip, username, "busy");
    return "NO [LIMIT] Too many connections to this inbox";
  }
  s.watchCredential(username, password);
  recordLogin(s.ctx, "imap", s.ip, username, "ok");
  return `OK [CAPABILITY ${s.capabilities().join(" ")}] ${what} completed`;
}
