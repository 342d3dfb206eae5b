// Revocation reaching sessions that are already open. A request authenticates once, but an SSE
// stream, an MCP session, a long-poll or an IMAP/POP3 log-in lives on after that check, and used
// to keep delivering after its key was revoked. One mechanism serves them all:
//
//   1. whoever ends a credential publishes `principal.revoked {kind, id}` after the commit
//      (`publishRevoked`): API-key revoke and rotate, device log-out, a user's password reset,
//      an inbox's password rotation (inbox deletion has its own `inbox.deleted`);
//   2. every long-lived session registers here under the names it derives from (`api_key:<id>`,
//      `device:<id>`, `user:<id>`, `inbox:<id>`) with a check that re-reads its own credential;
//   3. on a matching event the check runs against the database, and a session whose credential no
//      longer holds is ended by its owner's callback. Re-checking instead of trusting the event's
//      id alone is what keeps a rotation exact: sessions opened with the new secret stay.
//
// Another node's revocation arrives through the ClusterBus (runtime/cluster-bus.ts) like a local
// one. A change made without a bus (`inboxd user passwd` on the data directory) or a wake-up lost
// with a node that died after its commit is caught by the periodic re-check
// (INBOXD_SESSION_RECHECK_MS), which also ends device sessions that expire while a stream is open.
import type { AppContext } from "../runtime/context";
import type { RevokedKind } from "../lib/bus";
import { log } from "../lib/log";
import type { AuthService, Principal } from "./auth";

interface Watch {
  names: string[];
  /** Re-reads the credential; false = it no longer holds. */
  check: () => Promise<boolean>;
  /** Dedupes checks of one credential held by several sessions (one key, ten streams). */
  checkKey: string;
  onRevoked: () => void;
  done: boolean;
}

/** Announces, after the commit, that a credential stopped being valid. */
export function publishRevoked(ctx: AppContext, kind: RevokedKind, id: string): void {
  // The offline CLI (`inboxd user passwd`) runs without a bus: the server's periodic re-check finds it.
  ctx.bus?.publish({ type: "principal.revoked", kind, id });
}

export class Revocations {
  private byName = new Map<string, Set<Watch>>();
  private all = new Set<Watch>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private sweeping = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly auth: AuthService,
  ) {
    ctx.bus.subscribe((e) => {
      if (e.type !== "principal.revoked") return;
      const set = this.byName.get(`${e.kind}:${e.id}`);
      if (set) void this.recheck([...set]);
    });
  }

  /**
   * Watches the credential a request authenticated with (its Authorization value); `onRevoked`
   * runs once if it is revoked, rotated, logged out or expires. Returns the function that stops watching.
   */
  watchPrincipal(principal: Principal, authorization: string | null, onRevoked: () => void): () => void {
    const names = [`${principal.kind}:${principal.id}`];
    if (principal.userId) names.push(`user:${principal.userId}`);
    return this.watch(names, `auth:${authorization}`, () => this.auth.stillValid(authorization), onRevoked);
  }

  /** The general form: `names` the session derives from, `check` re-reads its credential. */
  watch(names: string[], checkKey: string, check: () => Promise<boolean>, onRevoked: () => void): () => void {
    const w: Watch = { names, check, checkKey, onRevoked, done: false };
    this.all.add(w);
    for (const n of names) {
      let set = this.byName.get(n);
      if (!set) this.byName.set(n, (set = new Set()));
      set.add(w);
    }
    if (!this.timer) {
      this.timer = setInterval(() => void this.sweep(), this.ctx.config.sessionRecheckMs);
      (this.timer as { unref?: () => void }).unref?.();
    }
    return () => this.unwatch(w);
  }

  /** Sessions watched now (for tests and /metrics). */
  size(): number {
    return this.all.size;
  }

  private unwatch(w: Watch): void {
    w.done = true;
    this.all.delete(w);
    for (const n of w.names) {
      const set = this.byName.get(n);
      set?.delete(w);
      if (set?.size === 0) this.byName.delete(n);
    }
    if (this.all.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      await this.recheck([...this.all]);
    } finally {
      this.sweeping = false;
    }
  }

  private async recheck(watches: Watch[]): Promise<void> {
    const verdicts = new Map<string, Promise<boolean>>();
    for (const w of watches) {
      if (w.done) continue;
      let v = verdicts.get(w.checkKey);
      if (!v) {
        // A failed read (the database closing at shutdown) is not a revocation.
        v = w.check().catch((err) => {
          log.warn({ err }, "credential re-check failed");
          return true;
        });
        verdicts.set(w.checkKey, v);
      }
      if (await v) continue;
      if (w.done) continue;
      this.unwatch(w);
      try {
        w.onRevoked();
      } catch (err) {
        log.error({ err }, "ending a revoked session failed");
      }
    }
  }
}
