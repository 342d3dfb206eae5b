// Sends the webhook outbox. Event-driven: a bus wake-up after each commit names the webhooks that
// got deliveries, a timer waits for the next due retry, and a slow scheduler sweep (a full scan of
// the enabled webhooks) catches what another worker left behind (a crash mid-send, a restart).
// Claims are one conditional write (claimed_until < now) returning the rows, so several workers on
// one database never send the same try twice.
//
// Concurrency: deliveries are not ordered (Standard Webhooks promises at-least-once, not order;
// receivers order by the payload's `sequence` or timestamp). Up to `webhookEndpointConcurrency`
// tries are in flight per webhook and `webhookConcurrency` in all, each delivery with its own retry
// schedule, so a failing delivery never holds back the ones after it.
//
// Cost independent of the backlog: a pump claims per webhook with an index probe
// (webhook_deliveries_pending), and the next due time is one per webhook too. A webhook that keeps
// failing opens its circuit: after CIRCUIT_THRESHOLD failures in a row nothing of it is tried until
// the circuit's time is up, then one probe; a success closes it. So an endpoint that is down or
// hangs costs the pump nothing while open, and ingest only ever writes rows.
import type { AppContext } from "../runtime/context";
import { newId } from "../lib/ids";
import { hostOf, log } from "../lib/log";
import { nowIso } from "../lib/time";
import { signedHeaders } from "../lib/standard-webhooks";
import { EgressError, guardedRequest } from "../lib/egress";
import type { Repositories } from "../storage";
import type { DeliveryOutcome, DispatchState } from "../storage/events";
import type { DeliveryRow, WebhookService } from "./webhooks";

const CLAIM_MARGIN_MS = 5_000;
const EXCERPT_BYTES = 1024;
/** Later retries grow 4x per try up to this many base delays (5 s base: 10 h). */
const MAX_DELAY_FACTOR = 7200;
/** The retry timer never sleeps longer than this (the sweep would catch it anyway). */
const MAX_TIMER_MS = 60_000;
/** Failed tries in a row that open a webhook's circuit. */
export const CIRCUIT_THRESHOLD = 5;
/** The circuit stays open base·2^k (k: times it opened in a row) up to the cap. */
const CIRCUIT_BASE_MS = 5_000;
const CIRCUIT_MAX_MS = 5 * 60_000;

interface Outcome {
  attempt: number;
  /** The try went out to a URL the project's HTTP origins admit: that origin's last_used_at moves. */
  usedOrigin: URL | null;
  ok: boolean;
  done: boolean;
  nextAt: number;
  status: number | null;
  error: string | null;
  excerpt: string | null;
  startedIso: string;
  duration: number;
}

/** The project's HTTP origins as webhooks see them (the automation layer keeps the list and its matching rule). */
export interface OriginUse {
  /** Whether the list admits the URL (a project without a list admits every URL). */
  admits(projectId: string, url: URL): Promise<boolean>;
  /** Records the use of whichever entry admits the URL. */
  recordUse(projectId: string, url: URL): Promise<boolean>;
}

