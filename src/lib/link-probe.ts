// Whether one URL answers: HEAD, then GET when HEAD is refused, each following redirects by hand
// so that every hop goes through the egress guard again (lib/egress.ts). docs/analysis.md, "Links".
import { EgressError, type EgressErrorCode, type EgressPolicy, guardedRequest } from "./egress";

export type ProbeErrorCode = EgressErrorCode | "redirect_loop" | "too_many_redirects";

export interface ProbeResult {
  /** The last HTTP status received (null when none was). */
  status: number | null;
  /** A 2xx at the end of the redirects. */
  ok: boolean;
  /** The method whose answer is reported. */
  method: "HEAD" | "GET";
  /** Each redirect followed: where it pointed and the status that sent there, in order. */
  redirects: Array<{ url: string; status: number }>;
  error?: ProbeErrorCode;
  error_message?: string;
  duration_ms: number;
}

export interface ProbeOptions {
  policy: EgressPolicy;
  /** For each request (DNS, connect, TLS and the answer's headers). */
  requestTimeoutMs: number;
  /** For the whole probe: every hop of HEAD and GET. */
  totalTimeoutMs: number;
  maxRedirects?: number;
  userAgent?: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
export const MAX_REDIRECTS = 10;

/** The URL without user and password: they are neither sent nor reported in the redirect chain. */
export function withoutCredentials(url: URL): URL {
  const u = new URL(url.href);
  u.username = "";
  u.password = "";
  u.hash = "";
  return u;
}

async function follow(
  method: "HEAD" | "GET",
  start: URL,
  opts: ProbeOptions,
  signal: AbortSignal,
): Promise<Omit<ProbeResult, "duration_ms">> {
  const redirects: ProbeResult["redirects"] = [];
  const seen = new Set<string>();
  const max = opts.maxRedirects ?? MAX_REDIRECTS;
  let url = withoutCredentials(start);
  let status: number | null = null;
  for (;;) {
    seen.add(url.href);
    let res: Awaited<ReturnType<typeof guardedRequest>>;
    try {
      res = await guardedRequest({
        method,
        url,
        policy: opts.policy,
        timeoutMs: opts.requestTimeoutMs,
        signal,
        headers: { "user-agent": opts.userAgent ?? "inboxd-link-check", accept: "*/*" },
      });
    } catch (e) {
      const err = e instanceof EgressError ? e : new EgressError("connect", String((e as Error)?.message ?? e));
      return { status, ok: false, method, redirects, error: err.code, error_message: err.message };
    }
    status = res.status;
    const location = res.headers.location;
    if (!REDIRECTS.has(status) || !location) return { status, ok: status >= 200 && status < 300, method, redirects };
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      return { status, ok: false, method, redirects, error: "invalid_url", error_message: `redirect to an invalid URL: ${location}` };
    }
    if (next.protocol !== "http:" && next.protocol !== "https:") {
      return { status, ok: false, method, redirects, error: "invalid_url", error_message: `redirect to ${next.protocol} is not followed` };
    }
    next = withoutCredentials(next);
    redirects.push({ url: next.href, status });
    if (seen.has(next.href)) return { status, ok: false, method, redirects, error: "redirect_loop", error_message: `back to ${next.href}` };
    if (redirects.length > max) {
      return { status, ok: false, method, redirects, error: "too_many_redirects", error_message: `more than ${max} redirects` };
    }
    url = next;
  }
}

/**
 * Probes one http(s) URL. HEAD first (no body travels); when its answer is an HTTP error, GET
 * again, since many servers refuse or mishandle HEAD (405, 501, but also 403 or 404) while serving
 * GET. A URL that cannot be reached at all is not asked twice.
 */
export async function probeUrl(raw: string, opts: ProbeOptions): Promise<ProbeResult> {
  const started = performance.now();
  const done = (r: Omit<ProbeResult, "duration_ms">): ProbeResult => ({ ...r, duration_ms: Math.round(performance.now() - started) });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return done({ status: null, ok: false, method: "HEAD", redirects: [], error: "invalid_url", error_message: "not a URL" });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return done({
      status: null,
      ok: false,
      method: "HEAD",
      redirects: [],
      error: "invalid_url",
      error_message: `${url.protocol} is not checked`,
    });
  }
  const signal = AbortSignal.timeout(opts.totalTimeoutMs);
  const head = await follow("HEAD", url, opts, signal);
  if (head.error || head.status === null || head.status < 400) return done(head);
  const get = await follow("GET", url, opts, signal);
  // A GET that could not finish says less than the HEAD's answer did.
  return done(get.error === "timeout" || get.error === "connect" ? head : get);
}
