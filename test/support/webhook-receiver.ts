// A real webhook receiver on 127.0.0.1 for tests and the bench, and an independent implementation
// of Standard Webhooks verification (WebCrypto, written from the specification, sharing nothing
// with src/lib/standard-webhooks.ts).
import type { Server } from "bun";

import { json, type Instance } from "./harness";

/** Registers a webhook through the API (201 or the test fails here, with the answer). */
export async function registerWebhook(inst: Instance, body: Record<string, unknown>, token?: string) {
  const r = await json(inst.api("/v1/webhooks", { method: "POST", json: body, token }));
  if (r.status !== 201) throw new Error(`create webhook: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data as { id: string; secret: string; [k: string]: any };
}

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: any;
  at: number;
}

/** What the receiver answers for a request: a status, optionally after a delay (ms), or hang. */
export interface Answer {
  status: number;
  delayMs?: number;
  hang?: boolean;
  body?: string;
}
export type Behaviour = (r: Received, nth: number) => Answer;

export class Receiver {
  readonly got: Received[] = [];
  /** Requests left unanswered (hang) whose client gave up on them: closed the connection. */
  readonly cutShort: Received[] = [];
  private behaviours = new Map<string, Behaviour>();
  private counts = new Map<string, number>();
  private waiters: Array<() => void> = [];
  private hanging: Array<() => void> = [];
  /** Highest number of requests being answered at the same time, per path. */
  readonly maxConcurrent = new Map<string, number>();
  private active = new Map<string, number>();
  server!: Server<undefined>;

  static async start(): Promise<Receiver> {
    const r = new Receiver();
    r.server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 60,
      fetch: (req) => r.handle(req),
    });
    return r;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.server.port}${path}`;
  }

  on(path: string, b: Behaviour): void {
    this.behaviours.set(path, b);
  }

  private async handle(req: Request): Promise<Response> {
    const path = new URL(req.url).pathname;
    const body = await req.text();
    const headers: Record<string, string> = {};
    req.headers.forEach((v, k) => (headers[k] = v));
    let parsed: any = null;
    try {
      parsed = JSON.parse(body);
    } catch {}
    const rec: Received = { path, headers, body, json: parsed, at: Date.now() };
    const nth = (this.counts.get(path) ?? 0) + 1;
    this.counts.set(path, nth);
    const act = (this.active.get(path) ?? 0) + 1;
    this.active.set(path, act);
    this.maxConcurrent.set(path, Math.max(this.maxConcurrent.get(path) ?? 0, act));
    try {
      const b: Answer = (this.behaviours.get(path) ?? (() => ({ status: 200 })))(rec, nth);
      if (b.hang) {
        // Record the try, then never answer (until the test ends).
        this.got.push(rec);
        this.notify();
        req.signal.addEventListener("abort", () => {
          this.cutShort.push(rec);
          this.notify();
        });
        await new Promise<void>((res) => this.hanging.push(res));
        return new Response("late", { status: 200 });
      }
      if (b.delayMs) await Bun.sleep(b.delayMs);
      this.got.push(rec);
      this.notify();
      return new Response(b.body ?? `ok ${nth}`, { status: b.status });
    } finally {
      this.active.set(path, (this.active.get(path) ?? 1) - 1);
    }
  }

  private notify(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  of(path: string): Received[] {
    return this.got.filter((g) => g.path === path);
  }

  /** Waits until `pred` holds for the requests received so far. */
  async waitFor<T>(pred: (got: Received[]) => T | false | null | undefined, timeoutMs = 15_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = pred(this.got);
      if (v) return v;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`receiver: condition not met within ${timeoutMs} ms; got ${this.got.map((g) => g.path).join(", ")}`);
      await new Promise<void>((res) => {
        const t = setTimeout(res, Math.min(left, 250));
        this.waiters.push(() => {
          clearTimeout(t);
          res();
        });
      });
    }
  }

  stop(): void {
    for (const h of this.hanging.splice(0)) h();
    this.server.stop(true);
  }
}

/** Standard Webhooks verification, straight from the spec, on WebCrypto. */
export async function verifyStandardWebhook(
  secret: string,
  headers: Record<string, string>,
  body: string,
  toleranceS = 300,
): Promise<boolean> {
  const id = headers["webhook-id"];
  const ts = headers["webhook-timestamp"];
  const sigs = headers["webhook-signature"];
  if (!id || !ts || !sigs) return false;
  if (Math.abs(Math.floor(Date.now() / 1000) - Number(ts)) > toleranceS) return false;
  if (!secret.startsWith("whsec_")) return false;
  const keyBytes = Uint8Array.from(atob(secret.slice("whsec_".length)), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${ts}.${body}`)));
  const expected = btoa(String.fromCharCode(...mac));
  return sigs.split(" ").some((s) => {
    const i = s.indexOf(",");
    return s.slice(0, i) === "v1" && s.slice(i + 1) === expected;
  });
}
