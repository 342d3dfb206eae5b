// The operator's egress rules (API.md "Egress", docs/security.md): public addresses always;
// loopback, private, link-local, ULA, CGNAT, metadata and other special ranges only when private
// egress is allowed; and an allow list (INBOXD_EGRESS_ALLOW) of CIDRs and host:port targets that
// pass whatever the rest says. Names resolve through the configured resolvers (INBOXD_DNS_SERVERS)
// when there are any, so that the guard judges the answers the rest of inboxd would get.
import { lookup as systemLookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { newResolver } from "./dns";
import { classifyAddress, EgressError, type EgressPolicy, type EgressTarget, type ResolvedAddress } from "./egress";

/** One INBOXD_EGRESS_ALLOW entry: a CIDR (a bare address is its own /32 or /128), or a host and port. */
export type EgressAllowEntry =
  | { kind: "cidr"; text: string; range: [ipaddr.IPv4 | ipaddr.IPv6, number] }
  | { kind: "target"; text: string; host: string; port: number };

/** The address as compared with ranges: IPv4-mapped IPv6 as its IPv4 address. */
function normal(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = address.split("%")[0]!;
  return isIP(bare) ? ipaddr.process(bare) : null;
}

/** A host as the URL parser writes it (0177.0.0.1 → 127.0.0.1, [::ffff:127.0.0.1] → ::ffff:7f00:1), brackets and a final dot off. */
export function canonicalHost(host: string): string | null {
  try {
    const h = new URL(`http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}/`).hostname;
    return h.startsWith("[") ? h.slice(1, -1) : h.replace(/\.$/, "");
  } catch {
    return null;
  }
}

/** Parses one entry; null when it is neither a CIDR nor host:port. */
export function parseAllowEntry(text: string): EgressAllowEntry | null {
  const t = text.trim();
  if (t.includes("/")) {
    try {
      const [ip, bits] = ipaddr.parseCIDR(t);
      // ::ffff:10.0.0.0/104 is 10.0.0.0/8: addresses are compared in their IPv4 form (normal()).
      if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
        return { kind: "cidr", text: t, range: [(ip as ipaddr.IPv6).toIPv4Address(), bits - 96] };
      }
      return { kind: "cidr", text: t, range: [ip, bits] };
    } catch {
      return null;
    }
  }
  if (isIP(t)) {
    const ip = ipaddr.process(t);
    return { kind: "cidr", text: t, range: [ip, ip.kind() === "ipv4" ? 32 : 128] };
  }
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s]+):(\d{1,5})$/.exec(t);
  if (!m) return null;
  const port = Number(m[2]);
  const host = canonicalHost(m[1]!);
  if (!host || port < 1 || port > 65535) return null;
  return { kind: "target", text: t, host, port };
}

function allowed(entries: readonly EgressAllowEntry[], address: string, target?: EgressTarget): boolean {
  const ip = normal(address);
  for (const e of entries) {
    if (e.kind === "cidr") {
      if (ip && ip.kind() === e.range[0].kind() && ip.match(e.range)) return true;
    } else if (target && target.port === e.port) {
      // An address entry is the address connected to; a name entry is the name asked for (the
      // operator trusts whatever it resolves to).
      const hostIp = normal(e.host);
      if (
        hostIp ? ip !== null && ip.kind() === hostIp.kind() && ip.toString() === hostIp.toString() : canonicalHost(target.host) === e.host
      )
        return true;
    }
  }
  return false;
}

/** RFC 6761: names under .localhost are loopback whatever a DNS server says (and servers do not know them). */
function isLocalhostName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return h === "localhost" || h.endsWith(".localhost");
}

/** Resolves A and AAAA through the given servers; the system's resolver (and /etc/hosts) when none are given. */
export function egressResolver(servers: readonly string[], timeoutMs: number): ((host: string) => Promise<ResolvedAddress[]>) | undefined {
  if (servers.length === 0) return undefined;
  const resolver = newResolver([...servers], timeoutMs);
  return async (host) => {
    if (isLocalhostName(host))
      return [
        { address: "127.0.0.1", family: 4 },
        { address: "::1", family: 6 },
      ];
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
    const out: ResolvedAddress[] = [];
    if (v4.status === "fulfilled") for (const a of v4.value) out.push({ address: a, family: 4 });
    if (v6.status === "fulfilled") for (const a of v6.value) out.push({ address: a, family: 6 });
    if (out.length === 0) {
      const e = (v4.status === "rejected" ? v4.reason : v6.status === "rejected" ? v6.reason : null) as NodeJS.ErrnoException | null;
      throw new EgressError("dns", `${host} does not resolve (${e?.code ?? "no address"})`);
    }
    return out;
  };
}

export interface EgressRules {
  /** Loopback, private, link-local, ULA, CGNAT, metadata and other special ranges may be reached. */
  allowPrivate: boolean;
  /** Always allowed (INBOXD_EGRESS_ALLOW). */
  allow: readonly EgressAllowEntry[];
  /** Name resolution for the guard (undefined: the system's). */
  resolve?: (host: string) => Promise<ResolvedAddress[]>;
}

/** The policy the guard (lib/egress.ts) applies to every address it would connect to. */
export function egressPolicy(rules: EgressRules): EgressPolicy {
  return {
    permits: (address, target) => rules.allowPrivate || classifyAddress(address) === null || allowed(rules.allow, address, target),
    resolve: rules.resolve ?? ((host) => systemLookup(host, { all: true, verbatim: true })),
  };
}
