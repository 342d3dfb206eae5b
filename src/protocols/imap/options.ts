// IMAP tunables: from the validated configuration, plus the framing limits.
import type { Config } from "../../runtime/config";
import { DEFAULT_LIMITS, type FramerLimits } from "./parser/framer";

export interface ImapOptions {
  /** Inactivity before the server says BYE: RFC 3501 §5.4 asks for at least 30 minutes. */
  idleTimeoutMs: number;
  /** From connect to log-in at most; a connection not logged in has no right to its slot yet. */
  preauthTimeoutMs: number;
  /** Connections not logged in yet that one client address may hold. */
  preauthPerAddress: number;
  maxConnections: number;
  maxPerInbox: number;
  limits: FramerLimits;
}

export function imapOptions(config: Config): ImapOptions {
  return {
    idleTimeoutMs: config.imapIdleSeconds * 1000,
    preauthTimeoutMs: config.imapPreauthSeconds * 1000,
    preauthPerAddress: config.imapPreauthPerAddress,
    maxConnections: config.imapMaxConnections,
    maxPerInbox: config.imapMaxPerInbox,
    limits: DEFAULT_LIMITS,
  };
}
