// Long-poll for the latest message of an inbox (GET /v1/inboxes/{id}/messages/latest).
// Baseline rule (docs/long-poll.md): without `after` or `poll_token`, the newest message counts
// and is returned at once; with a baseline, the OLDEST message newer than it is returned, so a
// client that keeps passing back the poll_token sees every message exactly once, in order.
// Waiting is event-driven: a waiter is parked per inbox and woken by the bus when ingest commits.
import type { AppContext } from "../runtime/context";
import { DomainError } from "../lib/errors";
import { isUlid } from "../lib/ids";
import type { MessageRow, MessageService } from "./messages";

const TOKEN_PREFIX = "m1.";

export function encodePollToken(messageId: string): string {
  return Buffer.from(TOKEN_PREFIX + messageId).toString("base64url");
}

/** The message id a poll_token stands for; 422 when it is not one of ours. */
export function decodePollToken(token: string): string {
  let text = "";
  try {
    text = Buffer.from(token, "base64url").toString("utf8");
  } catch {}
  const id = text.startsWith(TOKEN_PREFIX) ? text.slice(TOKEN_PREFIX.length) : "";
  if (!isUlid(id))
    throw new DomainError("invalid", "validation_error", "poll_token is not a token this service issued", { field: "poll_token" });
  return id;
}

export class LatestService {
  private waiters = new Map<string, Set<() => void>>();
  private parked = 0;

  constructor(
    ctx: AppContext,
    private readonly messages: MessageService,
  ) {
    ctx.bus.subscribe((e) => {
      if (e.type === "message.received" || e.type === "inbox.deleted") this.wake(e.inboxId);
    });
  }

  private wake(inboxId: string): void {
    const set = this.waiters.get(inboxId);
    if (!set) return;
    this.waiters.delete(inboxId);
    for (const fn of set) fn();
  }

  /** Requests in a long poll now (for /metrics). */
  waiting(): number {
    return this.parked;
  }

  /** Effective baseline: the later of `after` and the poll_token's message (null = none). */
  baseline(after: string | undefined, pollToken: string | undefined): string | null {
    const ids = [after, pollToken === undefined ? undefined : decodePollToken(pollToken)].filter((x): x is string => !!x);
    return ids.length === 0 ? null : ids.sort().at(-1)!;
  }

  /**
   * Waits up to waitSeconds for a qualifying message; null when none came (or the inbox went,
   * or the client hung up). `stillThere` re-checks the inbox after each wake-up.
   */
  async wait(
    inboxId: string,
    baseline: string | null,
    waitSeconds: number,
    stillThere: () => Promise<boolean> | boolean,
    signal?: AbortSignal,
  ): Promise<MessageRow | null> {
    const deadline = Date.now() + waitSeconds * 1000;
    this.parked++;
    try {
      return await this.waitLoop(inboxId, baseline, deadline, stillThere, signal);
    } finally {
      this.parked--;
    }
  }

  private async waitLoop(
    inboxId: string,
    baseline: string | null,
    deadline: number,
    stillThere: () => Promise<boolean> | boolean,
    signal?: AbortSignal,
  ): Promise<MessageRow | null> {
    for (;;) {
      // Register before querying: a commit that lands while the query runs wakes this waiter
      // (bus events are published after the commit), so none slips between the two.
      let wakeUp!: () => void;
      const woken = new Promise<void>((r) => (wakeUp = r));
      const set = this.waiters.get(inboxId) ?? new Set();
      set.add(wakeUp);
      this.waiters.set(inboxId, set);
      try {
        const m = await this.messages.nextAfter(inboxId, baseline);
        if (m) return m;
        if (!(await stillThere())) return null;
        const remaining = deadline - Date.now();
        if (remaining <= 0 || signal?.aborted) return null;
        let timer: ReturnType<typeof setTimeout> | undefined;
        const onAbort = () => wakeUp();
        signal?.addEventListener("abort", onAbort, { once: true });
        await Promise.race([woken, new Promise<void>((r) => (timer = setTimeout(r, remaining)))]);
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        if (signal?.aborted) return null;
      } finally {
        const cur = this.waiters.get(inboxId);
        cur?.delete(wakeUp);
        if (cur && cur.size === 0) this.waiters.delete(inboxId);
      }
    }
  }
}
