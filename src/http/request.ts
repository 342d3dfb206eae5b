// Per-request state the global hooks compute once (request id, principal, bound project) and
// route handlers read with `reqOf(c.request)`. A WeakMap keeps it off Elysia's typed context.
import type { Principal, ProjectRef } from "../tenancy/auth";
import type { SessionBinding } from "../automation/agent-sessions";
import { DomainError } from "../lib/errors";

export interface RequestState {
  id: string;
  ip: string;
  startedAt: number;
  principal: Principal | null;
  /** The Authorization value the principal was authenticated from (header, or SSE's ?access_token=). */
  authorization: string | null;
  project: ProjectRef | null;
  rateHeaders: Record<string, string> | null;
  /** Set when the call carries a valid X-Service-Agent-Session. */
  agentSession: SessionBinding | null;
  /** Status of an error answer (set by the error envelope, read by metrics and session recording). */
  errorStatus: number | null;
}

const states = new WeakMap<Request, RequestState>();

export function initRequest(req: Request, id: string, ip: string): RequestState {
  const s: RequestState = {
    id,
    ip,
    startedAt: performance.now(),
    principal: null,
    authorization: null,
    project: null,
    rateHeaders: null,
    agentSession: null,
    errorStatus: null,
  };
  states.set(req, s);
  return s;
}

export function stateOf(req: Request): RequestState | undefined {
  return states.get(req);
}

/** The authenticated caller and its bound project; throws if the route was reached without them. */
export function reqOf(req: Request): { principal: Principal; project: ProjectRef; id: string } {
  const s = states.get(req);
  if (!s?.principal || !s.project) throw new DomainError("internal", "internal", "request reached a project route unauthenticated");
  return { principal: s.principal, project: s.project, id: s.id };
}

/** The authenticated caller on user-plane routes (no project bound). */
export function principalOf(req: Request): { principal: Principal; id: string } {
  const s = states.get(req);
  if (!s?.principal) throw new DomainError("internal", "internal", "request reached an authenticated route without a principal");
  return { principal: s.principal, id: s.id };
}

/** The agent session a call is bound to, if any. */
export function sessionOf(req: Request): SessionBinding | null {
  return states.get(req)?.agentSession ?? null;
}

/** The credential a long-lived request authenticated with, to re-check after a revocation. */
export function authorizationOf(req: Request): string | null {
  return states.get(req)?.authorization ?? null;
}
