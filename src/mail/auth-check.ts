// SPF, DKIM, DMARC and ARC of each received message (API.md "Analysis": GET
// /v1/messages/{id}/analysis/auth; docs/analysis.md), checked with mailauth against
// INBOXD_DNS_SERVERS (or the system's resolvers).
//
// "At receipt" without delaying the 250: the transaction that stores a message also queues its
// check with the SMTP client's IP and HELO (message_auth, verdict NULL); after the commit the bus
// wakes the checker, which checks a batch at a time (DNS answers cached, a bounded number at once)
// and stores the results. A restart picks up what was left (the scheduler's catch-up). Asking for
// a message still queued checks it at once. The stored verdict is what `auth:` searches.
// mailauth itself runs in a thread of its own (auth-thread.ts): on the event loop its ~0.4 ms per
// message was 5-7 % of the main thread's time during an SMTP burst, and all of it after one.
import { hostname } from "node:os";
import { resolve } from "node:path";
import { CachedDnsLookup } from "../lib/dns";
import { InFlight } from "../lib/ttl-cache";
import { DomainError } from "../lib/errors";
import { log } from "../lib/log";
import type { AppContext } from "../runtime/context";
import type { MessageAuthRecord, PendingAuth } from "../storage/mail";
import type { StoredInTxHook } from "./ingest";
import type { MessageService } from "./messages";
import { LARGE_MESSAGE_BYTES, largeMessageStarted } from "./memory-release";
import { type AuthAnalysis, type CheckEnvelope, type Findings, findings, unchecked } from "./auth-summary";
import { AuthCheckThread, ThreadGone, ThreadRestarted } from "./auth-thread";
import { HEADER_SCAN_LIMIT, headerOfUnsigned, headerTooLarge, prefixOf } from "./auth-input";

/** One DNS question: a resolver that does not answer in this time is tried once more. */
const DNS_TIMEOUT_MS = 1_500;
const BATCH = 32;
/** How long a claimed batch is this node's: longer than its DNS timeouts; a dead node's claims lapse after it. */
const CLAIM_MS = 120_000;
/** Checks in flight at once: each mostly waits on DNS. */
const PARALLEL = 8;
/**
 * While mail keeps arriving, checks take at most this share of the time, so that a burst is
 * captured at nearly full speed and checked right after it (mailauth costs ~0.4 ms of CPU per 10 KB
 * message: unthrottled, a burst on 2 cores was taken in a third more slowly). Since the checks
 * run in their own thread (auth-worker.ts) the share bounds what they take of the other core,
 * which the SMTP clients and the search index need too. A message asked for is checked at once
 * whatever the queue.
 */
const BUSY_SHARE = 0.05;
/** Mail arriving within this long counts as a burst. */
const BUSY_WINDOW_MS = 100;
/** During a burst, a drain that found nothing queued looks again no sooner than this. */
const IDLE_LOOK_MS = 20;

export class AuthCheckService {
  private readonly dns: CachedDnsLookup;
  private readonly thread: AuthCheckThread;
  private readonly inFlight = new InFlight<AuthAnalysis>();
  private draining: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** Resolved by stop(): ends a drain's rest at once. */
  private readonly stopping = Promise.withResolvers<void>();
  /** When the last message arrived (performance.now()). */
  private lastArrival = -Infinity;
  /** While mail arrives, the next drain starts no sooner than this (performance.now()): see BUSY_SHARE. */
  private restUntil = 0;
  private resting: ReturnType<typeof setTimeout> | null = null;
  private readonly node: string;

