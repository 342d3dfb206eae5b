// Outbound HTTP made for a tenant (webhook deliveries, scenario http.request steps, link checks;
// API.md "Egress", docs/security.md) with an SSRF guard on the address actually connected to. The
// host is resolved once (through the policy's resolver), refused answers are dropped, and the
// connection is pinned to the vetted addresses through node:http's `lookup` option: fetch() would
// resolve again (DNS rebinding) and cannot be pinned. The remote address is checked again once
// connected. Why node:http: docs/decisions.md. Which rules a policy applies: lib/egress-policy.ts.
// Connections are kept alive per policy (agentFor).
import { lookup as dnsLookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/** Why an address is not public, or null when it is. */
export type AddressClass =
  | "loopback"
  | "private"
  | "link_local"
  | "unique_local"
  | "unspecified"
  | "multicast"
  | "shared"
  | "reserved"
  | null;

/** Where a request is going: the URL's host (a name, or an IP literal without brackets) and port. */
export interface EgressTarget {
  host: string;
  port: number;
}

export type ResolvedAddress = { address: string; family: number };

/** Decides whether an address may be connected to. */
export interface EgressPolicy {
  /** Whether a request for `target` may connect to `address` (an operator's host:port allowance needs the target). */
  permits(address: string, target?: EgressTarget): boolean;
  /** How host names are resolved for this policy (default: the system's resolver, /etc/hosts included). */
  resolve?(host: string): Promise<ResolvedAddress[]>;
}

/** Public addresses always; loopback, private, link-local, … only with allowPrivate. */
export function privateAddressPolicy(allowPrivate: boolean): EgressPolicy {
  return { permits: (address) => allowPrivate || classifyAddress(address) === null };
}

export type EgressErrorCode = "private_address" | "dns" | "connect" | "timeout" | "tls" | "invalid_url";

export class EgressError extends Error {
  constructor(
    readonly code: EgressErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const V4_CLASS: Record<string, AddressClass> = {
  unspecified: "unspecified", // 0.0.0.0/8: "this network", reaches the host itself on Linux
  loopback: "loopback",
  private: "private",
  linkLocal: "link_local", // cloud metadata (169.254.169.254) lives here
  carrierGradeNat: "shared", // RFC 6598
  multicast: "multicast",
};
const V6_CLASS: Record<string, AddressClass> = {
  unspecified: "unspecified",
  loopback: "loopback",
  linkLocal: "link_local",
  uniqueLocal: "unique_local",
  deprecatedSiteLocal: "private",
  multicast: "multicast",
};

/** The IPv4 address an IPv6 one carries to (mapped, NAT64, 6to4, the old compatible form), if any. */
function embeddedV4(ip: ipaddr.IPv6): string | null {
  const p = ip.parts;
  const quad = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const range = ip.range();
  if (range === "ipv4Mapped" || range === "rfc6145" || range === "rfc6052") return quad(p[6]!, p[7]!);
  if (range === "6to4") return quad(p[1]!, p[2]!);
  if (p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7]! > 1)) return quad(p[6]!, p[7]!);
  return null;
}

/**
 * Why this IP address is not a public one (null: public), by ipaddr.js's special ranges (every
 * range that is not plain unicast is refused; the ones named here get their own word). IPv4
 * inside IPv6 is judged as the IPv4 address it reaches. Anything that is not an IP address is
 * "reserved" (refused).
 */
export function classifyAddress(address: string): AddressClass {
  const bare = address.split("%")[0]!;
  if (isIP(bare) === 0) return "reserved";
  const ip = ipaddr.parse(bare);
  if (ip.kind() === "ipv4") {
    const range = ip.range();
    return range === "unicast" ? null : (V4_CLASS[range] ?? "reserved");
  }
  const v6 = ip as ipaddr.IPv6;
  const v4 = embeddedV4(v6);
  if (v4) return classifyAddress(v4);
  const range = v6.range();
  return range === "unicast" ? null : (V6_CLASS[range] ?? "reserved");
}

export interface GuardedRequest {
  method: string;
  url: URL;
  policy: EgressPolicy;
  /** From the start until the answer is complete: DNS, connect, TLS, the headers and the body read (readBodyBytes). */
  timeoutMs: number;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Read at most this many bytes of the answer's body, then close (default 0: only status and headers count). */
  readBodyBytes?: number;
  signal?: AbortSignal;
}

export interface GuardedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The peer the answer came from. */
  address: string;
  /** The first readBodyBytes of the body as sent (no content decoding); empty when not read. */
  body: Buffer;
  /** The body went on beyond readBodyBytes. */
  truncated: boolean;
}

