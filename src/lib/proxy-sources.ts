// INBOXD_PROXY_PROTOCOL_FROM: the balancers whose connections must open with a PROXY header.
// Only these are believed: a header from any other address would let a client pick the address
// its mail is received from, its SPF check is run against and its log-in failures are counted under.
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses one entry, a CIDR or a bare address; null when it is neither. */
export function parseProxySource(text: string): Range | null {
  const t = text.trim();
  try {
    if (t.includes("/")) {
      const [ip, bits] = ipaddr.parseCIDR(t);
      // ::ffff:10.0.0.0/104 is 10.0.0.0/8: addresses are compared in their IPv4 form.
      if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96)
        return [(ip as ipaddr.IPv6).toIPv4Address(), bits - 96];
      return [ip, bits];
    }
    if (isIP(t)) {
      const ip = ipaddr.process(t);
      return [ip, ip.kind() === "ipv4" ? 32 : 128];
    }
  } catch {
    // falls through
  }
  return null;
}

/** Whether a connection from `address` (as the socket reports it) comes from a listed balancer. */
export function isProxySource(ranges: readonly Range[], address: string | undefined): boolean {
  if (!address || ranges.length === 0) return false;
  const bare = address.split("%")[0]!;
  if (!isIP(bare)) return false;
  const ip = ipaddr.process(bare);
  return ranges.some((r) => ip.kind() === r[0].kind() && ip.match(r));
}

export type ProxySourceRange = Range;
