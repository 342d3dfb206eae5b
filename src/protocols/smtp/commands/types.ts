// What a command handler is: the session states that allow it, the reply when it comes out of
// order, and a function that does the work and answers through the session.
import type { SmtpCommand, Verb } from "../parser";
import type { SmtpSession } from "../session";
import type { IncomingMessage } from "../../../mail/incoming";

/**
 * fresh: connected (or just after STARTTLS), no EHLO/HELO/LHLO yet. greeted: no transaction.
 * mail: MAIL accepted, no recipient yet. rcpt: at least one recipient accepted. bdat: BDAT chunks
 * of the message are being received (RFC 3030: only BDAT, RSET, NOOP, QUIT may follow).
 */
export type SmtpState = "fresh" | "greeted" | "mail" | "rcpt" | "bdat";

export const ANY: SmtpState[] = ["fresh", "greeted", "mail", "rcpt", "bdat"];
export const GREETED: SmtpState[] = ["greeted", "mail", "rcpt"];

/** The answer to mail that finds the in-flight budget exhausted (MAIL SIZE=, DATA, BDAT; docs/security.md). */
export const OVER_BUDGET = "452 4.3.1 insufficient system storage: too much mail in flight, try again later";

/** The answer to a message refused while it arrived: over the size limit, the budget, or the disk. */
export function refusalReply(m: IncomingMessage, maxBytes: number, sizeOverflow = false): string {
  if (sizeOverflow || m.overflow) return `552 5.3.4 message exceeds the size limit of ${maxBytes} bytes`;
  return m.noSpace ? "452 4.3.1 insufficient system storage; try again later" : OVER_BUDGET;
}

export interface CommandDef {
  verbs: Verb[];
  states: SmtpState[];
  /** The reply when the state does not allow the command (after a fresh connection: "send EHLO first"). */
  outOfOrder?: string;
  /** Answers with s.reply(); may await (recipient lookup, delivery). */
  run(s: SmtpSession, c: SmtpCommand): void | Promise<void>;
}
