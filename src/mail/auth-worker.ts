// Worker-thread entry of the receipt checks (auth-check.ts): mailauth's SPF, DKIM, DMARC and ARC
// over a message's bytes, so their CPU (~0.4 ms per 10 KB message, DKIM's hashes mostly) is spent
// beside the event loop instead of on it. DNS answers are cached here, as they were on the event
// loop. Must stay an entrypoint of `bun build --compile` (package.json "build").
import { CachedDnsLookup } from "../lib/dns";
import { type CheckEnvelope, findings, type Findings } from "./auth-summary";

declare const self: Worker;

export interface CheckJob {
  id: number;
  raw: Uint8Array;
  env: CheckEnvelope;
}
export type CheckAnswer = { id: number; findings: Findings } | { id: number; error: string };
export interface CheckSetup {
  dnsServers: string[];
  dnsTimeoutMs: number;
}

let dns: CachedDnsLookup | null = null;

self.onmessage = async (e: MessageEvent<CheckSetup | CheckJob>) => {
  if (!("id" in e.data)) {
    dns = new CachedDnsLookup(e.data.dnsServers, e.data.dnsTimeoutMs);
    return;
  }
  const { id, raw, env } = e.data;
  try {
    if (!dns) throw new Error("check thread not set up");
    self.postMessage({ id, findings: await findings(raw, env, dns) } satisfies CheckAnswer);
  } catch (err) {
    self.postMessage({ id, error: String((err as Error)?.message ?? err) } satisfies CheckAnswer);
  }
};
