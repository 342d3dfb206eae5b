// Probes URLs for many callers at once: a global cap on concurrent probes, a short-lived cache
// (URL → result) and one probe for callers asking the same URL at the same time. The policy is
// fixed per checker, so a cached answer was reached under the same rules.
import { type ProbeOptions, type ProbeResult, probeUrl, withoutCredentials } from "./link-probe";

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
  private readonly cache = new Map<string, { result: ProbeResult; expires: number }>();
  private readonly inFlight = new Map<string, Promise<ProbeResult>>();
  private readonly slots: Semaphore;

  constructor(private readonly opts: LinkCheckerOptions) {
    this.slots = new Semaphore(opts.maxConcurrent);
  }

  /** A cached answer when fresh (unless refresh), else the probe already running, else a new one. */
  check(url: string, refresh = false): Promise<ProbeResult> {
    const key = keyOf(url);
    const hit = this.cache.get(key);
    if (hit && !refresh && hit.expires > Date.now()) return Promise.resolve(hit.result);
    const running = this.inFlight.get(key);
    if (running) return running;
    const p = this.slots
      .run(() => probeUrl(url, this.opts))
      .then((result) => {
        this.remember(key, result);
        return result;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, p);
    return p;
  }

  private remember(key: string, result: ProbeResult): void {
    this.cache.delete(key);
    this.cache.set(key, { result, expires: Date.now() + this.opts.cacheTtlMs });
    // Oldest first out: Map keeps insertion order.
    while (this.cache.size > this.opts.cacheMaxEntries) this.cache.delete(this.cache.keys().next().value!);
  }
}
