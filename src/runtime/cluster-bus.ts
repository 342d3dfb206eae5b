// The event bus of a node that shares its database with others (docs/scaling.md "Cross-node
// mechanisms"): every event is delivered to this node's listeners at once, as LocalBus does, and
// sent through the storage's signals (PostgreSQL NOTIFY) to the other nodes, whose buses deliver
// it to their own listeners. A node hears its own signals too and drops them by node id, so no
// listener sees an event twice.
//
// Publishers publish after their commit, so a signal never announces a fact another node cannot
// read yet. It travels in its own statement right after that commit, not inside the transaction:
// a node dying between the two loses the wake-up, never the fact; readers parked on another node
// then answer at their timeout (long-poll wait, IDLE's periodic re-check, the dispatcher's sweep).
// Sending inside each transaction would mean threading the bus through every repository call.
import type { BusEvent, EventBus, Listener } from "../lib/bus";
import { LocalBus } from "../lib/bus";
import { log } from "../lib/log";
import type { NodeSignals } from "../storage";

/** NOTIFY refuses payloads of 8000 bytes or more; ids are far below, webhook lists may not be. */
const MAX_PAYLOAD = 7900;

interface Signal {
  /** The sending node (AppContext.workerId). */
  n: string;
  e: BusEvent;
}

export class ClusterBus implements EventBus {
  private readonly local = new LocalBus();
  private queue: string[] = [];
  private flushing: Promise<void> | null = null;
  private unlisten: (() => Promise<void>) | null = null;
  /** Events received from other nodes (for tests and /metrics-style diagnostics). */
  received = 0;

  private constructor(
    private readonly signals: NodeSignals,
    private readonly nodeId: string,
  ) {}

  /** A LocalBus when the storage has no signals (SQLite), else a ClusterBus already listening. */
  static async open(signals: NodeSignals | undefined, nodeId: string): Promise<EventBus & { close(): Promise<void> }> {
    if (!signals) return Object.assign(new LocalBus(), { close: async () => {} });
    const bus = new ClusterBus(signals, nodeId);
    let first = true;
    bus.unlisten = await signals.listen(
      (p) => bus.receive(p),
      () => {
        // After a reconnect, signals sent while this node was deaf are lost: wake what can catch up
        // by itself (the webhook dispatcher re-reads every pending delivery).
        if (!first) bus.local.publish({ type: "outbox.ready" });
        first = false;
      },
    );
    return bus;
  }

  publish(e: BusEvent): void {
    this.local.publish(e);
    let payload = JSON.stringify({ n: this.nodeId, e } satisfies Signal);
    if (payload.length > MAX_PAYLOAD && e.type === "outbox.ready")
      payload = JSON.stringify({ n: this.nodeId, e: { type: "outbox.ready" } });
    if (payload.length > MAX_PAYLOAD) {
      log.warn({ type: e.type }, "bus event too large to signal to other nodes");
      return;
    }
    this.queue.push(payload);
    this.flushing ??= this.flush();
  }

  subscribe(fn: Listener): () => void {
    return this.local.subscribe(fn);
  }

  /** Sends what is queued, then stops listening. */
  async close(): Promise<void> {
    await this.flushing;
    await this.unlisten?.();
    this.unlisten = null;
  }

  // One batch in flight at a time: the order this node published in is the order others receive.
  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      await this.signals.send(batch).catch((err) => log.warn({ err }, "could not signal other nodes (they catch up at their timeouts)"));
    }
    this.flushing = null;
  }

  private receive(payload: string): void {
    let s: Signal;
    try {
      s = JSON.parse(payload) as Signal;
    } catch {
      return;
    }
    if (s?.n === this.nodeId || typeof s?.e?.type !== "string") return;
    this.received++;
    this.local.publish(s.e);
  }
}