/** The host's addresses the policy permits; EgressError when it resolves to none of those. */
function kinds(answers: Array<{ address: string }>): string {
  return [...new Set(answers.map((a) => classifyAddress(a.address) ?? "refused by policy"))].join(", ");
}

export async function vettedAddresses(hostname: string, policy: EgressPolicy, port = 0): Promise<ResolvedAddress[]> {
  const host = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  let answers: ResolvedAddress[];
  if (isIP(host)) answers = [{ address: host, family: isIP(host) }];
  else {
    try {
      answers = policy.resolve ? await policy.resolve(host) : await dnsLookup(host, { all: true, verbatim: true });
    } catch (e) {
      if (e instanceof EgressError) throw e;
      throw new EgressError("dns", `${host} does not resolve (${(e as NodeJS.ErrnoException).code ?? "error"})`);
    }
    if (answers.length === 0) throw new EgressError("dns", `${host} does not resolve (no address)`);
  }
  const target = { host, port };
  const ok = answers.filter((a) => policy.permits(a.address, target));
  if (ok.length === 0) {
    // The kind of address, not the address: a tenant learns nothing of the internal network's numbering.
    throw new EgressError("private_address", `${host} resolves only to addresses that are not allowed (${kinds(answers)})`);
  }
  return ok;
}

/** The URL's port, or the scheme's default. */
export function portOf(url: URL): number {
  return Number(url.port) || (url.protocol === "https:" ? 443 : 80);
}

/**
 * One request without following redirects, connected only to addresses the policy permits; of
 * the answer's body at most readBodyBytes are read (none by default). The URL's user and password
 * are never sent, and no header is added but those given (and Host, Content-Length).
 */
export async function guardedRequest(req: GuardedRequest): Promise<GuardedResponse> {
  const { url, policy } = req;
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new EgressError("invalid_url", `not an http(s) URL: ${url.protocol}`);
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new EgressError("timeout", `no answer within ${req.timeoutMs} ms`)), req.timeoutMs);
  // The caller's signal is its overall time limit (or a shutdown): either way the answer is late.
  const onOuterAbort = () => ac.abort(new EgressError("timeout", "the overall time limit ran out"));
  if (req.signal?.aborted) onOuterAbort();
  req.signal?.addEventListener("abort", onOuterAbort, { once: true });
  try {
    const aborted = new Promise<never>((_, reject) => {
      if (ac.signal.aborted) reject(ac.signal.reason);
      ac.signal.addEventListener("abort", () => reject(ac.signal.reason), { once: true });
    });
    aborted.catch(() => {});
    const addresses = await Promise.race([vettedAddresses(url.hostname, policy, portOf(url)), aborted]);
    return await Promise.race([send(req, addresses, ac.signal), aborted]);
  } finally {
    clearTimeout(timer);
    req.signal?.removeEventListener("abort", onOuterAbort);
  }
}

/** Idle kept-alive sockets close after this long (below common servers' keep-alive: node 5 s, Bun 10 s). */
const IDLE_SOCKET_MS = 4_000;

/**
 * Kept-alive connections, one pool per policy, so a socket is only ever reused under the policy
 * that vetted its peer; within a pool, sockets are keyed by the host name asked for (and port, and
 * TLS name), so a name's socket never serves another name. A webhook endpoint over TLS then costs
 * one handshake per connection, not per try (fetch pooled them too).
 */
const pools = new WeakMap<EgressPolicy, { http: http.Agent; https: https.Agent }>();

