// In-process event bus: wake-ups for long-polls, IMAP IDLE, SSE and webhook dispatch.
// Only a wake-up travels here; the durable fact is always in the database. A multi-node
// deployment swaps this for PostgreSQL LISTEN/NOTIFY or similar behind the same interface.
import { log } from "./log";

export type BusEvent =
  | { type: "message.received"; projectId: string; inboxId: string; messageId: string }
  /** mailboxId: the IMAP mailbox the message was in (null: INBOX); its uid is a UID of that mailbox. */
  | { type: "message.deleted"; projectId: string; inboxId: string; messageId: string; mailboxId: string | null; uid: number }
  | { type: "message.flags"; projectId: string; inboxId: string; messageId: string }
  /** A check after the commit (SPF/DKIM/DMARC) stored its result: searches on it may match now. */
  | { type: "message.analysed"; projectId: string; inboxId: string; messageId: string }
  | { type: "inbox.deleted"; projectId: string; inboxId: string }
  | { type: "event.appended"; projectId: string; eventId?: string }
  | { type: "outbox.ready"; webhookIds?: string[] }
  | { type: "run.changed"; projectId: string; runId: string }
  /**
   * A credential stopped being valid (published after the commit): an API key revoked or rotated,
   * a device logged out, a user's sessions ended, an inbox's IMAP/POP3 password replaced.
   * Sessions that authenticated with it re-check and close (tenancy/revocation.ts).
   */
  | { type: "principal.revoked"; kind: RevokedKind; id: string }
  /** An inbox's chaos rules or watchers changed (published after the commit): cached copies are dropped (mail/inbox-lookups.ts). */
  | { type: "inbox.lookups"; kind: InboxLookupKind; inboxId: string }
  /** The SMTP listeners' connect-time chaos rules changed (after the commit): every node reads them again (mail/smtp-chaos.ts). */
  | { type: "smtp.chaos" }
  /** A project's name or settings changed (after the commit): cached copies are dropped (tenancy/auth.ts). */
  | { type: "project.changed"; projectId: string };

export type InboxLookupKind = "chaos" | "watchers";

/** api_key and device: the principal's id; user: every device of that user; inbox: its IMAP/POP3 password. */
export type RevokedKind = "api_key" | "device" | "user" | "inbox";

export type Listener = (e: BusEvent) => void;

export interface EventBus {
  publish(e: BusEvent): void;
  /** Returns an unsubscribe function. */
  subscribe(fn: Listener): () => void;
}

export class LocalBus implements EventBus {
  private listeners = new Set<Listener>();
  publish(e: BusEvent): void {
    for (const fn of this.listeners) {
      try {
        fn(e);
      } catch (err) {
        log.error({ err: err }, "bus listener failed");
      }
    }
  }
  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}
