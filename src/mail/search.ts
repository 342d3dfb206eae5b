// Search over received messages (docs/search.md): `q` on the inbox list, on the project-wide list
// (GET /v1/messages) and on the latest-message long-poll, and the lists' wait-for-count.
//
// The query is parsed by search-query.ts and evaluated by the message repository (full-text index
// and SQL filters). One rule decides whether a message matches, wherever it is asked: the
// repository's SQL. Lists run it over the inbox or project; waiters run the same SQL restricted to
// the ids of the messages that arrived (`matching`), so a just-stored message is judged exactly
// as a later list would judge it.
//
// Waiting is event-driven: a waiter listens for message.received of its inbox (or project) from
// the moment before its first query until it answers, so no arrival slips between a query and
// the wait; each arrival is checked by id. There is no polling loop. Every query first awaits
// storage.searchable(): the index is written just after the commit, and a search must see the
// mail already acknowledged.
import { notFound } from "../lib/errors";
import type { AppContext } from "../runtime/context";
import type { MessageSearch, SearchQuery } from "../storage/mail";
import type { MessageRow } from "./messages";

/** analysed: a check stored after the commit (auth:) may make an earlier message match now. */
type Arrival = { messageId: string; analysed: boolean } | { gone: true };

/** Wake-ups by scope: "i:<inbox id>" and "p:<project id>" hear message.received (and inbox.deleted). */
class Arrivals {
  private listeners = new Map<string, Set<(a: Arrival) => void>>();
  /** Listeners registered now: one per request waiting on a search (the long-poll gauge). */
  size = 0;

  constructor(ctx: AppContext) {
    ctx.bus.subscribe((e) => {
      if (e.type === "message.received" || e.type === "message.analysed") {
        const a = { messageId: e.messageId, analysed: e.type === "message.analysed" };
        this.fire(`i:${e.inboxId}`, a);
        this.fire(`p:${e.projectId}`, a);
      } else if (e.type === "inbox.deleted") {
        this.fire(`i:${e.inboxId}`, { gone: true });
      }
    });
  }

  private fire(key: string, a: Arrival): void {
    for (const fn of this.listeners.get(key) ?? []) fn(a);
  }

  listen(key: string, fn: (a: Arrival) => void): () => void {
    const set = this.listeners.get(key) ?? new Set();
    set.add(fn);
    this.listeners.set(key, set);
    this.size++;
    return () => {
      this.size--;
      set.delete(fn);
      if (set.size === 0) this.listeners.delete(key);
    };
  }
}

/** A parked waiter: collects arrivals; `next` resolves on an arrival, the deadline or an abort. */
class Waiter {
  readonly arrived: string[] = [];
  gone = false;
  /** A message already counted may have been analysed since: counting by arrivals alone would count it twice. */
  analysed = false;
  private wake: () => void = () => {};
  private readonly stop: () => void;

  /** hearsAnalysed: the query has an auth: term, so a check landing may change its answer. */
  constructor(arrivals: Arrivals, key: string, hearsAnalysed: boolean) {
    this.stop = arrivals.listen(key, (a) => {
      if ("gone" in a) this.gone = true;
      else if (a.analysed && !hearsAnalysed) return;
      else {
        this.arrived.push(a.messageId);
        if (a.analysed) this.analysed = true;
      }
      this.wake();
    });
  }

  /** Waits for an arrival unless one is already pending; false when the deadline passed or the client went. */
  async next(deadline: number, signal?: AbortSignal): Promise<boolean> {
    if (this.arrived.length || this.gone) return true;
    const remaining = deadline - Date.now();
    if (remaining <= 0 || signal?.aborted) return false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => this.wake();
    signal?.addEventListener("abort", onAbort, { once: true });
    await new Promise<void>((r) => {
      this.wake = r;
      timer = setTimeout(r, remaining);
    });
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    this.wake = () => {};
    return !signal?.aborted && (this.arrived.length > 0 || this.gone);
  }

  take(): string[] {
    return this.arrived.splice(0);
  }

  close(): void {
    this.stop();
  }
}

const usesAuth = (q: SearchQuery | null) => q?.terms.some((t) => t.kind === "auth") ?? false;

