// SPF, DKIM, DMARC and ARC of each received message (API.md "Analysis": GET
// /v1/messages/{id}/analysis/auth; docs/analysis.md), checked with mailauth against
// INBOXD_DNS_SERVERS (or the system's resolvers).
//
// "At receipt" without delaying the 250: the transaction that stores a message also queues its
// check with the SMTP client's IP and HELO (message_auth, verdict NULL); after the commit the bus
// wakes the checker, which checks a batch at a time (DNS answers cached, a bounded number at once)
// and stores the results. A restart picks up what was left (the scheduler's catch-up). Asking for
// a message still queued checks it at once. The stored verdict is what `auth:` searches.
import { hostname } from "node:os";
import { resolve } from "node:path";
import { authenticate, type AuthenticateResult } from "mailauth";
import { CachedDnsLookup } from "../lib/dns";
import { InFlight } from "../lib/ttl-cache";
import { DomainError } from "../lib/errors";
import { log } from "../lib/log";
import type { AppContext } from "../runtime/context";
import type { MessageAuthRecord, PendingAuth } from "../storage/mail";
import type { StoredInTxHook } from "./ingest";
import type { MessageService } from "./messages";
import { LARGE_MESSAGE_BYTES, largeMessageStarted } from "./memory-release";

/** One DNS question: a resolver that does not answer in this time is tried once more. */
const DNS_TIMEOUT_MS = 1_500;
/** A whole check (SPF may follow up to ten lookups); past it, the result is a temperror. */
const CHECK_TIMEOUT_MS = 15_000;
const BATCH = 32;
/** How long a claimed batch is this node's: longer than its DNS timeouts; a dead node's claims lapse after it. */
const CLAIM_MS = 120_000;
/** Checks in flight at once: each mostly waits on DNS. */
const PARALLEL = 8;
/**
 * While mail keeps arriving, checks take at most this share of the time, so that a burst is
 * captured at nearly full speed and checked right after it (mailauth costs ~0.4 ms of CPU per 10 KB
 * message: unthrottled, a burst on 2 cores was taken in a third more slowly). A message asked
 * for is checked at once whatever the queue.
 */
const BUSY_SHARE = 0.05;
/** Mail arriving within this long counts as a burst. */
const BUSY_WINDOW_MS = 100;

type Result = "pass" | "fail" | "softfail" | "neutral" | "none" | "temperror" | "permerror" | "policy" | string;

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

export class AuthCheckService {
  private readonly dns: CachedDnsLookup;
  private readonly inFlight = new InFlight<AuthAnalysis>();
  private draining: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private lastArrival = 0;
  private readonly node: string;

  constructor(
    private readonly ctx: AppContext,
    private readonly messages: MessageService,
  ) {
    this.dns = new CachedDnsLookup(ctx.config.dnsServers, DNS_TIMEOUT_MS);
    // Stable across restarts of this node (one process per data directory: storage/lock.ts), so a
    // restarted node takes back the checks it had claimed instead of waiting for the lease.
    this.node = `${hostname()}:${resolve(ctx.config.dataDir)}`;
    if (this.enabled) {
      ctx.bus.subscribe((e) => {
        if (e.type === "message.received") {
          this.lastArrival = Date.now();
          this.kick();
        }
      });
    }
  }

  get enabled(): boolean {
    return this.ctx.config.authCheck === "on";
  }

  /** Queues the check of a message in the transaction that stores it (ingest's storedInTx). */
  readonly queueAtReceipt: StoredInTxHook = async (m, tx) => {
    if (!this.enabled) return;
    await tx.messageAuth.enqueue(m.message.id, m.receipt ? plainIp(m.receipt.clientIp) : null, m.receipt?.helo ?? null);
  };

  async analyse(projectId: string, messageId: string): Promise<AuthAnalysis> {
    const m = await this.messages.get(projectId, messageId);
    const row = await this.ctx.storage.messageAuth.ofMessage(m.id);
    if (row?.verdict && row.result_json) return JSON.parse(row.result_json) as AuthAnalysis;
    if (!row && !this.enabled) {
      throw new DomainError("unavailable", "analysis_unavailable", "SPF, DKIM and DMARC checks are off (INBOXD_AUTH_CHECK=off)");
    }
    // Queued and not reached yet, or stored before these checks existed: check it now.
    return this.check({
      message_id: m.id,
      project_id: m.project_id,
      inbox_id: m.inbox_id,
      blob_key: m.blob_key,
      envelope_from: m.envelope_from,
      client_ip: row?.client_ip ?? null,
      helo: row?.helo ?? null,
    });
  }

  /**
   * Starts checking every queued message, if not already at it (the bus wakes it; the scheduler
   * calls it at start-up and as a safety net). Does not wait: a check may wait seconds on DNS.
   */
  catchUp(): void {
    this.kick();
  }

  /** Stops taking work. Checks still waiting on DNS are abandoned unrecorded: they stay queued for the next start. */
  stop(): void {
    this.stopped = true;
  }

  private kick(): void {
    if (!this.enabled || this.stopped) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drainLoop()
      .catch((e) => log.error({ err: e }, "auth check drain failed"))
      .finally(() => {
        this.draining = null;
      });
  }