  constructor(
    private readonly ctx: AppContext,
    private readonly messages: MessageService,
  ) {
    this.dns = new CachedDnsLookup(ctx.config.dnsServers, DNS_TIMEOUT_MS);
    this.thread = new AuthCheckThread({ dnsServers: ctx.config.dnsServers, dnsTimeoutMs: DNS_TIMEOUT_MS });
    // Stable across restarts of this node (one process per data directory: storage/lock.ts), so a
    // restarted node takes back the checks it had claimed instead of waiting for the lease.
    this.node = `${hostname()}:${resolve(ctx.config.dataDir)}`;
    if (this.enabled) {
      ctx.bus.subscribe((e) => {
        if (e.type === "message.received") {
          this.lastArrival = performance.now();
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

  /**
   * Stops taking work. Checks still waiting on DNS are abandoned unrecorded: they stay queued for the
   * next start. Resolves once the drain running now has ended, so the storage may close after it.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.resting) clearTimeout(this.resting);
    this.resting = null;
    this.thread.stop();
    this.stopping.resolve();
    await this.draining;
  }

  private kick(): void {
    if (!this.enabled || this.stopped) return;
    if (this.draining || this.resting) {
      this.again = true;
      return;
    }
    // During a burst the share holds between drains too: without this every group commit's
    // message.received started a drain of its own few messages (a claim, a check, a commit each).
    if (this.mustRest()) {
      // Until the rest is over, or the burst is (whichever comes first): then kick() judges again.
      const wait = Math.min(this.restUntil, this.lastArrival + BUSY_WINDOW_MS) - performance.now();
      this.resting = setTimeout(
        () => {
          this.resting = null;
          this.kick();
        },
        Math.max(1, wait),
      );
      return;
    }
    this.draining = this.drainLoop()
      .catch((e) => {
        if (!this.stopped) log.error({ err: e }, "auth check drain failed");
      })
      .finally(() => {
        this.draining = null;
        if (this.again) this.kick();
      });
  }

  private async drainLoop(): Promise<void> {
    do {
      this.again = false;
      for (;;) {
        if (this.stopped) break;
        // Claimed for CLAIM_MS, so another node's checker takes other messages (docs/scaling.md).
        const now = Date.now();
        // In a transaction, so the claim's commit is flushed off the event loop like any other
        // (an autocommit write here fsynced the WAL on it, once per drain).
        const batch = await this.ctx.storage.transaction((tx) =>
          tx.messageAuth.claimPending(BATCH, new Date(now).toISOString(), new Date(now + CLAIM_MS).toISOString(), this.node),
        );
        if (batch.length === 0 || this.stopped) {
          // Nothing was waiting: during a burst, look again after a short while rather than at
          // every commit's message.received (each look is a statement on the event loop).
          this.restUntil = performance.now() + IDLE_LOOK_MS;
          break;
        }
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
        const rest = ((performance.now() - started) * (1 - BUSY_SHARE)) / BUSY_SHARE;
        this.restUntil = performance.now() + rest;
        if (batch.length < BATCH) break;
        if (this.inBurst()) await Promise.race([Bun.sleep(rest), this.stopping.promise]);
      }
    } while (this.again && !this.stopped && !this.mustRest());
  }

  /** Mail is arriving and the last batch's share of rest is not over: the next drain waits (kick). */
  private mustRest(): boolean {
    return this.restUntil > performance.now() && this.inBurst();
  }

  /** Mail arrived within the last BUSY_WINDOW_MS. */
  private inBurst(): boolean {
    return performance.now() - this.lastArrival < BUSY_WINDOW_MS;
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
    const env: CheckEnvelope = { ip: p.client_ip, helo: p.helo, sender: p.envelope_from, mta: this.ctx.config.publicHost };
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Typed by a cast, not narrowed to null: check() assigns it, and finally closes it.
    let raw = null as Awaited<ReturnType<typeof this.ctx.storage.blobs.stream>>;
    // A large message's check counts as large work: the memory it churns is given back after it too.
    const size = (await this.ctx.storage.blobs.size(p.blob_key)) ?? 0;
    const large = size >= LARGE_MESSAGE_BYTES;
    const ended = large ? largeMessageStarted(size) : () => {};
    let timedOut = false;
    const onThread = async (bytes: Uint8Array): Promise<Findings | null> => {
      for (;;) {
        try {
          const running = this.thread.run(bytes, env);
          if (running) return await running;
        } catch (e) {
          // Another check's timeout ended the thread: this one again, on a new thread. This one's own: done.
          if (e instanceof ThreadRestarted) {
            if (timedOut) return null;
            continue;
          }
          if (!(e instanceof ThreadGone)) throw e;
          // Stopped (the thread with it): abandoned, not checked again on the event loop.
          if (this.stopped) return null;
        }
        return findings(bytes, env, this.dns);
      }
    };
    const tooLarge = () =>
      unchecked(`the header section is over ${HEADER_SCAN_LIMIT / 1024} KiB: not checked (auth-input.ts, headerTooLarge)`, "permerror");
    const check = async (): Promise<Findings | null> => {
      if (!large) {
        // Nearly all mail: whole (or its header alone: auth-input.ts), to the check thread (mailauth's CPU off the event loop).
        const bytes = await this.ctx.storage.blobs.get(p.blob_key);
        if (bytes && headerTooLarge(bytes)) return tooLarge();
        return bytes && onThread(headerOfUnsigned(bytes) ?? bytes);
      }
      const start = await this.ctx.storage.blobs.stream(p.blob_key);
      const prefix = start && (await prefixOf(start, HEADER_SCAN_LIMIT));
      if (prefix && headerTooLarge(prefix)) return tooLarge();
      const header = prefix && headerOfUnsigned(prefix);
      if (header) return onThread(header);
      // Signed: a stream of file reads, not the whole message. mailauth hands a Buffer on in
      // setImmediate steps, which Bun runs back to back, so a 24 MB message held the event loop
      // ~0.7 s (/healthz with it); file reads yield between chunks and hold 64 KiB, not 24 MB.
      raw = await this.ctx.storage.blobs.stream(p.blob_key);
      return raw && findings(raw, env, this.dns);
    };
    try {
      const timeout = new Promise<never>((_, reject) => {
        // A whole check (SPF may follow up to ten lookups); past it, the result is a temperror.
        timer = setTimeout(() => reject(new CheckTimeout()), this.ctx.config.authCheckTimeoutMs);
      });
      const found = await Promise.race([check(), timeout]);
      return { ...(found ?? unchecked("the raw message is gone")), ...base };
    } catch (e) {
      if (e instanceof CheckTimeout) {
        // The check runs on (see AuthCheckThread.restart): end it rather than let it hold the thread.
        timedOut = true;
        this.thread.restart();
      }
      const reason =
        e instanceof CheckTimeout
          ? `the checks took over ${this.ctx.config.authCheckTimeoutMs / 1000} s (DNS not answering, or a header too large to check)`
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
