// The egress settings as start-up reads them (src/runtime/config.ts): INBOXD_EGRESS_PRIVATE's
// default follows the bind address, INBOXD_EGRESS_ALLOW is validated with a message naming it.
import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/runtime/config";

describe("INBOXD_EGRESS_PRIVATE default", () => {
  test.each([
    [undefined, "allow"],
    ["127.0.0.1", "allow"],
    ["127.0.0.2", "allow"],
    ["::1", "allow"],
    ["localhost", "allow"],
    ["0.0.0.0", "deny"],
    ["::", "deny"],
    ["192.168.1.10", "deny"],
    ["inboxd.lab.example", "deny"],
  ])("INBOXD_HOST=%p gives %s", (host, expected) => {
    expect(loadConfig(host === undefined ? {} : { INBOXD_HOST: host }).egressPrivate).toBe(expected as "allow" | "deny");
  });

  test("an explicit value wins over the derived default; anything else is refused", () => {
    expect(loadConfig({ INBOXD_HOST: "0.0.0.0", INBOXD_EGRESS_PRIVATE: "allow" }).egressPrivate).toBe("allow");
    expect(loadConfig({ INBOXD_HOST: "127.0.0.1", INBOXD_EGRESS_PRIVATE: "deny" }).egressPrivate).toBe("deny");
    expect(() => loadConfig({ INBOXD_EGRESS_PRIVATE: "yes" })).toThrow(ConfigError);
  });
});

describe("INBOXD_EGRESS_ALLOW", () => {
  test("CIDRs, addresses and host:port entries are read", () => {
    const c = loadConfig({ INBOXD_EGRESS_ALLOW: "10.0.0.0/8, 127.0.0.1:8080,[::1]:9000 ,hooks.internal:443,169.254.169.254" });
    expect(c.egressAllow.map((e) => e.kind)).toEqual(["cidr", "target", "target", "target", "cidr"]);
  });

  test.each(["10.0.0.0/40", "hooks.internal", "127.0.0.1:0", "http://10.0.0.1/"])("%p stops start-up with a clear message", (bad) => {
    expect(() => loadConfig({ INBOXD_EGRESS_ALLOW: `10.0.0.0/8,${bad}` })).toThrow(
      new ConfigError(
        `INBOXD_EGRESS_ALLOW has an invalid entry "${bad}" (a CIDR such as 10.0.0.0/8, an address, or host:port such as 127.0.0.1:8080)`,
      ),
    );
  });
});
