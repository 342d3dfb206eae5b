// What every part of the server is handed: configuration, storage, the bus and the services.
import type { Config } from "./config";
import type { Storage } from "../storage";
import type { EventBus } from "../lib/bus";
import type { Sealer } from "../lib/crypto";
import type { Metrics } from "../lib/metrics";
import type { EgressPolicies } from "./egress";

export interface TlsMaterial {
  cert: string;
  key: string;
}

export interface AppContext {
  config: Config;
  storage: Storage;
  bus: EventBus;
  sealer: Sealer;
  tls: TlsMaterial;
  /** The Prometheus series every channel counts into (lib/metrics.ts, served at /metrics). */
  metrics: Metrics;
  /** The rules for outbound requests made for tenants (runtime/egress.ts). */
  egress: EgressPolicies;
  /** Identifies this process when claiming jobs (several workers may share the database). */
  workerId: string;
  /** Ports actually bound (port 0 resolves at listen time); filled in by the server. */
  ports: { http: number; smtp: number; imap: number; pop3: number };
  /** Calls the HTTP API in-process (MCP tools go through the same routes as REST clients). */
  internalFetch?: (req: Request) => Promise<Response>;
}