  private async drainLoop(): Promise<void> {
    do {
      this.again = false;
      for (;;) {
        // Claimed for CLAIM_MS, so another node's checker takes other messages (docs/scaling.md).
        const now = Date.now();
        const batch = await this.ctx.storage.messageAuth.claimPending(
          BATCH,
          new Date(now).toISOString(),
          new Date(now + CLAIM_MS).toISOString(),
          this.node,
        );
        if (batch.length === 0 || this.stopped) break;
        const started = performance.now();
        const done: Array<[PendingAuth, AuthAnalysis]> = [];
        for (let i = 0; i < batch.length; i += PARALLEL) {
          const slice = batch.slice(i, i + PARALLEL);
          const results = await Promise.all(slice.map((p) => this.check(p, false)));
          slice.forEach((p, j) => done.push([p, results[j]!]));
        }
        if (this.stopped) break;
        // One commit for the batch: a commit per message would cost ingest a third of its rate.
        await this.ctx.storage.transaction(async (tx) => {
          for (const [p, a] of done) await tx.messageAuth.record(recordOf(p, a));
        });
        for (const [p] of done) this.published(p);
        if (Date.now() - this.lastArrival < BUSY_WINDOW_MS) {
          await Bun.sleep(((performance.now() - started) * (1 - BUSY_SHARE)) / BUSY_SHARE);
        }
        if (batch.length < BATCH) break;
      }
    } while (this.again && !this.stopped);
  }

  /** Checks one message (one check per message at a time); stores the result unless the caller batches it. */
  private check(p: PendingAuth, store = true): Promise<AuthAnalysis> {
    const running = this.inFlight.run(p.message_id, () => this.authenticate(p));
    if (!store) return running;
    return running.then(async (a) => {
      if (this.stopped) return a;
      await this.ctx.storage.messageAuth.record(recordOf(p, a));
      this.published(p);
      return a;
    });
  }

  private published(p: PendingAuth): void {
    this.ctx.bus.publish({ type: "message.analysed", projectId: p.project_id, inboxId: p.inbox_id, messageId: p.message_id });
  }

  /** Never throws: a check that cannot run is recorded as such (so the queue always moves on). */
  private async authenticate(p: PendingAuth): Promise<AuthAnalysis> {
    const base = { client_ip: p.client_ip, helo: p.helo, checked_at: new Date().toISOString() };
    let timer: ReturnType<typeof setTimeout> | undefined;
    let raw: Awaited<ReturnType<typeof this.ctx.storage.blobs.stream>> = null;
    // A large message's check counts as large work: the memory it churns is given back after it too.
    const size = (await this.ctx.storage.blobs.size(p.blob_key)) ?? 0;
    const ended = size >= LARGE_MESSAGE_BYTES ? largeMessageStarted(size) : () => {};
    try {
      // A stream of file reads, not the whole message: mailauth hands a Buffer on in setImmediate
      // steps, which Bun runs back to back, so a 24 MB message held the event loop ~0.7 s
      // (/healthz with it); file reads yield between chunks and hold 64 KiB, not 24 MB.
      raw = await this.ctx.storage.blobs.stream(p.blob_key);
      if (!raw) return { ...unchecked("the raw message is gone"), ...base };
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new CheckTimeout()), CHECK_TIMEOUT_MS);
      });
      const result = await Promise.race([
        authenticate(raw, {
          ip: p.client_ip ?? undefined,
          helo: p.helo ?? undefined,
          sender: p.envelope_from ?? undefined,
          // An import has no SMTP client: judge it by its own newest Received header, as the
          // server that received it did.
          trustReceived: p.client_ip === null,
          mta: this.ctx.config.publicHost,
          resolver: this.dns.resolve as never,
          disableBimi: true,
        }),
        timeout,
      ]);
      return { ...summarise(result), ...base };
    } catch (e) {
      const reason =
        e instanceof CheckTimeout
          ? `the checks took over ${CHECK_TIMEOUT_MS / 1000} s (DNS not answering?)`
          : String((e as Error)?.message ?? e);
      if (!(e instanceof CheckTimeout)) log.warn({ err: e, messageId: p.message_id }, "auth check failed");
      return { ...unchecked(reason, "temperror"), ...base };
    } finally {
      clearTimeout(timer);
      raw?.destroy(); // a timed-out check must not keep its file open
      ended();
    }
  }
}

class CheckTimeout extends Error {}

function recordOf(p: PendingAuth, a: AuthAnalysis): MessageAuthRecord & { verdict: AuthAnalysis["verdict"] } {
  return {
    message_id: p.message_id,
    client_ip: p.client_ip,
    helo: p.helo,
    verdict: a.verdict,
    result_json: JSON.stringify(a),
    checked_at: a.checked_at,
  };
}

/** IPv4 clients reach a dual-stack listener as ::ffff:a.b.c.d; SPF's ip4: rules want a.b.c.d. */
function plainIp(ip: string): string {
  return ip.toLowerCase().startsWith("::ffff:") && ip.includes(".") ? ip.slice(7) : ip;
}

function unchecked(comment: string, result: Result = "none"): Omit<AuthAnalysis, "client_ip" | "helo" | "checked_at"> {
  return {
    verdict: "none",
    spf: { result, domain: null, comment },
    dkim: [],
    dmarc: { result, domain: null, policy: null, comment },
    arc: { result: "none", comment: null },
    headers: "",
  };
}

function summarise(r: AuthenticateResult): Omit<AuthAnalysis, "client_ip" | "helo" | "checked_at"> {
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
