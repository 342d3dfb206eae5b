// The key a client address is counted under by the per-address limits (connection caps, log-in
// back-off). IPv4 and IPv4-mapped IPv6 count per address; other IPv6 per /64, because one host
// usually holds a whole /64 and could otherwise take a fresh address for every connection.
import ipaddr from "ipaddr.js";

export function clientKey(address: string | undefined | null): string {
  if (!address) return "unknown";
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.process(address.replace(/%.*$/, ""));
  } catch {
    return address; // not an IP (a test's "local"): counted as it is
  }
  if (ip.kind() === "ipv4") return ip.toString();
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(":")}::/64`;
}
