// The event loop's side of the check thread (auth-worker.ts): one worker, started at the first
// check, answers matched by id. run() gives null when no thread can run, and a check the thread
// took when it died rejects with ThreadGone: the caller then checks on the event loop, as before
// the thread existed, so a check is never lost to it.
import { log } from "../lib/log";
import type { CheckEnvelope, Findings } from "./auth-summary";
import type { CheckAnswer, CheckJob, CheckSetup } from "./auth-worker";

// In the compiled executable, entrypoints are embedded relative to src/ (see parse-pool.ts).
const WORKER_SPEC = import.meta.path.includes("$bunfs") ? "./mail/auth-worker.ts" : new URL("./auth-worker.ts", import.meta.url).href;

export class ThreadGone extends Error {}
/** The thread was ended to stop a check that ran past its time (restart()); the others are sent again. */
export class ThreadRestarted extends Error {}

export class AuthCheckThread {
  private worker: Worker | null = null;
  private unavailable = false;
  private readonly pending = new Map<number, { resolve: (f: Findings) => void; reject: (e: unknown) => void }>();
  private nextId = 1;

  constructor(private readonly setup: CheckSetup) {}

  run(raw: Uint8Array, env: CheckEnvelope): Promise<Findings> | null {
    const w = this.thread();
    if (!w) return null;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      w.postMessage({ id, raw, env } satisfies CheckJob);
    });
  }

  /**
   * Ends the thread with every check it holds: a check past its time (mailauth is quadratic in a header's
   * folded lines: 500,000 of them spun a core for a quarter of an hour) does not stop on its own, and the
   * checks queued behind it would all time out. They reject with ThreadRestarted; the next run() starts a
   * new thread.
   */
  restart(): void {
    this.end(this.worker, new ThreadRestarted());
  }

  stop(): void {
    this.unavailable = true;
    this.end(this.worker, new ThreadGone("stopped"));
  }

  private thread(): Worker | null {
    if (this.worker || this.unavailable) return this.worker;
    let w: Worker;
    try {
      w = new Worker(WORKER_SPEC);
    } catch (e) {
      log.error({ err: e }, "auth check: thread unavailable; checking on the event loop");
      this.unavailable = true;
      return null;
    }
    // Checks must not keep the process alive on their own.
    (w as any).unref?.();
    w.onmessage = (e: MessageEvent<CheckAnswer>) => {
      const p = this.pending.get(e.data.id);
      if (!p) return;
      this.pending.delete(e.data.id);
      if ("findings" in e.data) p.resolve(e.data.findings);
      else p.reject(new Error(e.data.error));
    };
    const fail = (why: unknown) => {
      if (this.worker !== w) return;
      log.error({ err: why }, "auth check: thread failed; checking on the event loop");
      this.unavailable = true;
      this.end(w, new ThreadGone(String(why)));
    };
    w.onerror = (e) => fail(e);
    w.addEventListener("close", () => fail("exited"));
    w.postMessage(this.setup satisfies CheckSetup);
    this.worker = w;
    return w;
  }

  /** Terminates `w`; the checks it held reject with `error` (ThreadGone: check on the event loop; ThreadRestarted: again). */
  private end(w: Worker | null, error: ThreadGone | ThreadRestarted): void {
    if (!w) return;
    this.worker = null;
    w.terminate();
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }
}
