// Probes URLs for many callers at once: a global cap on concurrent probes, a short-lived cache
// (URL → result) and one probe for callers asking the same URL at the same time. The policy is
// fixed per checker, so a cached answer was reached under the same rules.
import { type ProbeOptions, type ProbeResult, probeUrl, withoutCredentials } from "./link-probe";
import { InFlight, TtlCache } from "./ttl-cache";

export interface LinkCheckerOptions extends ProbeOptions {
  /** Probes running at once across every caller. */
  maxConcurrent: number;
  cacheTtlMs: number;
  cacheMaxEntries: number;
}

class Semaphore {
  private waiting: Array<() => void> = [];
  private free: number;
  constructor(n: number) {
    this.free = n;
  }
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((r) => this.waiting.push(r));
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

/** The cache key: the URL as requested, so user:pass@ variants of one URL share an answer. */
function keyOf(url: string): string {
  try {
    return withoutCredentials(new URL(url)).href;
  } catch {
    return url;
  }
}

export class LinkChecker {
  private readonly cache: TtlCache<ProbeResult>;
  private readonly inFlight = new InFlight<ProbeResult>();
  private readonly slots: Semaphore;

  constructor(private readonly opts: LinkCheckerOptions) {
    this.cache = new TtlCache(opts.cacheMaxEntries);
    this.slots = new Semaphore(opts.maxConcurrent);
  }

  /** A cached answer when fresh (unless refresh), else the probe already running, else a new one. */
  check(url: string, refresh = false): Promise<ProbeResult> {
    const key = keyOf(url);
    const hit = refresh ? undefined : this.cache.get(key);
    if (hit) return Promise.resolve(hit);
    return this.inFlight.run(key, async () => {
      const result = await this.slots.run(() => probeUrl(url, this.opts));
      this.cache.set(key, result, this.opts.cacheTtlMs);
      return result;
    });
  }
}
