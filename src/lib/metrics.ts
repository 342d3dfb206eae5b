// Prometheus series (prom-client), one registry per server. Channels count what they see (HTTP
// requests, SMTP transactions, IMAP/POP3 log-ins, webhook attempts); figures that live elsewhere
// (pending webhook deliveries, messages stored, database size, long-poll waiters) are read at scrape
// time through the sources the server registers. The full list is in docs/operations.md.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** SMTP delivery (end of data → reply) and webhook tries: a few ms on a quiet disk, up to the timeouts. */
const IO_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** What the scrape reads from storage and services. A source that throws leaves its series out of that scrape. */
export interface MetricSources {
  storage?: () => Promise<{ messages: number; databaseBytes: number; webhookPending: number }>;
  longPollWaiters?: () => number;
}

export type LoginResult = "ok" | "failed";
export type WebhookResult = "success" | "failure" | "error";

export class Metrics {
  readonly registry = new Registry();
  private sources: MetricSources = {};

  private readonly httpRequests = this.counter("inboxd_http_requests_total", "HTTP requests by route and status.", [
    "method",
    "route",
    "status",
  ]);
  private readonly httpDuration = new Histogram({
    name: "inboxd_http_request_duration_seconds",
    help: "HTTP request latency by route.",
    labelNames: ["method", "route"],
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });

  /** Connections accepted, by protocol (smtp, lmtp, imap, pop3). */
  readonly connections = this.counter("inboxd_connections_total", "Mail protocol connections accepted, by protocol.", ["proto"]);
  /**
   * SMTP/LMTP transactions (one per DATA/BDAT end, or per refused MAIL/RCPT), by result: accepted
   * (250), refused (5xx) or deferred (4xx).
   */
  readonly smtpTransactions = this.counter("inboxd_smtp_transactions_total", "SMTP transactions by result (accepted, refused, deferred).", [
    "result",
  ]);
  readonly smtpRefusals = this.counter(
    "inboxd_smtp_refusals_total",
    "Refused MAIL and RCPT commands and connections refused by a chaos rule, by stage and reply code.",
    ["stage", "code"],
  );
  readonly smtpBytes = this.counter("inboxd_smtp_received_bytes_total", "Bytes of message data accepted over SMTP/LMTP.", []);
  readonly smtpDeliveryDuration = new Histogram({
    name: "inboxd_smtp_delivery_duration_seconds",
    help: "From the end of DATA to the reply (parse, store, commit).",
    buckets: IO_BUCKETS,
    registers: [this.registry],
  });
  /**
   * IMAP SEARCH values with no anchored word looked up in the index's vocabulary, by way: trigram
   * (one indexed MATCH) or walk (pages of the whole vocabulary: short fragments, an upgrade fill).
   */
  readonly imapTermLookups = this.counter(
    "inboxd_imap_search_term_lookups_total",
    "IMAP SEARCH fragments looked up in the full-text index's vocabulary, by way (trigram, walk).",
    ["via"],
  );
  readonly logins = this.counter("inboxd_logins_total", "IMAP and POP3 log-ins by protocol and result (ok, failed).", ["proto", "result"]);
  readonly webhookAttempts = this.counter(
    "inboxd_webhook_attempts_total",
    "Webhook delivery tries by result: success (2xx), failure (other status), error (no answer).",
    ["result"],
  );
  readonly webhookDuration = new Histogram({
    name: "inboxd_webhook_attempt_duration_seconds",
    help: "Duration of one webhook delivery try.",
    buckets: IO_BUCKETS,
    registers: [this.registry],
  });

  constructor() {
    // The event-loop lag is sampled every 100 ms, not prom-client's 10: its timer woke an idle server 100
    // times a second (half of its idle CPU). A stall of 100 ms or more is still always seen.
    collectDefaultMetrics({ register: this.registry, prefix: "inboxd_", eventLoopMonitoringPrecision: 100 });
    const sources = () => this.sources;
    let snapshot: Promise<{ messages: number; databaseBytes: number; webhookPending: number } | null> | null = null;
    // One storage read per scrape feeds three gauges.
    const storage = () =>
      (snapshot ??= (sources().storage?.() ?? Promise.resolve(null))
        .catch(() => null)
        .finally(() => setTimeout(() => (snapshot = null), 0)));
    const fromStorage = (
      name: string,
      help: string,
      pick: (s: { messages: number; databaseBytes: number; webhookPending: number }) => number,
    ) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        async collect() {
          const s = await storage();
          if (s) this.set(pick(s));
        },
      });
    fromStorage("inboxd_messages_stored", "Messages stored, all inboxes.", (s) => s.messages);
    fromStorage("inboxd_database_size_bytes", "Size of the database (pages in use times page size).", (s) => s.databaseBytes);
    fromStorage(
      "inboxd_webhook_deliveries_pending",
      "Webhook deliveries waiting in the outbox (due or backing off).",
      (s) => s.webhookPending,
    );
    new Gauge({
      name: "inboxd_long_poll_waiters",
      help: "Requests parked in a long poll (latest message, waits on a search).",
      registers: [this.registry],
      collect() {
        const read = sources().longPollWaiters;
        if (read) this.set(read());
      },
    });
  }

  /** Called by the server once storage and services exist. */
  setSources(sources: MetricSources): void {
    this.sources = sources;
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    this.httpRequests.inc({ method, route, status: String(status) });
    this.httpDuration.observe({ method, route }, seconds);
  }

  /** An SMTP/LMTP transaction's outcome by its reply code. */
  smtpResult(code: number): void {
    this.smtpTransactions.inc({ result: code < 400 ? "accepted" : code < 500 ? "deferred" : "refused" });
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private counter<L extends string>(name: string, help: string, labelNames: L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }
}