function agentFor(policy: EgressPolicy, secure: boolean): http.Agent {
  let pool = pools.get(policy);
  if (!pool) {
    const opts = { keepAlive: true, timeout: IDLE_SOCKET_MS, maxFreeSockets: 16 };
    pool = { http: new http.Agent(opts), https: new https.Agent(opts) };
    pools.set(policy, pool);
  }
  return secure ? pool.https : pool.http;
}

function send(req: GuardedRequest, addresses: ResolvedAddress[], signal: AbortSignal): Promise<GuardedResponse> {
  const { url, policy } = req;
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const target = { host, port: portOf(url) };
  const refused = (address: string) =>
    new EgressError("private_address", `connected to a ${kinds([{ address }])} address, which is not allowed`);
  const limit = req.readBodyBytes ?? 0;
  return new Promise((resolve, reject) => {
    const request: typeof http.request = url.protocol === "https:" ? https.request : http.request;
    const options: http.RequestOptions = {
      method: req.method,
      // No auth: the URL's userinfo stays here (credentials are not forwarded).
      host,
      port: target.port,
      path: `${url.pathname}${url.search}`,
      headers: req.headers ?? {},
      // A new socket connects through `lookup` below; a reused one was vetted the same way and
      // its peer is checked again on the answer.
      agent: agentFor(policy, url.protocol === "https:"),
      // The only addresses this request may use: the ones vetted above, not a second resolution.
      lookup: ((_h: string, opts: { all?: boolean }, cb: (...a: unknown[]) => void) => {
        if (opts?.all) cb(null, addresses);
        else cb(null, addresses[0]!.address, addresses[0]!.family);
      }) as unknown as LookupFunction,
    };
    const r = request(options, (res) => {
      const address = res.socket?.remoteAddress ?? "";
      if (address && !policy.permits(address, target)) {
        res.destroy();
        r.destroy();
        return reject(refused(address));
      }
      const answer = { status: res.statusCode ?? 0, headers: res.headers, address };
      const cut = (body: Buffer, truncated: boolean) => {
        // The rest of the body is not wanted: stop reading it (a large answer ends here), and
        // the socket with it (it is mid-answer, so it cannot serve another request).
        res.destroy();
        r.destroy();
        resolve({ ...answer, body, truncated });
      };
      if (limit <= 0) return cut(Buffer.alloc(0), false);
      // Bounded as it streams: never more than `limit` bytes (plus one chunk) held for an answer of any size.
      const chunks: Buffer[] = [];
      let n = 0;
      res.on("data", (c: Buffer) => {
        chunks.push(c);
        n += c.length;
        if (n >= limit) cut(Buffer.concat(chunks).subarray(0, limit), n > limit || !res.complete);
      });
      // Read to the end: the socket goes back to its pool.
      res.on("end", () => resolve({ ...answer, body: Buffer.concat(chunks), truncated: false }));
      res.on("error", (e) => reject(e instanceof EgressError ? e : classifyError(e)));
    });
    r.on("socket", (s) => {
      const check = () => {
        if (s.remoteAddress && !policy.permits(s.remoteAddress, target)) r.destroy(refused(s.remoteAddress));
      };
      // A new socket is checked once connected; a pooled one (connected long ago) now.
      if (!s.connecting) return check();
      s.once("connect", check);
      r.once("close", () => s.off("connect", check));
    });
    r.on("error", (e) => reject(e instanceof EgressError ? e : classifyError(e)));
    signal.addEventListener("abort", () => r.destroy(signal.reason), { once: true });
    r.end(req.body);
  });
}

const TLS_CODES = /CERT|SSL|TLS|SELF_SIGNED|HOSTNAME|ALTNAME|UNABLE_TO_VERIFY|UNABLE_TO_GET/i;

function classifyError(e: unknown): EgressError {
  const err = e as NodeJS.ErrnoException;
  const code = String(err?.code ?? "");
  if (TLS_CODES.test(code) || /certificate|tls|ssl/i.test(err?.message ?? "")) return new EgressError("tls", err.message);
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return new EgressError("dns", err.message);
  if (code === "ETIMEDOUT") return new EgressError("timeout", err.message);
  return new EgressError("connect", err?.message || code || "connection failed");
}
