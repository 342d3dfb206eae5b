// Per-inbox answers read on every delivery and rarely changed (its chaos rules at RCPT, the users
// watching it in the commit), kept in memory so the SMTP hot path does not run one query each per
// message (~45 µs of the event loop per message together, docs/benchmarks.md).
//
// Whoever changes one calls `inboxLookupChanged(bus, kind, inboxId)` after the commit: this node
// forgets it at once and the bus carries `inbox.lookups` to the other nodes
// (runtime/cluster-bus.ts), which forget it too. A signal lost on the way (a node deaf during a reconnect) is covered by the entry's age:
// nothing is served older than TTL_MS. A read that started before a change is not kept (the
// generation check), so a slow query cannot put the old answer back after the change.
import type { EventBus, InboxLookupKind } from "../lib/bus";

/** Longest an answer is served without being read again (covers a lost cross-node signal). */
const TTL_MS = 5_000;
/** Inboxes remembered at once; past it the oldest are read again when next asked for. */
const MAX_ENTRIES = 10_000;

export class InboxLookupCache<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();
  /** Bumped on every change: a read that saw another generation is answered but not kept. */
  private generation = 0;

  constructor(
    kind: InboxLookupKind,
    bus: EventBus,
    private readonly load: (inboxId: string) => Promise<V>,
  ) {
    bus.subscribe((e) => {
      if (e.type === "inbox.lookups" && e.kind === kind) this.forget(e.inboxId);
      // Cascades (an inbox deleted, a device or user gone: their watches with them) go too.
      else if (e.type === "inbox.deleted") this.forget(e.inboxId);
      else if (kind === "watchers" && e.type === "principal.revoked" && (e.kind === "device" || e.kind === "user")) this.forget(null);
    });
  }

  /** The answer for this inbox: from memory (no await) when known and fresh, else from `load` (e.g. in a transaction). */
  get(inboxId: string, load: (inboxId: string) => Promise<V> = this.load): V | Promise<V> {
    const hit = this.entries.get(inboxId);
    if (hit && Date.now() - hit.at < TTL_MS) return hit.value;
    const generation = this.generation;
    return load(inboxId).then((value) => {
      if (generation === this.generation) {
        this.entries.delete(inboxId);
        this.entries.set(inboxId, { value, at: Date.now() });
        if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      }
      return value;
    });
  }

  /** One inbox, or (null) every inbox. */
  private forget(inboxId: string | null): void {
    this.generation++;
    if (inboxId === null) this.entries.clear();
    else this.entries.delete(inboxId);
  }
}

/** After the commit of a change to this inbox's answer: forgotten here at once, on the other nodes through the bus. */
export function inboxLookupChanged(bus: EventBus, kind: InboxLookupKind, inboxId: string): void {
  bus.publish({ type: "inbox.lookups", kind, inboxId });
}
