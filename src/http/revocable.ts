// Requests that wait (the long-polls: latest message, list with wait/min) authenticate once, at
// the start; a key revoked meanwhile must not receive what arrives later. `whileAuthorized` hands
// the wait a signal that also fires on revocation, and re-reads the credential before answering:
// a revoked caller gets 401 instead of the message.
import type { Services } from "../services";
import type { Principal } from "../tenancy/auth";
import { DomainError } from "../lib/errors";
import { authorizationOf } from "./request";

export async function whileAuthorized<T>(
  s: Services,
  request: Request,
  principal: Principal,
  waits: boolean,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  if (!waits) return fn(request.signal);
  const authorization = authorizationOf(request);
  const revoked = new AbortController();
  const unwatch = s.revocations.watchPrincipal(principal, authorization, () => revoked.abort());
  let out: T;
  try {
    out = await fn(AbortSignal.any([request.signal, revoked.signal]));
  } finally {
    unwatch();
  }
  // The event may still be on its way when the wait ends with a message: ask the database itself.
  if (revoked.signal.aborted || !(await s.auth.stillValid(authorization))) {
    throw new DomainError("unauthenticated", "unauthorized", "the credential was revoked or expired while the request waited");
  }
  return out;
}
