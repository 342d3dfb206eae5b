// The log-in back-off rule (lib/login-throttle.ts) and the per-address key (lib/client-address.ts),
// on an explicit clock: which attempts are refused, for how long, and which keys stay untouched.
import { describe, expect, test } from "bun:test";
import { clientKey } from "../../src/lib/client-address";
import { LoginThrottle } from "../../src/lib/login-throttle";

const limits = { perAccountAddress: 3, perAddress: 6, perAccount: 8, backoffMs: 1000, maxBackoffMs: 60_000 };

/** Fails `n` attempts of account from address at time t (each admitted, none succeeding). */
function fail(th: LoginThrottle, account: string, address: string, n: number, t: number) {
  for (let i = 0; i < n; i++) expect(th.admit(account, address, t)).toBe(0);
}

describe("LoginThrottle", () => {
  test("the pair's allowance, then a lock that doubles per further failure up to the ceiling", () => {
    const th = new LoginThrottle({ ...limits, perAddress: 1000, perAccount: 1000 });
    fail(th, "a", "x", 3, 0);
    expect(th.admit("a", "x", 0)).toBe(1);
    expect(th.admit("a", "x", 999)).toBe(1);
    let t = 1000;
    for (const expected of [2, 4, 8, 16, 32, 60, 60]) {
      expect(th.admit("a", "x", t)).toBe(0); // admitted once the lock ran out, and failed
      expect(th.admit("a", "x", t)).toBe(expected);
      t += expected * 1000;
    }
  });

  test("a pair lock touches neither another account from the address nor the account from another address", () => {
    const th = new LoginThrottle(limits);
    fail(th, "a", "x", 3, 0);
    expect(th.admit("a", "x", 0)).toBeGreaterThan(0);
    expect(th.admit("b", "x", 0)).toBe(0);
    expect(th.admit("a", "y", 0)).toBe(0);
  });

  test("account names are compared without case or surrounding space", () => {
    const th = new LoginThrottle(limits);
    fail(th, "Box@Example.test", "x", 3, 0);
    expect(th.admit(" box@example.TEST ", "x", 0)).toBeGreaterThan(0);
  });

  test("the address allowance throttles an address spraying accounts, and only that address", () => {
    const th = new LoginThrottle(limits);
    for (let i = 0; i < 6; i++) fail(th, `acct${i}`, "x", 1, 0);
    expect(th.admit("fresh", "x", 0)).toBeGreaterThan(0);
    expect(th.admit("fresh", "y", 0)).toBe(0);
  });

  test("the account allowance slows an account tried from many addresses", () => {
    const th = new LoginThrottle(limits);
    for (let i = 0; i < 8; i++) fail(th, "a", `addr${i}`, 1, 0);
    expect(th.admit("a", "new-address", 0)).toBeGreaterThan(0);
    expect(th.admit("b", "new-address", 0)).toBe(0);
  });

  test("an attempt counts from admit: parallel guesses cannot all pass before the first answer", () => {
    const th = new LoginThrottle(limits);
    const admitted = Array.from({ length: 50 }, () => th.admit("a", "x", 0)).filter((r) => r === 0);
    expect(admitted.length).toBe(3);
  });

  test("success clears the pair and takes back its provisional failure on the wider keys", () => {
    const th = new LoginThrottle({ ...limits, perAddress: 3 });
    fail(th, "a", "x", 2, 0);
    expect(th.admit("a", "x", 0)).toBe(0);
    th.succeeded("a", "x");
    // Pair forgotten; the address holds 2 failures, so one more account may still be tried.
    expect(th.admit("b", "x", 0)).toBe(0);
    expect(th.admit("c", "x", 0)).toBeGreaterThan(0);
  });

  test("failures are forgotten after the ceiling without a new one", () => {
    const th = new LoginThrottle(limits);
    fail(th, "a", "x", 3, 0);
    // Remembered, the next two failures would make 5 and lock; forgotten, they are the 1st and 2nd.
    fail(th, "a", "x", 2, 60_001);
    expect(th.admit("a", "x", 60_001)).toBe(0);
    expect(th.admit("a", "x", 60_001)).toBeGreaterThan(0);
  });
});

describe("clientKey", () => {
  test("IPv4 and mapped IPv4 per address, IPv6 per /64", () => {
    expect(clientKey("127.0.0.2")).toBe("127.0.0.2");
    expect(clientKey("::ffff:127.0.0.2")).toBe("127.0.0.2");
    expect(clientKey("2001:db8:1:2:3:4:5:6")).toBe(clientKey("2001:db8:1:2::9"));
    expect(clientKey("2001:db8:1:3::9")).not.toBe(clientKey("2001:db8:1:2::9"));
    expect(clientKey(undefined)).toBe("unknown");
  });
});
