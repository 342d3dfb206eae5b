// Two small pieces the checks that call out (DNS, link probes, SPF/DKIM/DMARC) share: a bounded
// map whose entries expire, and one promise per key for work already under way, so callers
// asking for the same thing at the same time wait for one answer.

/** Entries live ttlMs; past maxEntries the oldest goes first (bounded memory). */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();

  constructor(private readonly maxEntries: number) {}

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.until > Date.now()) return e.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V, ttlMs: number): void {
    // Re-inserted, so Map's insertion order stays oldest first.
    this.entries.delete(key);
    this.entries.set(key, { value, until: Date.now() + ttlMs });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}

/** The running promise for a key, or a new one from start(); forgotten once it settles. */
export class InFlight<V> {
  private readonly running = new Map<string, Promise<V>>();

  run(key: string, start: () => Promise<V>): Promise<V> {
    let p = this.running.get(key);
    if (!p) {
      p = start().finally(() => this.running.delete(key));
      this.running.set(key, p);
    }
    return p;
  }
}
