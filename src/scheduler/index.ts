// Periodic jobs inside the binary (expiry, retention, webhook retries, run recovery …). Each job is
// written to be safe when several workers run it against one database: it claims rows with a
// single UPDATE … WHERE claimed_until < now, or its effect is idempotent (deleting what has expired).
import { log } from "../lib/log";
import type { AppContext } from "../runtime/context";
import type { Services } from "../services";

export interface Job {
  name: string;
  /** The pause between runs: fixed, or read from the configuration. */
  everyMs: number | ((ctx: AppContext) => number);
  run(ctx: AppContext, s: Services): Promise<unknown> | unknown;
}

export class Scheduler {
  /** The pending timer of each job (one per job; replaced on every tick). */
  private timers = new Map<string, ReturnType<typeof setTimeout>>();
  private running = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly s: Services,
    private readonly jobs: Job[],
  ) {}

  start(): void {
    for (const job of this.jobs) this.loop(job, 0);
  }

  private loop(job: Job, delay: number): void {
    if (this.stopped) return;
    const timer = setTimeout(async () => {
      const p = (async () => {
        try {
          await job.run(this.ctx, this.s);
        } catch (e) {
          log.error({ err: e }, `job ${job.name} failed`);
        }
      })();
      this.running.add(p);
      await p;
      this.running.delete(p);
      this.loop(job, typeof job.everyMs === "function" ? job.everyMs(this.ctx) : job.everyMs);
    }, delay);
    this.timers.set(job.name, timer);
  }

  /** Runs one job now (used by tests through the server's own code paths, and at start-up catch-up). */
  async runNow(name: string): Promise<void> {
    const job = this.jobs.find((j) => j.name === name);
    if (job) await job.run(this.ctx, this.s);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    await Promise.allSettled([...this.running]);
  }
}
