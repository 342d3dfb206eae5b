// The PROXY protocol header (HAProxy's proxy-protocol.txt, versions 1 and 2): the first bytes a
// balancer sends on a connection it forwards, naming the client it accepted. Bytes in, header out:
// no sockets here (accept.ts reads them), so the whole grammar is tested on buffers.
//
// Version 1 is one text line, at most 107 bytes with its CRLF:
//   PROXY TCP4 203.0.113.7 192.0.2.1 51234 25\r\n      (TCP6 likewise; "PROXY UNKNOWN …" = no address)
// Version 2 is binary: a 12-byte signature, version/command, family/transport, a 16-bit length,
// then the addresses (and TLVs we skip). LOCAL (the balancer's own health check) and families
// without an IP address (UNSPEC, UNIX) name no client: the connection's own address stands.
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

export const V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
const V1_PREFIX = Buffer.from("PROXY ");
/** The longest version 1 line the specification allows, CRLF included. */
export const V1_MAX = 107;

export interface ProxySource {
  address: string;
  port: number;
}

export type ProxyParse =
  /** Not enough bytes yet to tell. */
  | { status: "more" }
  | { status: "invalid"; reason: string }
  /** `length` bytes are the header; `source` is null when it names no client (LOCAL, UNKNOWN, UNIX). */
  | { status: "done"; version: 1 | 2; length: number; source: ProxySource | null };

const MORE: ProxyParse = { status: "more" };
const invalid = (reason: string): ProxyParse => ({ status: "invalid", reason });

/** Whether `buf` is (so far) a prefix of `sig`, or starts with it. */
function startsLike(buf: Buffer, sig: Buffer): boolean {
  const n = Math.min(buf.length, sig.length);
  return buf.subarray(0, n).equals(sig.subarray(0, n));
}

/** Parses the header at the start of `buf`, the bytes received so far. */
export function parseProxyHeader(buf: Buffer): ProxyParse {
  if (buf.length === 0) return MORE;
  if (startsLike(buf, V2_SIGNATURE)) return buf.length < 16 ? MORE : parseV2(buf);
  if (startsLike(buf, V1_PREFIX)) return parseV1(buf);
  return invalid("no PROXY protocol header");
}

function parseV1(buf: Buffer): ProxyParse {
  const end = buf.indexOf("\r\n");
  if (end < 0) return buf.length >= V1_MAX ? invalid("PROXY v1 line longer than 107 bytes") : MORE;
  if (end + 2 > V1_MAX) return invalid("PROXY v1 line longer than 107 bytes");
  const line = buf.subarray(0, end).toString("latin1");
  const parts = line.split(" ");
  if (parts[1] === "UNKNOWN") return { status: "done", version: 1, length: end + 2, source: null };
  if (parts.length !== 6 || (parts[1] !== "TCP4" && parts[1] !== "TCP6")) return invalid("malformed PROXY v1 line");
  const family = parts[1] === "TCP4" ? 4 : 6;
  const [src, dst, sport, dport] = parts.slice(2) as [string, string, string, string];
  if (isIP(src) !== family || isIP(dst) !== family) return invalid("PROXY v1 address does not match its family");
  if (!isPort(sport) || !isPort(dport)) return invalid("PROXY v1 port out of range");
  return { status: "done", version: 1, length: end + 2, source: { address: src, port: Number(sport) } };
}

function isPort(s: string): boolean {
  return /^(0|[1-9]\d{0,4})$/.test(s) && Number(s) <= 65535;
}

function parseV2(buf: Buffer): ProxyParse {
  const verCmd = buf[12]!;
  if (verCmd >> 4 !== 2) return invalid("PROXY v2 version is not 2");
  const command = verCmd & 0x0f;
  if (command > 1) return invalid("PROXY v2 command is neither LOCAL nor PROXY");
  const family = buf[13]! >> 4;
  const length = 16 + buf.readUInt16BE(14);
  if (buf.length < length) return MORE;
  // LOCAL: the balancer speaking for itself (health checks); the addresses, if any, are ignored.
  if (command === 0) return { status: "done", version: 2, length, source: null };
  const body = buf.subarray(16, length);
  if (family === 1) {
    if (body.length < 12) return invalid("PROXY v2 IPv4 block too short");
    return { status: "done", version: 2, length, source: { address: [...body.subarray(0, 4)].join("."), port: body.readUInt16BE(8) } };
  }
  if (family === 2) {
    if (body.length < 36) return invalid("PROXY v2 IPv6 block too short");
    const address = ipaddr.fromByteArray([...body.subarray(0, 16)]).toString();
    return { status: "done", version: 2, length, source: { address, port: body.readUInt16BE(32) } };
  }
  // UNSPEC or UNIX: nothing we can use as a client address.
  if (family === 0 || family === 3) return { status: "done", version: 2, length, source: null };
  return invalid("PROXY v2 unknown address family");
}
