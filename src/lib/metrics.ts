// Prometheus text exposition: request counts by route and status, latency histograms by route.
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

interface Hist {
  counts: number[];
  sum: number;
  count: number;
}

export class Metrics {
  private requests = new Map<string, number>();
  private latency = new Map<string, Hist>();
  private gauges = new Map<string, () => number>();
  private counters = new Map<string, number>();

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method}\u0000${route}\u0000${status}`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    const lk = `${method}\u0000${route}`;
    let h = this.latency.get(lk);
    if (!h) {
      h = { counts: BUCKETS.map(() => 0), sum: 0, count: 0 };
      this.latency.set(lk, h);
    }
    h.sum += seconds;
    h.count++;
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]!) h.counts[i]!++;
  }

  /** A named counter (e.g. inboxd_smtp_messages_accepted_total). */
  inc(name: string, by = 1): void {
    this.counters.set(name, (this.counters.get(name) ?? 0) + by);
  }

  gauge(name: string, read: () => number): void {
    this.gauges.set(name, read);
  }

  render(): string {
    const out: string[] = [];
    out.push("# HELP inboxd_http_requests_total HTTP requests by route and status.");
    out.push("# TYPE inboxd_http_requests_total counter");
    for (const [k, v] of this.requests) {
      const [m, r, s] = k.split("\u0000");
      out.push(`inboxd_http_requests_total{method="${m}",route="${esc(r!)}",status="${s}"} ${v}`);
    }
    out.push("# HELP inboxd_http_request_duration_seconds HTTP request latency by route.");
    out.push("# TYPE inboxd_http_request_duration_seconds histogram");
    for (const [k, h] of this.latency) {
      const [m, r] = k.split("\u0000");
      const labels = `method="${m}",route="${esc(r!)}"`;
      BUCKETS.forEach((b, i) => out.push(`inboxd_http_request_duration_seconds_bucket{${labels},le="${b}"} ${h.counts[i]}`));
      out.push(`inboxd_http_request_duration_seconds_bucket{${labels},le="+Inf"} ${h.count}`);
      out.push(`inboxd_http_request_duration_seconds_sum{${labels}} ${h.sum}`);
      out.push(`inboxd_http_request_duration_seconds_count{${labels}} ${h.count}`);
    }
    for (const [name, v] of this.counters) {
      out.push(`# TYPE ${name} counter`, `${name} ${v}`);
    }
    for (const [name, read] of this.gauges) {
      out.push(`# TYPE ${name} gauge`, `${name} ${read()}`);
    }
    return out.join("\n") + "\n";
  }
}

function esc(s: string): string {
  return s.replace(/\\/g, "\\\\").replace(/"/g, '\\"');
}
