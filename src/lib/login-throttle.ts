// Log-in back-off, one rule for every password log-in (POST /v1/devices, IMAP, POP3, SMTP AUTH).
// Failures are counted under three keys, each with its own allowance:
//   account+address  the usual case: one client mistyping or guessing one account's password;
//   address          one client trying many accounts (spraying) — throttles that address only;
//   account          many addresses trying one account — slows that account only, and needs
//                    many addresses, as its allowance is far above the pair's.
// Past its allowance a key is locked for a delay that doubles with every further failure, up to a
// ceiling; a key with no failure for the ceiling's length is forgotten. Nothing is keyed by the
// address alone at a low allowance, so one noisy CI host (or NAT) cannot lock other tenants out.
//
// admit() runs before the secret is checked (argon2 for users), so a refused attempt costs no
// hashing, and it counts the attempt as a failure at once: parallel guesses cannot all slip in
// before the first wrong answer lands. succeeded() takes the provisional failure back and clears
// the account+address key.

export interface LoginLimits {
  /** Failures of one account from one address before back-off. */
  perAccountAddress: number;
  /** Failures from one address, over every account. */
  perAddress: number;
  /** Failures on one account, from every address. */
  perAccount: number;
  /** The first lock; each further failure doubles it. */
  backoffMs: number;
  /** The longest lock, and how long a key's failures are remembered. */
  maxBackoffMs: number;
}

interface Strikes {
  failures: number;
  last: number;
  until: number;
}

/** Entries kept at most; past it the least recently failing key is forgotten (bounded memory). */
const MAX_KEYS = 100_000;

export class LoginThrottle {
  private strikes = new Map<string, Strikes>();

  constructor(private readonly limits: LoginLimits) {}

  /**
   * 0 when the attempt may be checked now (it is counted as a failure until `succeeded`), else
   * the seconds to wait (nothing is counted).
   */
  admit(account: string, address: string, now = Date.now()): number {
    const keys = this.keys(account, address);
    let until = 0;
    for (const [key] of keys) until = Math.max(until, this.live(key, now)?.until ?? 0);
    if (until > now) return Math.max(1, Math.ceil((until - now) / 1000));
    for (const [key, allowance] of keys) {
      const s = this.live(key, now) ?? { failures: 0, last: now, until: 0 };
      s.failures++;
      s.last = now;
      s.until = this.lockedUntil(s, allowance);
      // Re-inserted so the map's order is least recently failing first (what MAX_KEYS evicts).
      this.strikes.delete(key);
      this.strikes.set(key, s);
    }
    while (this.strikes.size > MAX_KEYS) this.strikes.delete(this.strikes.keys().next().value!);
    return 0;
  }

  /** The credentials were right: forget this account+address, take back the provisional failure. */
  succeeded(account: string, address: string): void {
    const [pair, ...wider] = this.keys(account, address);
    this.strikes.delete(pair![0]);
    for (const [key, allowance] of wider) {
      const s = this.strikes.get(key);
      if (!s) continue;
      s.failures = Math.max(0, s.failures - 1);
      s.until = this.lockedUntil(s, allowance);
    }
  }

  private keys(account: string, address: string): [string, number][] {
    const a = account.trim().toLowerCase();
    return [
      [`pair ${a} ${address}`, this.limits.perAccountAddress],
      [`addr ${address}`, this.limits.perAddress],
      [`acct ${a}`, this.limits.perAccount],
    ];
  }

  private lockedUntil(s: Strikes, allowance: number): number {
    if (s.failures < allowance) return 0;
    const { backoffMs, maxBackoffMs } = this.limits;
    return s.last + Math.min(maxBackoffMs, backoffMs * 2 ** (s.failures - allowance));
  }

  /** The key's strikes, or undefined once they are older than the ceiling and not locking. */
  private live(key: string, now: number): Strikes | undefined {
    const s = this.strikes.get(key);
    if (s && now >= s.until && now - s.last > this.limits.maxBackoffMs) {
      this.strikes.delete(key);
      return undefined;
    }
    return s;
  }
}
