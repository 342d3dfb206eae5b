// Per-principal token bucket (unauthenticated callers are keyed by client address).
// X-RateLimit-Limit is the bucket size; Reset is seconds until the bucket is full again.

interface Bucket {
  tokens: number;
  at: number;
}

export interface RateResult {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfter: number;
}

export class RateLimiter {
  private buckets = new Map<string, Bucket>();
  private lastSweep = Date.now();

  constructor(
    private readonly rps: number,
    private readonly burst: number,
  ) {}

  take(key: string, now = Date.now()): RateResult {
    let b = this.buckets.get(key);
    if (!b) {
      b = { tokens: this.burst, at: now };
      this.buckets.set(key, b);
    } else {
      b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.rps);
      b.at = now;
    }
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    const remaining = Math.floor(b.tokens);
    const reset = Math.ceil((this.burst - b.tokens) / this.rps);
    const retryAfter = allowed ? 0 : Math.max(1, Math.ceil((1 - b.tokens) / this.rps));
    if (now - this.lastSweep > 60_000) this.sweep(now);
    return {
      allowed,
      retryAfter,
      headers: {
        "x-ratelimit-limit": String(this.burst),
        "x-ratelimit-remaining": String(remaining),
        "x-ratelimit-reset": String(reset),
      },
    };
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [k, b] of this.buckets) {
      if (b.tokens + ((now - b.at) / 1000) * this.rps >= this.burst) this.buckets.delete(k);
    }
  }
}
