// DNS lookups for the checks that ask the sender's domain (SPF, DKIM, DMARC at receipt; a custom
// domain's records): node:dns against INBOXD_DNS_SERVERS, or the system's resolvers when that is
// empty, with the one correction Bun needs and, for the receipt checks, a small answer cache.
import { Resolver } from "node:dns/promises";
import { InFlight, TtlCache } from "./ttl-cache";

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

type Cached = { value: unknown } | { error: unknown };

/**
 * resolve(name, rrtype) with the shapes and error codes of dns.promises.resolve, which is what
 * mailauth expects of a resolver. Answers and absences are cached for a while (one sender's mail
 * asks the same names again and again); failures such as timeouts are not.
 */
export class CachedDnsLookup {
  private readonly resolver: Resolver;
  private readonly cache = new TtlCache<Cached>(CACHE_ENTRIES);
  private readonly inFlight = new InFlight<unknown>();

  constructor(servers: string[], timeoutMs: number) {
    this.resolver = newResolver(servers, timeoutMs);
  }

  readonly resolve = async (name: string, rrtype: string): Promise<unknown> => {
    const key = `${rrtype} ${name.toLowerCase()}`;
    const hit = this.cache.get(key);
    if (hit) {
      if ("error" in hit) throw hit.error;
      return hit.value;
    }
    return this.inFlight.run(key, () => this.lookup(key, name, rrtype));
  };

  private async lookup(key: string, name: string, rrtype: string): Promise<unknown> {
    try {
      let value: unknown = await this.resolver.resolve(name, rrtype);
      if (rrtype === "TXT") value = txtRecords(value as string[][]).map((t) => [t]);
      this.cache.set(key, { value }, CACHE_MS);
      return value;
    } catch (e: any) {
      if (ABSENT_CODES.has(String(e?.code ?? ""))) this.cache.set(key, { error: e }, CACHE_MS);
      throw e;
    }
  }
}
