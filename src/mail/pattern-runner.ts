// Runs a caller's code pattern (mime/pattern.ts) with a hard time limit. A regular expression can
// backtrack for hours on 64 KB ("(a+)+$"), and a RegExp cannot be interrupted on the thread that
// runs it, so matching happens in a worker thread that is terminated (and replaced) when it runs
// past the limit; the caller gets 422. The worker is the parse worker's file (one entrypoint for
// `bun build --compile`), started on first use; jobs go one at a time, each timed from when it is
// handed to a worker that has said it is ready (loading the worker takes ~100 ms and is not the
// pattern's fault). Where no worker can start (or three in a row die before being ready), the
// match runs in this thread, bounded only by the 64 KB of text.
import { log } from "../lib/log";
import { validation } from "../lib/errors";
import { type CompiledPattern, matchPattern } from "../mime/pattern";

/** Hard limit on one pattern run over one message. */
export const PATTERN_TIME_LIMIT_MS = 250;
/** How long a new worker may take to load before it counts as failed. */
const START_TIMEOUT_MS = 10_000;

const WORKER_SPEC = import.meta.path.includes("$bunfs") ? "./mail/parse-worker.ts" : new URL("./parse-worker.ts", import.meta.url).href;

interface Job {
  id: number;
  pattern: CompiledPattern;
  text: string;
  resolve: (matches: string[]) => void;
  reject: (e: unknown) => void;
}

export class PatternRunner {
  private worker: Worker | null = null;
  private ready = false;
  private failedStarts = 0;
  private unavailable = false;
  private queue: Job[] = [];
  private current: { job: Job; timer: ReturnType<typeof setTimeout> } | null = null;
  private nextId = 1;

  constructor(private readonly limitMs = PATTERN_TIME_LIMIT_MS) {}

  /** The pattern's matches over `text`; 422 validation_error when it runs longer than the limit. */
  run(pattern: CompiledPattern, text: string): Promise<string[]> {
    if (this.unavailable || !this.start()) return Promise.resolve(this.inline(pattern, text));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, pattern, text, resolve, reject });
      this.pump();
    });
  }

  private start(): boolean {
    if (this.worker) return true;
    try {
      const w = new Worker(WORKER_SPEC);
      (w as any).unref?.();
      w.onmessage = (e: MessageEvent<{ id?: number; ready?: boolean; matches?: string[]; error?: string }>) => {
        if (e.data.ready) {
          this.ready = true;
          this.failedStarts = 0;
          this.pump();
          return;
        }
        const cur = this.current;
        if (!cur || cur.job.id !== e.data.id) return;
        clearTimeout(cur.timer);
        this.current = null;
        if (e.data.matches) cur.job.resolve(e.data.matches);
        else cur.job.reject(validation(`pattern failed: ${e.data.error ?? "unknown error"}`, { field: "pattern" }));
        this.pump();
      };
      const failed = () => {
        if (this.worker !== w) return; // already replaced (terminate() also ends in "close")
        if (!this.ready && ++this.failedStarts >= 3) {
          log.warn("pattern runner: the worker keeps failing to start; patterns run in the main thread");
          this.unavailable = true;
        }
        this.replace(new Error("pattern worker failed"));
      };
      w.onerror = failed;
      w.addEventListener("close", failed);
      // A worker that never says it is ready counts as failed to start.
      setTimeout(() => !this.ready && failed(), START_TIMEOUT_MS).unref?.();
      this.ready = false;
      this.worker = w;
      return true;
    } catch (e) {
      log.error({ err: e }, "pattern runner: no worker thread, patterns run in the main thread");
      this.unavailable = true;
      return false;
    }
  }

  private pump(): void {
    if (this.current || this.queue.length === 0) return;
    if (this.unavailable) {
      for (const j of this.queue.splice(0)) {
        try {
          j.resolve(this.inline(j.pattern, j.text));
        } catch (e) {
          j.reject(e);
        }
      }
      return;
    }
    if (!this.start() || !this.ready) return;
    const job = this.queue.shift()!;
    const timer = setTimeout(() => {
      this.replace(
        validation(`pattern ran longer than ${this.limitMs} ms over this message; simplify it (nested repetition backtracks)`, {
          field: "pattern",
          time_limit_ms: this.limitMs,
        }),
      );
    }, this.limitMs);
    this.current = { job, timer };
    this.worker!.postMessage({ id: job.id, pattern: job.pattern, text: job.text });
  }

  /** Ends the running job with `error`, terminates the worker and starts the queue on a new one. */
  private replace(error: unknown): void {
    const cur = this.current;
    this.current = null;
    if (cur) {
      clearTimeout(cur.timer);
      cur.job.reject(error);
    }
    this.worker?.terminate();
    this.worker = null;
    this.ready = false;
    this.pump();
  }

  private inline(pattern: CompiledPattern, text: string): string[] {
    return matchPattern(pattern, text);
  }

  close(): void {
    for (const j of this.queue) j.reject(new Error("closed"));
    this.queue = [];
    if (this.current) clearTimeout(this.current.timer);
    this.current = null;
    this.worker?.terminate();
    this.worker = null;
  }
}
