// Looks up the DNS records a custom domain must publish and says, per record, whether what is
// published matches what we asked for. Uses node:dns against INBOXD_DNS_SERVERS (or the system's
// resolvers when that is empty); knows nothing about storage or domain states.
import type { Resolver } from "node:dns/promises";
import { ABSENT_CODES, newResolver, txtRecords } from "../lib/dns";

export type RecordKey = "mx" | "spf" | "dkim" | "dmarc" | "ownership";
/** pending: never checked; skipped: verification is off (INBOXD_DOMAIN_VERIFY=off). */
export type RecordStatus = "pending" | "valid" | "invalid" | "missing" | "error" | "skipped";

export interface ExpectedRecord {
  key: RecordKey;
  type: "MX" | "TXT";
  host: string;
  value: string;
  priority: number;
  required: boolean;
}

export interface RecordCheck {
  status: RecordStatus;
  detail: string;
}

type Lookup<T> = { ok: true; value: T } | { ok: false; absent: boolean; error: string };

export class DnsChecker {
  constructor(
    private readonly servers: string[],
    private readonly timeoutMs = 2500,
  ) {}

  private resolver(): Resolver {
    return newResolver(this.servers, this.timeoutMs);
  }

  async check(records: ExpectedRecord[]): Promise<Record<string, RecordCheck>> {
    let r: Resolver;
    try {
      r = this.resolver();
    } catch (e: any) {
      const detail = `resolver unusable: ${e?.message ?? e}`;
      return Object.fromEntries(records.map((rec) => [rec.key, { status: "error", detail } satisfies RecordCheck]));
    }
    const results = await Promise.all(records.map((rec) => this.checkOne(r, rec)));
    return Object.fromEntries(records.map((rec, i) => [rec.key, results[i]!]));
  }

  private async checkOne(r: Resolver, rec: ExpectedRecord): Promise<RecordCheck> {
    if (rec.type === "MX") {
      const found = await attempt(() => r.resolveMx(rec.host));
      if (!found.ok) return failure(rec, found);
      const want = normHost(rec.value);
      const hosts = found.value.map((m) => normHost(m.exchange));
      if (hosts.includes(want)) return { status: "valid", detail: `MX ${rec.host} → ${want}` };
      return { status: "invalid", detail: `MX ${rec.host} points to ${hosts.join(", ") || "nothing"}, not ${want}` };
    }
    const found = await attempt(() => r.resolveTxt(rec.host));
    if (!found.ok) return failure(rec, found);
    return matchTxt(rec, found.value);
  }
}

function failure(rec: ExpectedRecord, l: { absent: boolean; error: string }): RecordCheck {
  if (l.absent) return { status: "missing", detail: `no ${rec.type} record at ${rec.host}` };
  return { status: "error", detail: `${rec.type} lookup of ${rec.host} failed: ${l.error}` };
}

async function attempt<T>(fn: () => Promise<T>): Promise<Lookup<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (e: any) {
    const code = String(e?.code ?? "");
    return { ok: false, absent: ABSENT_CODES.has(code), error: code || String(e?.message ?? e) };
  }
}

export function normHost(h: string): string {
  return h.trim().toLowerCase().replace(/\.$/, "");
}

function matchTxt(rec: ExpectedRecord, raw: string[][]): RecordCheck {
  const txts = txtRecords(raw);
  const at = `TXT ${rec.host}`;
  switch (rec.key) {
    case "spf": {
      const spf = txts.filter((t) => /^v=spf1(\s|$)/i.test(t.trim()));
      if (spf.length === 0) return { status: "missing", detail: `no v=spf1 record at ${rec.host}` };
      if (spf.length > 1) return { status: "invalid", detail: `${spf.length} v=spf1 records at ${rec.host}; SPF allows exactly one` };
      return spfAuthorises(spf[0]!, rec.value)
        ? { status: "valid", detail: `${at}: ${spf[0]}` }
        : { status: "invalid", detail: `${at}: "${spf[0]}" does not authorise the MX host (add "mx" as in "${rec.value}")` };
    }
    case "dkim": {
      // Compare the key material only: providers differ in tag order, spacing and quoting.
      const want = /p=([A-Za-z0-9+/=]+)/.exec(rec.value)![1]!;
      const all = raw.flat().join("").replace(/[\s"]/g, "");
      if (all.includes(`p=${want}`)) return { status: "valid", detail: `${at} carries the DKIM public key` };
      return { status: "invalid", detail: `${at} does not carry the expected DKIM public key (p=…)` };
    }
    case "dmarc": {
      const d = txts.find((t) => /^v=DMARC1\s*(;|$)/i.test(t.trim()));
      return d ? { status: "valid", detail: `${at}: ${d}` } : { status: "invalid", detail: `${at} has no v=DMARC1 record` };
    }
    case "ownership": {
      if (txts.some((t) => t.trim() === rec.value)) return { status: "valid", detail: `${at} carries the ownership token` };
      return { status: "invalid", detail: `${at} does not carry "${rec.value}"` };
    }
    default:
      return { status: txts.includes(rec.value) ? "valid" : "invalid", detail: at };
  }
}

/** The published SPF is ours, or authorises the MX hosts ("mx") or our host explicitly. */
function spfAuthorises(published: string, ours: string): boolean {
  const norm = (s: string) => s.trim().toLowerCase().split(/\s+/);
  const tokens = norm(published);
  if (tokens.join(" ") === norm(ours).join(" ")) return true;
  return tokens.some((t) => /^\+?mx$/.test(t));
}