export class WebhookDispatcher {
  /** Tries in flight per webhook, and in all. */
  private inflight = new Map<string, number>();
  private total = 0;
  /** Webhooks to look at in the next pump (null: all, a full scan). */
  private ready: Set<string> | null = null;
  /** What this process knows of each enabled webhook's circuit (refreshed by full scans and outcomes). */
  private circuits = new Map<string, DispatchState>();
  /** How often in a row each webhook's circuit opened (the next opening lasts twice as long). */
  private openings = new Map<string, number>();
  /** When each webhook next has something due (for the timer). */
  private dueAt = new Map<string, number>();
  private scheduled = false;
  private stopped = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private timerDue = Infinity;
  private readonly aborts = new Set<AbortController>();
  /** Tries not yet finished (their outcome recorded, or left to lapse at shutdown): stop() waits for them. */
  private readonly sending = new Set<Promise<void>>();
  private outcomes: { d: DeliveryRow; o: Outcome; resolve: () => void }[] = [];
  /** The pump running now (pumps never overlap: a claim must see the slots the previous one took). */
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly webhooks: WebhookService,
    /** The project's HTTP origins (a try to an admitted URL is its use). Called after the outcomes' transaction, never inside it. */
    private readonly origins: OriginUse,
  ) {
    ctx.bus.subscribe((e) => {
      // Only a written outbox row wakes the pump (webhooks.enqueue publishes outbox.ready after
      // its commit): waking on every message or event cost a claim query per message even in
      // projects without webhooks.
      if (e.type === "outbox.ready") this.wake(e.webhookIds);
    });
  }

  /** Pump on the next turn for these webhooks (none named: all); wake-ups in one turn cost one pump. */
  wake(webhookIds?: readonly string[]): void {
    if (this.stopped) return;
    if (!webhookIds) this.ready = null;
    else if (this.ready) for (const id of webhookIds) this.ready.add(id);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.pump(false);
    });
  }

  /** Claims what is due and may be sent now, and starts sending it. Never rejects. `full`: look at every webhook. */
  pump(full = true): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (full) this.ready = null;
    if (this.pumping) {
      // One more round once the running one is done (it may have read the queue before the new rows).
      this.pumpAgain = true;
      return this.pumping;
    }
    this.pumping = (async () => {
      do {
        this.pumpAgain = false;
        try {
          await this.pumpOnce();
        } catch (e) {
          // Only when the database is gone (shutdown) or broken; the sweep tries again later.
          log.error({ err: e }, "webhook dispatch pump failed");
        }
      } while (this.pumpAgain && !this.stopped);
    })().finally(() => {
      this.pumping = null;
    });
    return this.pumping;
  }

  private async pumpOnce(): Promise<void> {
    const storage = this.ctx.storage;
    // Taken before the first await: a wake during this round (a webhook named, or all of them) is
    // kept for the next one. Read after the awaits, a wake for all of them (null) that came during
    // the reads below was what this round then iterated ("webhook dispatch pump failed"), and lost.
    const named = this.ready;
    this.ready = new Set();
    let ids: Iterable<string>;
    if (named === null) {
      const states = await storage.webhooks.dispatchStates();
      this.circuits = new Map(states.map((w) => [w.id, w]));
      for (const id of this.dueAt.keys()) if (!this.circuits.has(id)) this.dueAt.delete(id);
      ids = this.circuits.keys();
    } else {
      // Named webhooks are read afresh (a primary-key read each): paused, resumed or disabled meanwhile.
      for (const id of named) {
        const w = await storage.webhooks.dispatchState(id);
        if (w) this.circuits.set(id, w);
        else this.circuits.delete(id);
      }
      ids = named;
    }
    const now = Date.now();
    const perWebhook = this.ctx.config.webhookEndpointConcurrency;
    // A fair share of the process-wide slots for each webhook that has work now: five receivers that hang
    // took 5 × 8 of the 32 slots for a whole timeout, and every healthy webhook waited behind them.
    const share = Math.max(1, Math.floor(this.ctx.config.webhookConcurrency / this.contenders(now, named)));
    for (const id of [...ids]) {
      const w = this.circuits.get(id);
      if (!w) {
        this.dueAt.delete(id); // disabled, paused or deleted: a resume or the sweep brings it back
        continue;
      }
      if (w.circuit_open_until > now) {
        this.dueAt.set(id, w.circuit_open_until);
        continue;
      }
      // Half-open (the circuit's time is up, no success since): one probe at a time.
      const cap = w.consecutive_failures >= CIRCUIT_THRESHOLD ? 1 : perWebhook;
      const mine = this.inflight.get(id) ?? 0;
      const free = Math.min(cap - mine, share - mine, this.ctx.config.webhookConcurrency - this.total);
      if (free <= 0) {
        // A finishing send wakes this webhook again.
        this.dueAt.delete(id);
        continue;
      }
      const claimed = await storage.webhookDeliveries.claim(this.ctx.workerId, id, now, this.claimUntil(now), free);
      // Stopped during the claim: these claims lapse, and the tries are made after the restart.
      if (this.stopped) return;
      for (const d of claimed) this.start(d);
      if (claimed.length < free) {
        const next = await storage.webhookDeliveries.nextDue(id);
        if (next === null) this.dueAt.delete(id);
        else this.dueAt.set(id, next);
      } else {
        this.dueAt.delete(id);
      }
    }
    this.armTimer();
  }

  /** Webhooks with work now: tries in flight, a try due, or woken for new work (`named`). */
  private contenders(now: number, named: Set<string> | null): number {
    const busy = new Set([...this.inflight.keys(), ...(named ?? [])]);
    for (const [id, at] of this.dueAt) if (at <= now) busy.add(id);
    return Math.max(1, busy.size);
  }

  private claimUntil(now: number): number {
    // Outlasts one try (timeout + time to record it); a crashed worker's claim lapses soon after.
    return now + this.ctx.config.webhookTimeoutMs + CLAIM_MARGIN_MS;
  }

  private start(d: DeliveryRow): void {
    this.total++;
    this.inflight.set(d.webhook_id, (this.inflight.get(d.webhook_id) ?? 0) + 1);
    void this.send(d).finally(() => {
      this.total--;
      const n = (this.inflight.get(d.webhook_id) ?? 1) - 1;
      if (n <= 0) this.inflight.delete(d.webhook_id);
      else this.inflight.set(d.webhook_id, n);
      // A slot is free: this webhook may have more due, and when the process-wide cap was the
      // limit, any webhook may.
      this.wake(this.total + 1 >= this.ctx.config.webhookConcurrency ? undefined : [d.webhook_id]);
    });
  }

  /** Sleeps until the earliest due time known (or a minute), then pumps the webhooks due by then. */
  private armTimer(): void {
    if (this.stopped) return;
    let next = Infinity;
    for (const t of this.dueAt.values()) next = Math.min(next, t);
    if (next === Infinity) return;
    const now = Date.now();
    const due = Math.max(now, Math.min(next + 1, now + MAX_TIMER_MS));
    if (this.timer && this.timerDue <= due) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.timerDue = Infinity;
      const at = Date.now();
      const ids = [...this.dueAt].filter(([, t]) => t <= at).map(([id]) => id);
      if (ids.length > 0) this.wake(ids);
      else this.armTimer();
    }, due - now);
  }

  /** One try of a claimed delivery; records the outcome and schedules the next try if any. */
  send(d: DeliveryRow): Promise<void> {
    // Stopped: the claim lapses and the try is made after the restart.
    if (this.stopped) return Promise.resolve();
    const p = this.sendOnce(d).finally(() => this.sending.delete(p));
    this.sending.add(p);
    return p;
  }

  private async sendOnce(d: DeliveryRow): Promise<void> {
    const wh = await this.ctx.storage.webhooks.byId(d.webhook_id);
    if (!wh) return; // deleted meanwhile; its deliveries went with it
    const body = d.payload ?? (await this.eventBody(d));
    const started = Date.now();
    const startedIso = new Date(started).toISOString();
    let status: number | null = null;
    let error: string | null = null;
    let excerpt: string | null = null;
    let usedOrigin: URL | null = null;
    /** The egress policy refused the address: no later try can do better (docs/webhooks.md). */
    let denied = false;
    if (body === null) {
      error = "event_pruned: the event is no longer in the log";
    } else if (!(await this.origins.admits(d.project_id, new URL(wh.url)))) {
      error = "origin_not_allowed: the url is not in the project's HTTP origins";
    } else {
      usedOrigin = new URL(wh.url);
      const ac = new AbortController();
      this.aborts.add(ac);
      try {
        // Through the egress guard (lib/egress.ts): the address connected to is one the policy
        // permits, redirects are not followed, and at most EXCERPT_BYTES of the answer are read.
        const res = await guardedRequest({
          method: "POST",
          url: usedOrigin,
          policy: this.ctx.egress.tenant,
          timeoutMs: this.ctx.config.webhookTimeoutMs,
          headers: {
            "content-type": "application/json",
            "user-agent": "inboxd-webhooks/1",
            ...signedHeaders(this.webhooks.signingSecrets(wh), d.id, body, started),
          },
          body,
          readBodyBytes: EXCERPT_BYTES,
          signal: ac.signal,
        });
        status = res.status;
        excerpt = new TextDecoder().decode(res.body);
      } catch (e) {
        const code = e instanceof EgressError ? e.code : "connect";
        const message = String((e as Error)?.message ?? e).slice(0, 300);
        if (code === "private_address") {
          denied = true;
          usedOrigin = null; // nothing went out
          error = `egress_denied: ${message}`;
        } else if (code === "timeout") error = `timeout: no complete answer within ${this.ctx.config.webhookTimeoutMs} ms`;
        else error = `network: ${message}`;
        // Cut short by stop(): the claim lapses and the try is made again after the restart. A try
        // that got its answer before is recorded (stop waits for that), or it would be sent twice.
        if (ac.signal.aborted) return;
      } finally {
        this.aborts.delete(ac);
      }
    }
    const duration = Date.now() - started;
    const ok = status !== null && status >= 200 && status < 300;
    if (!ok && error === null) error = `http_status: ${status}`;
    const attempt = d.attempts + 1;
    const done = ok || denied || attempt >= d.max_attempts;
    const nextAt = done ? d.next_attempt_at : Date.now() + this.backoff(attempt);
    this.report(d, wh.url, attempt, status, error, duration, done, nextAt);
    await new Promise<void>((resolve) => {
      this.outcomes.push({ d, o: { attempt, usedOrigin, ok, done, nextAt, status, error, excerpt, startedIso, duration }, resolve });
      if (this.outcomes.length === 1) setImmediate(() => void this.flushOutcomes());
    });
  }

  /** One log line and the series per try: the endpoint by host only (a path or query may carry a token). */
  private report(
    d: DeliveryRow,
    url: string,
    attempt: number,
    status: number | null,
    error: string | null,
    ms: number,
    done: boolean,
    nextAt: number,
  ): void {
    const ok = status !== null && status >= 200 && status < 300;
    const result = ok ? "success" : status !== null ? "failure" : "error";
    this.ctx.metrics.webhookAttempts.inc({ result });
    this.ctx.metrics.webhookDuration.observe(ms / 1000);
    const fields = {
      webhook: d.webhook_id,
      delivery: d.id,
      host: hostOf(url),
      attempt,
      status,
      ms,
      result,
      ...(ok ? {} : { error: error?.split(":")[0], next: done ? "none" : new Date(nextAt).toISOString() }),
    };
    if (ok) log.info(fields, "webhook attempt");
    else log.warn(fields, "webhook attempt");
  }

  /**
   * Group commit of outcomes: tries that finish in the same turn share one transaction (one
   * flush), so a busy dispatcher does not compete with ingest for the write lock once per send.
   */
  private async flushOutcomes(): Promise<void> {
    const batch = this.outcomes;
    this.outcomes = [];
    try {
      // By webhook (stable: one webhook's outcomes keep their order), so that the webhooks' rows are
      // locked in id order, as every transaction that writes several of them does on PostgreSQL.
      const byWebhook = [...batch].sort((x, y) => (x.d.webhook_id < y.d.webhook_id ? -1 : x.d.webhook_id > y.d.webhook_id ? 1 : 0));
      await this.ctx.storage.transaction(async (tx) => {
        for (const b of byWebhook) {
          if (!(await tx.webhookDeliveries.record(b.d, outcomeRecord(b.o)))) continue;
          await this.recordHealth(tx, b.d.webhook_id, b.o.ok);
        }
      });
      // One last_used_at write per origin per batch.
      const used = new Map<string, { projectId: string; url: URL }>();
      for (const b of batch)
        if (b.o.usedOrigin) used.set(`${b.d.project_id} ${b.o.usedOrigin.origin}`, { projectId: b.d.project_id, url: b.o.usedOrigin });
      for (const u of used.values()) {
        try {
          await this.origins.recordUse(u.projectId, u.url);
        } catch (e) {
          log.error({ err: e }, "webhook origin last_used_at not recorded"); // never costs the outcomes
        }
      }
    } catch (e) {
      log.error({ err: e }, "webhook delivery outcomes not recorded");
    }
    for (const b of batch) b.resolve();
  }

  /**
   * The endpoint's health after a try: a success closes its circuit; the CIRCUIT_THRESHOLD-th
   * failure in a row (and every failed probe after it) opens it for a doubling time.
   */
  private async recordHealth(tx: Repositories, webhookId: string, ok: boolean): Promise<void> {
    const at = nowIso();
    const known = this.circuits.get(webhookId);
    if (ok) {
      this.openings.delete(webhookId);
      await tx.webhooks.recordSuccess(webhookId, at);
      if (known) {
        known.consecutive_failures = 0;
        known.circuit_open_until = 0;
      }
      return;
    }
    const failures = await tx.webhooks.recordFailure(webhookId, at);
    let openUntil = known?.circuit_open_until ?? 0;
    const now = Date.now();
    // Tries that were in flight when the circuit opened fail after it: they do not extend it.
    if (failures >= CIRCUIT_THRESHOLD && openUntil <= now) {
      const opened = this.openings.get(webhookId) ?? 0;
      this.openings.set(webhookId, opened + 1);
      openUntil = now + Math.min(CIRCUIT_BASE_MS * 2 ** Math.min(opened, 16), CIRCUIT_MAX_MS);
      await tx.webhooks.setCircuit(webhookId, openUntil);
    }
    if (known) {
      known.consecutive_failures = failures;
      known.circuit_open_until = openUntil;
    }
  }

  private async eventBody(d: DeliveryRow): Promise<string | null> {
    const ev = d.event_id === null ? null : await this.ctx.storage.eventLog.byId(d.event_id);
    if (!ev) return null;
    return `{"type":${JSON.stringify(ev.type)},"timestamp":${JSON.stringify(ev.occurred_at)},"sequence":${d.seq},"data":${ev.data}}`;
  }

  /**
   * Delay before try `attempt + 1`: base·4^(attempt-1), capped, then jittered down to between half
   * and all of it, so the first retry comes within the base (5 s) and retries of a burst spread out.
   */
  backoff(attempt: number): number {
    const base = this.ctx.config.webhookBackoffBaseMs;
    const raw = Math.min(base * 4 ** (attempt - 1), base * MAX_DELAY_FACTOR);
    return Math.round(raw * (0.5 + Math.random() * 0.5));
  }

  /**
   * Shutdown: no new claims or timers; tries in flight are cut short (their claims lapse, and they
   * are made again after the restart). Resolves once the dispatcher no longer touches the storage:
   * the pump running now has ended and the outcomes of finished tries are recorded, so the storage
   * may close after it.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const ac of this.aborts) ac.abort(new Error("shutdown"));
    await Promise.allSettled([this.pumping, ...this.sending]);
  }
}

/** What the outbox keeps of a try (a lost claim means another worker's record counts). */
function outcomeRecord(o: Outcome): DeliveryOutcome {
  return {
    attemptId: newId(),
    attempt: o.attempt,
    status: o.ok ? "succeeded" : o.done ? "failed" : "pending",
    nextAttemptAt: o.nextAt,
    statusCode: o.status,
    error: o.ok ? null : o.error,
    completedAt: o.done ? nowIso() : null,
    ok: o.ok,
    excerpt: o.excerpt,
    startedAt: o.startedIso,
    durationMs: o.duration,
  };
}