export interface ListArgs {
  projectId: string;
  /** null: every inbox of the project. */
  inboxId: string | null;
  query: SearchQuery | null;
  cursor: string | undefined;
  limit: number;
  /** Seconds to hold the answer for `min` matches (0..60). */
  wait?: number;
  /** Matches to wait for (1..100). */
  min?: number;
}

export class SearchService {
  private readonly arrivals: Arrivals;

  constructor(private readonly ctx: AppContext) {
    this.arrivals = new Arrivals(ctx);
  }

  /** Requests waiting on a search now (for /metrics). */
  waiting(): number {
    return this.arrivals.size;
  }

  /**
   * A newest-first page (`rows` may hold limit+1: toPage trims). With `wait` or `min`, the answer
   * is held until at least `min` (default 1) messages below the cursor match, or `wait` runs out;
   * `complete` says which (undefined when neither was asked).
   */
  async list(a: ListArgs, signal?: AbortSignal): Promise<{ rows: MessageRow[]; complete?: boolean }> {
    const search: MessageSearch = {
      projectId: a.projectId,
      inboxId: a.inboxId,
      query: a.query,
      before: a.cursor || null,
      order: "newest",
      limit: a.limit + 1,
    };
    await this.ctx.storage.searchable();
    if (a.wait === undefined && a.min === undefined) return { rows: await this.ctx.storage.messages.search(search) };
    const need = a.min ?? 1;
    const deadline = Date.now() + (a.wait ?? 0) * 1000;
    const waiter = new Waiter(this.arrivals, a.inboxId === null ? `p:${a.projectId}` : `i:${a.inboxId}`, usesAuth(a.query));
    let complete = false;
    try {
      let count = await this.ctx.storage.messages.countUpTo(search, need);
      for (;;) {
        if (count >= need) {
          complete = true;
          break;
        }
        if (!(await waiter.next(deadline, signal))) break;
        if (waiter.gone) {
          waiter.gone = false;
          // As the latest-message poll: an inbox deleted during the wait is a 404, not "nothing arrived".
          if (a.inboxId !== null && !(await this.ctx.storage.inboxes.inProject(a.projectId, a.inboxId))) throw notFound("inbox");
        }
        // New arrivals sit above any cursor: only a first page (no cursor) can gain them.
        const ids = waiter.take().filter((id) => !search.before || id < search.before);
        if (waiter.analysed) {
          waiter.analysed = false;
          await this.ctx.storage.searchable();
          count = await this.ctx.storage.messages.countUpTo(search, need);
        } else if (ids.length) {
          await this.ctx.storage.searchable();
          count += (await this.ctx.storage.messages.matching(a.projectId, ids, a.query)).length;
        }
      }
    } finally {
      waiter.close();
    }
    await this.ctx.storage.searchable();
    return { rows: await this.ctx.storage.messages.search(search), complete };
  }

  /**
   * The long-poll with a query (GET /v1/inboxes/{id}/messages/latest?q=): like LatestService.wait
   * (same baseline rule) but only a matching message counts; a non-matching arrival does not end
   * the wait. Null when none came in time, the inbox went, or the client hung up.
   */
  async latest(
    projectId: string,
    inboxId: string,
    query: SearchQuery,
    baseline: string | null,
    waitSeconds: number,
    signal?: AbortSignal,
  ): Promise<MessageRow | null> {
    const deadline = Date.now() + waitSeconds * 1000;
    const waiter = new Waiter(this.arrivals, `i:${inboxId}`, usesAuth(query));
    try {
      await this.ctx.storage.searchable();
      const [first] = await this.ctx.storage.messages.search({
        projectId,
        inboxId,
        query,
        after: baseline,
        order: baseline === null ? "newest" : "oldest",
        limit: 1,
      });
      if (first) return first;
      for (;;) {
        if (!(await waiter.next(deadline, signal))) return null;
        if (waiter.gone) {
          waiter.gone = false;
          if (!(await this.ctx.storage.inboxes.inProject(projectId, inboxId))) return null;
        }
        const ids = waiter.take().filter((id) => baseline === null || id > baseline);
        await this.ctx.storage.searchable();
        const [hit] = await this.ctx.storage.messages.matching(projectId, ids, query);
        if (hit) return hit;
      }
    } finally {
      waiter.close();
    }
  }
}
