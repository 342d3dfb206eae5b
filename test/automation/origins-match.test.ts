// The pure matching rules of allowed origins (what a run's http.request and webhooks obey).
import { describe, expect, test } from "bun:test";
import { originMatches, parseOrigin } from "../../src/automation/origins";

const row = (origin: string) => {
  const p = parseOrigin(origin);
  return { scheme: p.scheme, host: p.host, port: p.port, is_wildcard: p.isWildcard ? 1 : 0 };
};
const ok = (origin: string, url: string) => originMatches(row(origin), new URL(url));

describe("origin matching", () => {
  test("exact origins match scheme, host and port (default ports included)", () => {
    expect(ok("https://app.example.com", "https://app.example.com/signup?x=1")).toBe(true);
    expect(ok("https://app.example.com", "https://app.example.com:443/")).toBe(true);
    expect(ok("https://app.example.com", "http://app.example.com/")).toBe(false);
    expect(ok("https://app.example.com", "https://app.example.com:8443/")).toBe(false);
    expect(ok("https://app.example.com", "https://evil.app.example.com/")).toBe(false);
    expect(ok("https://app.example.com", "https://app.example.com.evil.net/")).toBe(false);
    expect(ok("http://localhost:3000", "http://localhost:3000/x")).toBe(true);
    expect(ok("http://localhost:3000", "http://localhost:3001/x")).toBe(false);
  });

  test("a wildcard matches any subdomain depth, not the apex and not look-alikes", () => {
    expect(ok("https://*.example.com", "https://a.example.com/")).toBe(true);
    expect(ok("https://*.example.com", "https://a.b.example.com/")).toBe(true);
    expect(ok("https://*.example.com", "https://example.com/")).toBe(false);
    expect(ok("https://*.example.com", "https://badexample.com/")).toBe(false);
    expect(ok("https://*.example.com", "http://a.example.com/")).toBe(false);
  });

  test("wildcards only on DNS names: *.0.0.1 is refused, and a wildcard row never matches an address", () => {
    for (const bad of ["http://*.0.0.1:8080", "http://*.1", "http://*.0x7f.1", "http://*.[::1]"]) expect(() => parseOrigin(bad)).toThrow();
    // A row stored before the rule (host "0.0.1") matches neither 127.0.0.1 nor 10.0.0.1.
    const legacy = { scheme: "http", host: "0.0.1", port: 8080, is_wildcard: 1 };
    expect(originMatches(legacy, new URL("http://127.0.0.1:8080/"))).toBe(false);
    expect(originMatches(legacy, new URL("http://10.0.0.1:8080/"))).toBe(false);
  });

  test("a literal address in any spelling is stored as the URL parser writes it, and matches every spelling", () => {
    for (const spelling of ["http://0177.0.0.1:8080", "http://2130706433:8080", "http://127.1:8080", "http://0x7f.0.0.1:8080"]) {
      expect(parseOrigin(spelling).origin).toBe("http://127.0.0.1:8080");
      expect(ok(spelling, "http://127.0.0.1:8080/x")).toBe(true);
      expect(ok(spelling, "http://0177.0.0.1:8080/x")).toBe(true);
    }
    expect(parseOrigin("http://[::ffff:127.0.0.1]").origin).toBe("http://[::ffff:7f00:1]");
    expect(ok("http://[0:0:0:0:0:0:0:1]:9", "http://[::1]:9/")).toBe(true);
    expect(parseOrigin("http://0xa9fea9fe").origin).toBe("http://169.254.169.254");
  });

  test("parse normalises case, default port and a trailing slash", () => {
    expect(parseOrigin("HTTPS://App.Example.COM:443/")).toEqual({
      origin: "https://app.example.com",
      scheme: "https",
      host: "app.example.com",
      port: 443,
      isWildcard: false,
    });
    expect(parseOrigin("http://[::1]:8080").origin).toBe("http://[::1]:8080");
  });
});
