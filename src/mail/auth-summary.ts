// What a receipt check found (auth-check.ts), made from mailauth's answer: the same on the event
// loop and in the check thread (auth-worker.ts), which share these functions and the request shape.
import type { AuthenticateResult } from "mailauth";
import type { Readable } from "node:stream";
import type { CachedDnsLookup } from "../lib/dns";

export type Result = "pass" | "fail" | "softfail" | "neutral" | "none" | "temperror" | "permerror" | "policy" | string;

export interface AuthAnalysis {
  /** fail: SPF fail/softfail/permerror, a DKIM fail/permerror, DMARC fail or ARC fail; pass: none of those and DMARC (or else SPF or a DKIM signature) passed; none: nothing to judge. */
  verdict: "pass" | "fail" | "none";
  spf: { result: Result; domain: string | null; comment: string | null };
  dkim: Array<{ domain: string; selector: string; result: Result; comment: string | null; aligned: boolean }>;
  dmarc: { result: Result; domain: string | null; policy: string | null; comment: string | null };
  arc: { result: Result; comment: string | null };
  /** The SMTP client checked against SPF (null: an import, judged by its Received header if any). */
  client_ip: string | null;
  helo: string | null;
  /** Received-SPF and Authentication-Results as a receiving server would add them. */
  headers: string;
  checked_at: string;
}

/** The checks' findings, without who was checked and when (the caller adds those). */
export type Findings = Omit<AuthAnalysis, "client_ip" | "helo" | "checked_at">;

/** Who handed the message over, as the checks need it. */
export interface CheckEnvelope {
  ip: string | null;
  helo: string | null;
  sender: string | null;
  /** This server's name in the Authentication-Results header. */
  mta: string;
}

/** Runs mailauth over a message (its bytes, or a stream of them). */
export async function findings(raw: Uint8Array | Readable, env: CheckEnvelope, dns: CachedDnsLookup): Promise<Findings> {
  // Loaded at the first check, not at start-up (~0.3 s of module loading).
  const { authenticate } = await import("mailauth");
  const result = await authenticate(raw instanceof Uint8Array ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength) : raw, {
    ip: env.ip ?? undefined,
    helo: env.helo ?? undefined,
    sender: env.sender ?? undefined,
    // An import has no SMTP client: judge it by its own newest Received header, as the
    // server that received it did.
    trustReceived: env.ip === null,
    mta: env.mta,
    resolver: dns.resolve as never,
    disableBimi: true,
  });
  return summarise(result);
}

export function unchecked(comment: string, result: Result = "none"): Findings {
  return {
    verdict: "none",
    spf: { result, domain: null, comment },
    dkim: [],
    dmarc: { result, domain: null, policy: null, comment },
    arc: { result: "none", comment: null },
    headers: "",
  };
}

function summarise(r: AuthenticateResult): Findings {
  const spf: AuthAnalysis["spf"] = r.spf
    ? { result: r.spf.status.result, domain: r.spf.domain ?? null, comment: r.spf.status.comment ?? null }
    : { result: "none", domain: null, comment: "no SMTP client address to check" };
  // An unsigned message gets one placeholder result ("message not signed"): that is no signature.
  const dkim = r.dkim.results
    .filter((d) => d.signingDomain)
    .map((d) => ({
      domain: d.signingDomain ?? "",
      selector: d.selector ?? "",
      result: d.status.result,
      comment: d.status.comment ?? null,
      aligned: Boolean(d.status.aligned),
    }));
  const dmarc: AuthAnalysis["dmarc"] = r.dmarc
    ? {
        result: r.dmarc.status.result,
        domain: r.dmarc.domain ?? null,
        policy: r.dmarc.policy ?? null,
        comment: r.dmarc.status.comment ?? null,
      }
    : { result: "none", domain: null, policy: null, comment: r.dmarcSkipReason ?? null };
  const arc: AuthAnalysis["arc"] = r.arc
    ? { result: r.arc.status.result, comment: r.arc.status.comment ?? null }
    : { result: "none", comment: null };
  return { verdict: verdictOf(spf.result, dkim, dmarc.result, arc.result), spf, dkim, dmarc, arc, headers: r.headers };
}

function verdictOf(spf: Result, dkim: AuthAnalysis["dkim"], dmarc: Result, arc: Result): AuthAnalysis["verdict"] {
  const failed =
    spf === "fail" ||
    spf === "softfail" ||
    spf === "permerror" ||
    dkim.some((d) => d.result === "fail" || d.result === "permerror") ||
    dmarc === "fail" ||
    dmarc === "permerror" ||
    arc === "fail";
  if (failed) return "fail";
  if (dmarc === "pass" || spf === "pass" || dkim.some((d) => d.result === "pass")) return "pass";
  return "none";
}
