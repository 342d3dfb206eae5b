// The egress guard (src/lib/egress.ts) and the link probe over it (src/lib/link-probe.ts),
// against local HTTP servers on 127.0.0.1 and 127.0.0.2: private addresses refused by default,
// the address actually connected to is the vetted one, every redirect hop re-checked, user and
// password never forwarded, HEAD then GET, loops and timeouts reported. Outcomes, no timings.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import http from "node:http";
import {
  classifyAddress,
  EgressError,
  type EgressPolicy,
  guardedRequest,
  privateAddressPolicy,
  vettedAddresses,
} from "../../src/lib/egress";
import { probeUrl } from "../../src/lib/link-probe";
import { answer, getOnly, type HttpFixture, startHttpFixture } from "../support/http-fixture";

describe("classifyAddress", () => {
  test.each([
    ["127.0.0.1", "loopback"],
    ["127.8.9.10", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link_local"],
    ["100.64.0.1", "shared"],
    ["100.127.255.254", "shared"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1%eth0", "link_local"],
    ["fc00::1", "unique_local"],
    ["fd12:3456::1", "unique_local"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:169.254.169.254", "link_local"],
    ["64:ff9b::a00:1", "private"],
    ["2002:c0a8:0101::1", "private"],
    ["not an address", "reserved"],
  ])("%s is %s", (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls as ReturnType<typeof classifyAddress>);
  });

  test.each(["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])("%s is public", (ip) => {
    expect(classifyAddress(ip)).toBeNull();
  });
});

/** Allows 127.0.0.1 only: a stand-in for "public" so that a second loopback address is "private". */
const only127001: EgressPolicy = { permits: (a) => a === "127.0.0.1" || a === "::ffff:127.0.0.1" };
const probeOpts = (policy: EgressPolicy, requestTimeoutMs = 5000) => ({ policy, requestTimeoutMs, totalTimeoutMs: requestTimeoutMs * 3 });

describe("guarded requests and probes against local servers", () => {
  let a: HttpFixture;
  let b: HttpFixture;
  let hung: http.Server;
  let hungPort: number;
  beforeAll(async () => {
    a = await startHttpFixture("127.0.0.1");
    b = await startHttpFixture("127.0.0.2");
    a.route("/ok", answer(200));
    a.route("/head-refused", getOnly);
    a.route("/to-b", answer(302, `${b.origin}/ok`));
    a.route("/loop-1", answer(301, "/loop-2"));
    a.route("/loop-2", answer(301, "/loop-1"));
    for (let i = 0; i < 15; i++) a.route(`/hop-${i}`, answer(302, `/hop-${i + 1}`));
    a.route("/chain", answer(301, "/chain-2"));
    a.route("/chain-2", answer(308, "/ok"));
    b.route("/ok", answer(200));
    // Accepts connections and never answers.
    hung = http.createServer(() => {});
    await new Promise<void>((r) => hung.listen(0, "127.0.0.1", r));
    hungPort = (hung.address() as { port: number }).port;
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    hung?.closeAllConnections();
    hung?.close();
  });

  test("by default a host resolving to loopback (localhost) is refused before any request", async () => {
    const before = a.seen.length;
    await expect(vettedAddresses("localhost", privateAddressPolicy(false))).rejects.toMatchObject({ code: "private_address" });
    const err = await guardedRequest({
      method: "HEAD",
      url: new URL(`http://localhost:${a.port}/ok`),
      policy: privateAddressPolicy(false),
      timeoutMs: 5000,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(EgressError);
    expect(err.code).toBe("private_address");
    const literal = await probeUrl(`http://127.0.0.1:${a.port}/ok`, probeOpts(privateAddressPolicy(false)));
    expect(literal.error).toBe("private_address");
    expect(literal.status).toBeNull();
    expect(a.seen.length).toBe(before);
  });

  test("with private addresses allowed, localhost is reached and the peer is the vetted address", async () => {
    const r = await guardedRequest({
      method: "GET",
      url: new URL(`http://localhost:${a.port}/ok`),
      policy: { permits: (ip) => ip === "127.0.0.1" },
      timeoutMs: 5000,
    });
    expect(r.status).toBe(200);
    expect(r.address).toBe("127.0.0.1");
    expect(a.seen.at(-1)?.headers.host).toBe(`localhost:${a.port}`);
  });

  test("a redirect from an allowed host to a denied address is refused (every hop is re-checked)", async () => {
    const before = b.seen.length;
    const r = await probeUrl(`${a.origin}/to-b`, probeOpts(only127001));
    expect(r.error).toBe("private_address");
    expect(r.ok).toBe(false);
    expect(r.redirects).toEqual([{ url: `${b.origin}/ok`, status: 302 }]);
    expect(b.seen.length).toBe(before);
    // The same redirect is followed when both addresses are allowed.
    const allowed = await probeUrl(`${a.origin}/to-b`, probeOpts(privateAddressPolicy(true)));
    expect(allowed).toMatchObject({ status: 200, ok: true });
    expect(b.seen.length).toBe(before + 1);
  });

  test("200, 404 (HEAD then GET), HEAD 405 then GET 200", async () => {
    const allow = probeOpts(privateAddressPolicy(true));
    expect(await probeUrl(`${a.origin}/ok`, allow)).toMatchObject({ status: 200, ok: true, method: "HEAD", redirects: [] });
    const missing = await probeUrl(`${a.origin}/missing`, allow);
    expect(missing).toMatchObject({ status: 404, ok: false, method: "GET" });
    expect(missing.error).toBeUndefined();
    const seen = a.seen.filter((s) => s.path === "/head-refused").length;
    expect(await probeUrl(`${a.origin}/head-refused`, allow)).toMatchObject({ status: 200, ok: true, method: "GET" });
    expect(
      a.seen
        .filter((s) => s.path === "/head-refused")
        .map((s) => s.method)
        .slice(seen),
    ).toEqual(["HEAD", "GET"]);
  });

  test("a redirect chain is reported hop by hop; a loop and too many redirects are errors", async () => {
    const allow = probeOpts(privateAddressPolicy(true));
    const chain = await probeUrl(`${a.origin}/chain`, allow);
    expect(chain).toMatchObject({ status: 200, ok: true });
    expect(chain.redirects).toEqual([
      { url: `${a.origin}/chain-2`, status: 301 },
      { url: `${a.origin}/ok`, status: 308 },
    ]);
    const loop = await probeUrl(`${a.origin}/loop-1`, allow);
    expect(loop).toMatchObject({ ok: false, error: "redirect_loop", status: 301 });
    expect(loop.redirects.map((r) => r.url)).toEqual([`${a.origin}/loop-2`, `${a.origin}/loop-1`]);
    const far = await probeUrl(`${a.origin}/hop-0`, allow);
    expect(far).toMatchObject({ ok: false, error: "too_many_redirects" });
    expect(far.redirects.length).toBe(11);
  });

  test("user and password in the URL are not forwarded, and no cookie or Authorization header is sent", async () => {
    const before = a.seen.length;
    const r = await probeUrl(`http://alice:s3cret@127.0.0.1:${a.port}/ok`, probeOpts(privateAddressPolicy(true)));
    expect(r.ok).toBe(true);
    const got = a.seen.slice(before);
    expect(got.length).toBeGreaterThan(0);
    for (const s of got) {
      expect(s.headers.authorization).toBeUndefined();
      expect(s.headers.cookie).toBeUndefined();
      expect(JSON.stringify(s.headers)).not.toContain("s3cret");
    }
  });

  test("a server that never answers times out", async () => {
    const r = await probeUrl(`http://127.0.0.1:${hungPort}/`, probeOpts(privateAddressPolicy(true), 300));
    expect(r).toMatchObject({ status: null, ok: false, error: "timeout" });
  });

  test("nothing listening: connect; an unknown host: dns; not http(s): invalid_url", async () => {
    const allow = probeOpts(privateAddressPolicy(true), 3000);
    const closed = await startHttpFixture();
    const port = closed.port;
    await closed.close();
    expect((await probeUrl(`http://127.0.0.1:${port}/`, allow)).error).toBe("connect");
    expect((await probeUrl("http://no-such-host.invalid/", allow)).error).toBe("dns");
    expect((await probeUrl("ftp://example.com/", allow)).error).toBe("invalid_url");
    expect((await probeUrl("not a url", allow)).error).toBe("invalid_url");
  });
});
