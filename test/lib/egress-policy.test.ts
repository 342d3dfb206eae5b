// The operator's egress rules (src/lib/egress-policy.ts) over the guard (src/lib/egress.ts): the
// allow list's CIDRs and host:port entries, names resolved through the configured DNS servers (a
// test DNS server answering 127.0.0.1 for a public-looking name), and answers read only up to the
// bound even when the server never stops sending. Against real local servers; no timings.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { EgressError, guardedRequest } from "../../src/lib/egress";
import { egressPolicy, egressResolver, parseAllowEntry } from "../../src/lib/egress-policy";
import { startTestDns, type TestDns } from "../support/dns-server";
import { answer, type HttpFixture, startHttpFixture } from "../support/http-fixture";

const entries = (...xs: string[]) => xs.map((x) => parseAllowEntry(x)!);

describe("INBOXD_EGRESS_ALLOW entries", () => {
  test.each([
    ["10.0.0.0/8", "cidr"],
    ["fd00::/8", "cidr"],
    ["169.254.169.254", "cidr"],
    ["::1", "cidr"],
    ["127.0.0.1:8080", "target"],
    ["[::1]:8080", "target"],
    ["hooks.internal:443", "target"],
    ["0177.0.0.1:80", "target"],
  ])("%s is a %s entry", (text, kind) => {
    expect(parseAllowEntry(text)?.kind).toBe(kind as "cidr" | "target");
  });

  test.each(["10.0.0.0/33", "300.1.1.1/8", "hooks.internal", "127.0.0.1:0", "127.0.0.1:70000", "a b:80", "http://x:80", ""])(
    "%p is refused",
    (text) => {
      expect(parseAllowEntry(text)).toBeNull();
    },
  );

  test("an address entry written in another spelling is the same address", () => {
    const e = parseAllowEntry("0177.0.0.1:80");
    expect(e).toMatchObject({ kind: "target", host: "127.0.0.1", port: 80 });
  });
});

describe("egressPolicy", () => {
  const deny = egressPolicy({ allowPrivate: false, allow: [] });
  const allow = egressPolicy({ allowPrivate: true, allow: [] });

  test("deny refuses every special range, IPv4 in IPv6 included; allow permits them; public passes both", () => {
    for (const a of [
      "127.0.0.1",
      "10.1.2.3",
      "169.254.169.254",
      "100.100.100.200",
      "192.0.0.192",
      "::1",
      "fd00:ec2::254",
      "::ffff:a9fe:a9fe",
      "0.0.0.0",
    ]) {
      expect([a, deny.permits(a)]).toEqual([a, false]);
      expect([a, allow.permits(a)]).toEqual([a, true]);
    }
    for (const a of ["93.184.216.34", "2606:4700::1111"]) expect(deny.permits(a)).toBe(true);
  });

  test("a CIDR entry lets its range through under deny, IPv4-mapped peers included", () => {
    const p = egressPolicy({ allowPrivate: false, allow: entries("10.0.0.0/8", "fd00::/8") });
    expect(p.permits("10.9.8.7")).toBe(true);
    expect(p.permits("::ffff:10.9.8.7")).toBe(true);
    expect(p.permits("fd12::1")).toBe(true);
    expect(p.permits("11.0.0.1")).toBe(true); // public anyway
    expect(p.permits("192.168.1.1")).toBe(false);
    expect(p.permits("127.0.0.1")).toBe(false);
  });

  test("an address:port entry lets exactly that address and port through", () => {
    const p = egressPolicy({ allowPrivate: false, allow: entries("127.0.0.1:8080") });
    expect(p.permits("127.0.0.1", { host: "127.0.0.1", port: 8080 })).toBe(true);
    expect(p.permits("::ffff:127.0.0.1", { host: "localhost", port: 8080 })).toBe(true);
    expect(p.permits("127.0.0.1", { host: "127.0.0.1", port: 8081 })).toBe(false);
    expect(p.permits("127.0.0.2", { host: "127.0.0.2", port: 8080 })).toBe(false);
    expect(p.permits("127.0.0.1")).toBe(false); // no target, no port: not this entry
  });

  test("a name:port entry trusts the name asked for, at that port", () => {
    const p = egressPolicy({ allowPrivate: false, allow: entries("hooks.internal:443") });
    expect(p.permits("10.0.0.5", { host: "hooks.internal", port: 443 })).toBe(true);
    expect(p.permits("10.0.0.5", { host: "HOOKS.internal.", port: 443 })).toBe(true);
    expect(p.permits("10.0.0.5", { host: "other.internal", port: 443 })).toBe(false);
    expect(p.permits("10.0.0.5", { host: "hooks.internal", port: 80 })).toBe(false);
  });
});

