// Log-in for IMAP and POP3 (and SMTP AUTH when required): username is the inbox address, password
// the per-inbox one from GET /v1/inboxes/{id}/credentials. Failures back off per inbox+address,
// per address and per inbox (lib/login-throttle.ts), never per address alone at a low allowance:
// one noisy client must not lock other tenants' mailboxes.
import type { InboxRow, InboxService } from "./inboxes";
import { clientKey } from "../lib/client-address";
import { safeEqual } from "../lib/crypto";
import { type LoginLimits, LoginThrottle } from "../lib/login-throttle";

export type MailLogin = { ok: true; inbox: InboxRow } | { ok: false; retryAfter: number };

export class MailAccessService {
  private readonly throttle: LoginThrottle;

  constructor(
    private readonly inboxes: InboxService,
    limits: LoginLimits,
  ) {
    this.throttle = new LoginThrottle(limits);
  }

  /**
   * Whether credentials that logged in still would (the inbox exists, is active and has this
   * password): what an open IMAP/POP3 session asks after a rotation. Counts no failure.
   */
  async stillValid(username: string, password: string): Promise<boolean> {
    const inbox = await this.inboxes.byAddress(username.trim());
    return inbox !== null && inbox.status === "active" && safeEqual(this.inboxes.password(inbox), password);
  }

  /**
   * The inbox for these credentials; else retryAfter > 0 when the attempt was refused unchecked
   * (back-off: the caller answers its protocol's "try later"), 0 when the credentials are wrong.
   */
  async login(username: string, password: string, ip: string): Promise<MailLogin> {
    const account = username.trim();
    const address = clientKey(ip);
    const retryAfter = this.throttle.admit(account, address);
    if (retryAfter > 0) return { ok: false, retryAfter };
    const inbox = await this.inboxes.byAddress(account);
    if (inbox === null || inbox.status !== "active" || !safeEqual(this.inboxes.password(inbox), password)) {
      return { ok: false, retryAfter: 0 };
    }
    this.throttle.succeeded(account, address);
    return { ok: true, inbox };
  }
}
