// Log-in for IMAP and POP3: username is the inbox address, password the per-inbox one from
// GET /v1/inboxes/{id}/credentials. Failed log-ins are limited per client address so the
// passwords cannot be guessed at line speed.
import type { InboxRow, InboxService } from "./inboxes";
import { safeEqual } from "../lib/crypto";

const WINDOW_MS = 60_000;
const MAX_FAILURES = 10;

export class MailAccessService {
  private failures = new Map<string, { count: number; since: number }>();

  constructor(private readonly inboxes: InboxService) {}

  /** True while this client address has too many recent failures; the caller answers NO/-ERR. */
  isThrottled(ip: string, now = Date.now()): boolean {
    const f = this.failures.get(ip);
    if (!f) return false;
    if (now - f.since > WINDOW_MS) {
      this.failures.delete(ip);
      return false;
    }
    return f.count >= MAX_FAILURES;
  }

  /**
   * Whether credentials that logged in still would (the inbox exists, is active and has this
   * password): what an open IMAP/POP3 session asks after a rotation. Counts no failure.
   */
  async stillValid(username: string, password: string): Promise<boolean> {
    const inbox = await this.inboxes.byAddress(username.trim());
    return inbox !== null && inbox.status === "active" && safeEqual(this.inboxes.password(inbox), password);
  }

  /** The inbox for these credentials, or null (a failure is counted against ip). */
  async login(username: string, password: string, ip: string): Promise<InboxRow | null> {
    if (this.isThrottled(ip)) return null;
    const inbox = await this.inboxes.byAddress(username.trim());
    const ok = inbox !== null && inbox.status === "active" && safeEqual(this.inboxes.password(inbox), password);
    if (ok) return inbox;
    const now = Date.now();
    const f = this.failures.get(ip);
    if (!f || now - f.since > WINDOW_MS) this.failures.set(ip, { count: 1, since: now });
    else f.count++;
    return null;
  }
}
