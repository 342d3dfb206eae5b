// The link analysis of a message (API.md "Analysis": GET /v1/messages/{id}/analysis/links): every
// link of its text and HTML bodies and everything its HTML loads (images, stylesheets) probed
// over HTTP (lib/link-probe.ts) behind the egress guard (lib/egress.ts) with the mail-links policy
// (runtime/egress.ts): internal and private addresses only with INBOXD_ALLOW_INTERNAL_HTTP=on or
// in INBOXD_EGRESS_ALLOW. docs/analysis.md, "Links".
import type { AppContext } from "../runtime/context";
import { LinkChecker } from "../lib/link-checker";
import type { ProbeResult } from "../lib/link-probe";
import { readLinks } from "../mime/links";
import { remoteContentUrls } from "../mime/remote-content";
import type { MessageService } from "./messages";

/** URLs probed for one message; the rest are left out and `truncated` says so. */
export const MAX_CHECKED_URLS = 200;
/** Probes of one message running at once (a mail full of one site's links should not hammer it). */
const PER_MESSAGE_CONCURRENCY = 5;
/** Probes running at once across every message. */
const GLOBAL_CONCURRENCY = 20;
/** How long an answer is reused: a test re-running its checks does not ask every server again. */
const CACHE_TTL_MS = 5 * 60_000;
const CACHE_MAX_ENTRIES = 10_000;
/**
 * No URL starts after this long into one message's check, and no URL takes longer: the answer
 * comes well within the HTTP listener's idle timeout (120 s) whatever the mail holds.
 */
const MESSAGE_BUDGET_MS = 60_000;

const NOT_REACHED: ProbeResult = {
  status: null,
  ok: false,
  method: "HEAD",
  redirects: [],
  error: "timeout",
  error_message: "not requested: the message's check ran out of time",
  duration_ms: 0,
};

export interface LinkEntry extends ProbeResult {
  url: string;
  kind: "link" | "image";
}

export interface LinkAnalysis {
  links: LinkEntry[];
  truncated: boolean;
}

export class LinkCheckService {
  private readonly checker: LinkChecker;

  constructor(
    ctx: AppContext,
    private readonly messages: MessageService,
  ) {
    const timeout = ctx.config.linkCheckTimeoutMs;
    this.checker = new LinkChecker({
      policy: ctx.egress.mailLinks,
      requestTimeoutMs: timeout,
      // HEAD and GET with a few redirects each; a server that stalls every hop is cut off here.
      totalTimeoutMs: Math.min(timeout * 3, MESSAGE_BUDGET_MS),
      maxConcurrent: GLOBAL_CONCURRENCY,
      cacheTtlMs: CACHE_TTL_MS,
      cacheMaxEntries: CACHE_MAX_ENTRIES,
    });
  }

  async analyse(projectId: string, messageId: string, refresh = false): Promise<LinkAnalysis> {
    const m = await this.messages.get(projectId, messageId);
    const targets = new Map<string, "link" | "image">();
    for (const l of readLinks(m.links)) if (!targets.has(l.url)) targets.set(l.url, "link");
    for (const u of remoteContentUrls(m.html_body)) if (!targets.has(u)) targets.set(u, "image");
    const list = [...targets].slice(0, MAX_CHECKED_URLS);
    const links = new Array<LinkEntry>(list.length);
    let next = 0;
    const deadline = Date.now() + MESSAGE_BUDGET_MS;
    const worker = async () => {
      while (next < list.length) {
        const i = next++;
        const [url, kind] = list[i]!;
        links[i] = Date.now() < deadline ? { url, kind, ...(await this.checker.check(url, refresh)) } : { url, kind, ...NOT_REACHED };
      }
    };
    await Promise.all(Array.from({ length: Math.min(PER_MESSAGE_CONCURRENCY, list.length) }, worker));
    return { links, truncated: targets.size > list.length };
  }
}