describe("through the configured resolvers, against local servers", () => {
  let dns: TestDns;
  let site: HttpFixture;
  let endless: http.Server;
  let endlessPort: number;
  beforeAll(async () => {
    dns = await startTestDns();
    dns.set("rebind.example.com", { type: "A", address: "127.0.0.1" });
    dns.set("public.example.com", { type: "A", address: "127.0.0.1" });
    site = await startHttpFixture("127.0.0.1");
    site.route("/ok", answer(200));
    // Sends forever, as fast as the client reads.
    endless = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      const chunk = Buffer.alloc(64 * 1024, "x");
      const more = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once("drain", more);
      };
      more();
    });
    await new Promise<void>((r) => endless.listen(0, "127.0.0.1", r));
    endlessPort = (endless.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await dns?.close();
    await site?.close();
    endless?.closeAllConnections();
    endless?.close();
  });

  const resolve = () => egressResolver([`127.0.0.1:${dns.port}`], 3000);

  test("a DNS name answering 127.0.0.1 is refused under deny, before any request", async () => {
    const before = site.seen.length;
    const p = egressPolicy({ allowPrivate: false, allow: [], resolve: resolve() });
    const err = await guardedRequest({
      method: "GET",
      url: new URL(`http://rebind.example.com:${site.port}/ok`),
      policy: p,
      timeoutMs: 5000,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(EgressError);
    expect(err.code).toBe("private_address");
    expect(err.message).toContain("loopback");
    expect(err.message).not.toContain("127.0.0.1");
    expect(dns.queries.some((q) => q.name === "rebind.example.com")).toBe(true);
    expect(site.seen.length).toBe(before);
  });

  test("the same name is reached under allow, through the test DNS server's answer", async () => {
    const p = egressPolicy({ allowPrivate: true, allow: [], resolve: resolve() });
    const r = await guardedRequest({
      method: "GET",
      url: new URL(`http://public.example.com:${site.port}/ok`),
      policy: p,
      timeoutMs: 5000,
    });
    expect(r.status).toBe(200);
    expect(r.address).toBe("127.0.0.1");
    expect(site.seen.at(-1)?.headers.host).toBe(`public.example.com:${site.port}`);
  });

  test("localhost is loopback even when the configured DNS server does not know it", async () => {
    const p = egressPolicy({ allowPrivate: false, allow: [], resolve: resolve() });
    const err = await guardedRequest({ method: "GET", url: new URL(`http://localhost:${site.port}/ok`), policy: p, timeoutMs: 5000 }).catch(
      (e) => e,
    );
    expect(err.code).toBe("private_address");
  });

  test("a name the DNS server does not have is a dns error", async () => {
    const p = egressPolicy({ allowPrivate: true, allow: [], resolve: resolve() });
    const err = await guardedRequest({ method: "GET", url: new URL("http://nowhere.example.com/"), policy: p, timeoutMs: 5000 }).catch(
      (e) => e,
    );
    expect(err.code).toBe("dns");
  });

  test("an address:port allowance lets that one server through under deny", async () => {
    const p = egressPolicy({ allowPrivate: false, allow: entries(`127.0.0.1:${site.port}`), resolve: resolve() });
    const r = await guardedRequest({
      method: "GET",
      url: new URL(`http://rebind.example.com:${site.port}/ok`),
      policy: p,
      timeoutMs: 5000,
    });
    expect(r.status).toBe(200);
    const other = await guardedRequest({
      method: "GET",
      url: new URL(`http://127.0.0.1:${endlessPort}/`),
      policy: p,
      timeoutMs: 5000,
    }).catch((e) => e);
    expect(other.code).toBe("private_address");
  });

  test("connections are kept alive per policy; a socket cut mid-answer is not reused", async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      res.end(req.url === "/big" ? "y".repeat(100_000) : "ok");
    });
    let connections = 0;
    server.on("connection", () => connections++);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = (path: string) => new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
    try {
      const p = egressPolicy({ allowPrivate: true, allow: [] });
      for (let i = 0; i < 5; i++) {
        const r = await guardedRequest({ method: "POST", url: url("/ok"), policy: p, timeoutMs: 5000, body: "{}", readBodyBytes: 1024 });
        expect(r.body.toString()).toBe("ok");
      }
      expect(connections).toBe(1);
      const big = await guardedRequest({ method: "GET", url: url("/big"), policy: p, timeoutMs: 5000, readBodyBytes: 1024 });
      expect([big.body.length, big.truncated]).toEqual([1024, true]);
      await guardedRequest({ method: "GET", url: url("/ok"), policy: p, timeoutMs: 5000, readBodyBytes: 1024 });
      expect(connections).toBe(2);
      // Another policy never borrows that pool.
      await guardedRequest({ method: "GET", url: url("/ok"), policy: egressPolicy({ allowPrivate: true, allow: [] }), timeoutMs: 5000 });
      expect(connections).toBe(3);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test("an answer that never ends is read up to the bound and cut off", async () => {
    const p = egressPolicy({ allowPrivate: true, allow: [] });
    const r = await guardedRequest({
      method: "POST",
      url: new URL(`http://127.0.0.1:${endlessPort}/`),
      policy: p,
      timeoutMs: 10_000,
      body: "{}",
      readBodyBytes: 1024 * 1024,
    });
    expect(r.status).toBe(200);
    expect(r.body.length).toBe(1024 * 1024);
    expect(r.truncated).toBe(true);
    const small = await guardedRequest({
      method: "GET",
      url: new URL(`http://127.0.0.1:${site.port}/ok`),
      policy: p,
      timeoutMs: 5000,
      readBodyBytes: 1024,
    });
    expect(small.body.toString()).toBe("status 200");
    expect(small.truncated).toBe(false);
  });
});
