// Sends the webhook outbox. Event-driven: a bus wake-up after each commit starts a pump, a timer
// waits for the next due retry, and a slow scheduler sweep catches what another worker left behind
// (a crash mid-send, a restart). Claims are one conditional write (claimed_until < now) returning the rows, so
// several workers on one database never send the same try twice.
//
// Isolation: every try has a timeout; at most `webhookConcurrency` sends are in flight, and at most
// PER_WEBHOOK of them for one webhook, so a receiver that hangs holds a few slots for a few seconds
// and nothing else (ingest only ever writes rows). Order: the claim takes only the oldest pending
// delivery of each (webhook, order key), so deliveries for one inbox arrive one after another.
import type { AppContext } from "../runtime/context";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import { signedHeaders } from "../lib/standard-webhooks";
import type { DeliveryOutcome } from "../storage/events";
import type { DeliveryRow, WebhookService } from "./webhooks";

const PER_WEBHOOK = 8;
const CLAIM_MARGIN_MS = 5_000;
const EXCERPT_BYTES = 1024;
/** Later retries grow 4x per try up to this many base delays (5 s base: 10 h). */
const MAX_DELAY_FACTOR = 7200;
/** The retry timer never sleeps longer than this (the sweep would catch it anyway). */
const MAX_TIMER_MS = 60_000;

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
  private inflight = new Map<string, number>();
  private total = 0;
  private scheduled = false;
  private stopped = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private timerDue = Infinity;
  private readonly aborts = new Set<AbortController>();
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
      if (e.type === "outbox.ready") this.wake();
    });
  }

  /** Pump on the next turn (several wake-ups in one turn cost one claim query). */
  wake(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.pump();
    });
  }

  /** Claims what is due and may be sent now, and starts sending it. Never rejects. */
  pump(): Promise<void> {
    if (this.stopped) return Promise.resolve();
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
          console.error("webhook dispatch pump failed", e);
        }
      } while (this.pumpAgain && !this.stopped);
    })().finally(() => (this.pumping = null));
    return this.pumping;
  }

  private async pumpOnce(): Promise<void> {
    const free = this.ctx.config.webhookConcurrency - this.total;
    if (free > 0) {
      const now = Date.now();
      const full = [...this.inflight].filter(([, n]) => n >= PER_WEBHOOK).map(([id]) => id);
      const claimed = await this.withinWebhookCap(await this.claim(now, free, full));
      for (const d of claimed) {
        this.total++;
        this.inflight.set(d.webhook_id, (this.inflight.get(d.webhook_id) ?? 0) + 1);
        void this.send(d).finally(() => {
          this.total--;
          const n = (this.inflight.get(d.webhook_id) ?? 1) - 1;
          if (n <= 0) this.inflight.delete(d.webhook_id);
          else this.inflight.set(d.webhook_id, n);
          this.wake();
        });
      }
    }
    await this.armTimer();
  }

  /** One claim can take several queue heads of one webhook; beyond its cap they go back. */
  private async withinWebhookCap(claimed: DeliveryRow[]): Promise<DeliveryRow[]> {
    const count = new Map<string, number>();
    const keep: DeliveryRow[] = [];
    const release: string[] = [];
    for (const d of claimed) {
      const n = (count.get(d.webhook_id) ?? this.inflight.get(d.webhook_id) ?? 0) + 1;
      count.set(d.webhook_id, n);
      if (n <= PER_WEBHOOK) keep.push(d);
      else release.push(d.id);
    }
    if (release.length > 0) await this.ctx.storage.webhookDeliveries.release(this.ctx.workerId, release);
    return keep;
  }

  private claim(now: number, limit: number, excluded: string[]): Promise<DeliveryRow[]> {
    // Outlasts one try (timeout + time to record it); a crashed worker's claim lapses soon after.
    // The engine writes claims without waiting for the disk (a lost claim only repeats a try).
    const until = now + this.ctx.config.webhookTimeoutMs + CLAIM_MARGIN_MS;
    return this.ctx.storage.webhookDeliveries.claim(this.ctx.workerId, now, until, excluded, limit);
  }

  /**
   * Sleeps until the earliest future try (or a minute), then pumps. Only queue heads count: rows
   * waiting behind a head in backoff are not due before it. A head already due here was left
   * unclaimed only for want of a free slot; a finishing send wakes the pump, and a slow timer backs it up.
   */
  private async armTimer(): Promise<void> {
    const next = await this.ctx.storage.webhookDeliveries.nextDue();
    const now = Date.now();
    if (next === null || this.stopped) return;
    // Due yet unclaimed: waiting for a slot; look again in a second in case no send finishes here.
    const due = next <= now ? now + 1000 : Math.min(next + 1, now + MAX_TIMER_MS);
    if (this.timer && this.timerDue <= due) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.timerDue = Infinity;
      this.wake();
    }, due - now);
  }

  /** One try of a claimed delivery; records the outcome and schedules the next try if any. */
  async send(d: DeliveryRow): Promise<void> {
    const wh = await this.ctx.storage.webhooks.byId(d.webhook_id);
    if (!wh) return; // deleted meanwhile; its deliveries went with it
    const body = d.payload ?? (await this.eventBody(d));
    const started = Date.now();
    const startedIso = new Date(started).toISOString();
    let status: number | null = null;
    let error: string | null = null;
    let excerpt: string | null = null;
    let usedOrigin: URL | null = null;
    if (body === null) {
      error = "event_pruned: the event is no longer in the log";
    } else if (!(await this.origins.admits(d.project_id, new URL(wh.url)))) {
      error = "origin_not_allowed: the url is not in the project's HTTP origins";
    } else {
      usedOrigin = new URL(wh.url);
      const ac = new AbortController();
      this.aborts.add(ac);
      const timer = setTimeout(() => ac.abort(new Error("timeout")), this.ctx.config.webhookTimeoutMs);
      try {
        const res = await fetch(wh.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "user-agent": "inboxd-webhooks/1",
            ...signedHeaders(this.webhooks.signingSecrets(wh), d.id, body, started),
          },
          body,
          redirect: "manual",
          signal: ac.signal,
        });
        status = res.status;
        excerpt = await readExcerpt(res);
      } catch (e) {
        error = ac.signal.aborted
          ? `timeout: no complete answer within ${this.ctx.config.webhookTimeoutMs} ms`
          : `network: ${String((e as any)?.message ?? e).slice(0, 300)}`;
      } finally {
        clearTimeout(timer);
        this.aborts.delete(ac);
      }
    }
    // Shutting down: leave the claim to lapse; the try is made again after the restart.
    if (this.stopped) return;
    const duration = Date.now() - started;
    const ok = status !== null && status >= 200 && status < 300;
    if (!ok && error === null) error = `http_status: ${status}`;
    const attempt = d.attempts + 1;
    const done = ok || attempt >= d.max_attempts;
    const nextAt = done ? d.next_attempt_at : Date.now() + this.backoff(attempt);
    await new Promise<void>((resolve) => {
      this.outcomes.push({ d, o: { attempt, usedOrigin, ok, done, nextAt, status, error, excerpt, startedIso, duration }, resolve });
      if (this.outcomes.length === 1) setImmediate(() => void this.flushOutcomes());
    });
  }

  /**
   * Group commit of outcomes: tries that finish in the same turn share one transaction (one
   * flush), so a busy dispatcher does not compete with ingest for the write lock once per send.
   */
  private async flushOutcomes(): Promise<void> {
    const batch = this.outcomes;
    this.outcomes = [];
    try {
      await this.ctx.storage.transaction(async (tx) => {
        for (const b of batch) await tx.webhookDeliveries.record(b.d, outcomeRecord(b.o));
      });
      // One last_used_at write per origin per batch.
      const used = new Map<string, { projectId: string; url: URL }>();
      for (const b of batch)
        if (b.o.usedOrigin) used.set(`${b.d.project_id} ${b.o.usedOrigin.origin}`, { projectId: b.d.project_id, url: b.o.usedOrigin });
      for (const u of used.values()) {
        try {
          await this.origins.recordUse(u.projectId, u.url);
        } catch (e) {
          console.error("webhook origin last_used_at not recorded", e); // never costs the outcomes
        }
      }
    } catch (e) {
      console.error("webhook delivery outcomes not recorded", e);
    }
    for (const b of batch) b.resolve();
  }

  private async eventBody(d: DeliveryRow): Promise<string | null> {
    const ev = d.event_id === null ? null : await this.ctx.storage.eventLog.byId(d.event_id);
    if (!ev) return null;
    return `{"type":${JSON.stringify(ev.type)},"timestamp":${JSON.stringify(ev.occurred_at)},"data":${ev.data}}`;
  }

  /** Delay before try `attempt + 1`: base·4^(attempt-1), capped, with ±20 % jitter. */
  backoff(attempt: number): number {
    const base = this.ctx.config.webhookBackoffBaseMs;
    const raw = Math.min(base * 4 ** (attempt - 1), base * MAX_DELAY_FACTOR);
    return Math.round(raw * (0.8 + Math.random() * 0.4));
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const ac of this.aborts) ac.abort(new Error("shutdown"));
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

async function readExcerpt(res: Response): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let n = 0;
  try {
    while (n < EXCERPT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      n += value.byteLength;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const all = new Uint8Array(Math.min(n, EXCERPT_BYTES));
  let off = 0;
  for (const c of chunks) {
    const take = Math.min(c.byteLength, all.byteLength - off);
    all.set(c.subarray(0, take), off);
    off += take;
    if (off >= all.byteLength) break;
  }
  return new TextDecoder().decode(all);
}
