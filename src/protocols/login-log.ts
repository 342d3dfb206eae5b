// One log line and one count per IMAP or POP3 log-in, failed ones included. The user name is
// logged (it is an inbox address, what an operator searches for); the password never is.
import { log } from "../lib/log";
import type { AppContext } from "../runtime/context";

export type LoginOutcome = "ok" | "invalid" | "throttled" | "busy";

export function recordLogin(ctx: AppContext, proto: "imap" | "pop3", client: string, user: string, outcome: LoginOutcome): void {
  ctx.metrics.logins.inc({ proto, result: outcome === "ok" ? "ok" : "failed" });
  const fields = { proto, client, user: user.slice(0, 320), result: outcome };
  if (outcome === "ok") log.info(fields, `${proto} login`);
  else log.warn(fields, `${proto} login failed`);
}
