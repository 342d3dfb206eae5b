// The egress policies every outbound request made for a tenant goes through (docs/security.md,
// "Outbound requests"), built once from the settings and handed out with the AppContext.
import type { EgressPolicy } from "../lib/egress";
import { egressPolicy, egressResolver } from "../lib/egress-policy";
import type { Config } from "./config";

/** How long the guard waits for one DNS answer (the request's own timeout bounds it too). */
const DNS_TIMEOUT_MS = 5_000;

export interface EgressPolicies {
  /** Webhook deliveries and scenario http.request steps: INBOXD_EGRESS_PRIVATE and INBOXD_EGRESS_ALLOW. */
  tenant: EgressPolicy;
  /**
   * The link analysis. A mail's links are chosen by whoever sent the mail, not by the tenant, so
   * private addresses stay behind their own switch (INBOXD_ALLOW_INTERNAL_HTTP, default off) even
   * where INBOXD_EGRESS_PRIVATE allows them; the operator's allow list applies as everywhere.
   */
  mailLinks: EgressPolicy;
}

export function egressPolicies(config: Config): EgressPolicies {
  const resolve = egressResolver(config.dnsServers, DNS_TIMEOUT_MS);
  return {
    tenant: egressPolicy({ allowPrivate: config.egressPrivate === "allow", allow: config.egressAllow, resolve }),
    mailLinks: egressPolicy({ allowPrivate: config.allowInternalHttp === "on", allow: config.egressAllow, resolve }),
  };
}
