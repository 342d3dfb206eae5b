// The end of every log-in path (LOGIN, AUTHENTICATE PLAIN): check the credentials through the
// shared mail-access service (which also limits failures per client address) and move the
// session to the authenticated state.
import type { Session } from "./session";

export async function completeLogin(s: Session, username: string, password: string, what: string): Promise<string> {
  if (s.services.mailAccess.isThrottled(s.ip)) return "NO [UNAVAILABLE] Too many failed log-ins from your address; try again later";
  const inbox = await s.services.mailAccess.login(username, password, s.ip);
  if (!inbox) return "NO [AUTHENTICATIONFAILED] Invalid credentials";
  if (!s.authenticated(inbox)) return "NO [LIMIT] Too many connections to this inbox";
  return `OK [CAPABILITY ${s.capabilities().join(" ")}] ${what} completed`;
}
