// DNS lookups for the checks that ask the sender's domain (SPF, DKIM, DMARC at receipt; a custom
// domain's records): node:dns against INBOXD_DNS_SERVERS, or the system's resolvers when that is
// empty, with the one correction Bun needs and, for the receipt checks, a small answer cache.
import { Resolver } from "node:dns/promises";

/**
 * TXT records as whole strings. A record longer than 255 bytes travels as several
 * character-strings; node joins them per record, but Bun's resolver returns each piece as its
 * own record (oven-sh/bun#21370). Pieces that end exactly on a 255-byte boundary are therefore
 * glued to the next one.
 */
export function txtRecords(raw: string[][]): string[] {
  const out: string[] = [];
  let carry: string | null = null;
  for (const rec of raw) {
    const joined: string = (carry ?? "") + rec.join("");
    const last = rec[rec.length - 1] ?? "";
    if (Buffer.byteLength(last) === 255) {
      carry = joined;
      continue;
    }
    out.push(joined);
    carry = null;
  }
  if (carry !== null) out.push(carry);
  return out;
}

export function newResolver(servers: string[], timeoutMs: number): Resolver {
  const r = new Resolver({ timeout: timeoutMs, tries: 2 });
  if (servers.length > 0) r.setServers(servers);
  return r;
}

/** Answers meaning "nothing published here" (NXDOMAIN, or no record of that type). */
export const ABSENT_CODES = new Set(["ENOTFOUND", "ENODATA", "NOTFOUND", "NODATA"]);

/** How long an answer (or an absence) is reused: a test that changes its zone waits this long. */
const CACHE_MS = 30_000;
/** Bounded memory: the oldest answers go first. */
const CACHE_ENTRIES = 5_000;

type Cached = { until: number; value?: unknown; error?: unknown };

/**
 * resolve(name, rrtype) with the shapes and error codes of dns.promises.resolve, which is what
 * mailauth expects of a resolver. Answers and absences are cached for a while (one sender's mail
 * asks the same names again and again); failures such as timeouts are not.
 */
export class CachedDnsLookup {
  private readonly resolver: Resolver;
  private readonly cache = new Map<string, Cached>();
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(servers: string[], timeoutMs: number) {
    this.resolver = newResolver(servers, timeoutMs);
  }

  readonly resolve = async (name: string, rrtype: string): Promise<unknown> => {
    const key = `${rrtype} ${name.toLowerCase()}`;
    const hit = this.cache.get(key);
    if (hit && hit.until > Date.now()) {
      if ("error" in hit) throw hit.error;
      return hit.value;
    }
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.lookup(name, rrtype).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  };

  private async lookup(name: string, rrtype: string): Promise<unknown> {
    const key = `${rrtype} ${name.toLowerCase()}`;
    try {
      let value: unknown = await this.resolver.resolve(name, rrtype);
      if (rrtype === "TXT") value = txtRecords(value as string[][]).map((t) => [t]);
      this.remember(key, { until: Date.now() + CACHE_MS, value });
      return value;
    } catch (e: any) {
      if (ABSENT_CODES.has(String(e?.code ?? ""))) this.remember(key, { until: Date.now() + CACHE_MS, error: e });
      throw e;
    }
  }

  private remember(key: string, entry: Cached): void {
    this.cache.delete(key);
    this.cache.set(key, entry);
    if (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
  }
}
