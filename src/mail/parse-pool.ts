// Parsing off the event loop: a small pool of worker threads running src/mail/parse.ts, so the
// SMTP sessions, SQLite commits and HTTP requests on the main thread never wait behind MIME
// decoding and code extraction (a large message takes seconds; a 10 KB one most of a
// millisecond). Messages below `inlineBelow` bytes (INBOXD_PARSE_INLINE_BELOW: 64 KiB on two
// cores, where the hand-off costs more than it frees; docs/smtp.md) are parsed on the main
// thread. Workers start on first use. INBOXD_PARSE_WORKERS=0 parses everything in the main thread; a
// worker that fails to start or dies falls back to the same in-thread parse, so parsing never
// loses a message.
import { log } from "../lib/log";
import type { ParsedMessage } from "../mime/types";
import { parseMessage } from "../mime/parse";

// From source, the worker file sits next to this one. In the compiled executable
// (`bun build --compile src/main.ts src/services/parse-worker.ts`) entrypoints are embedded
// relative to their common root, src/.
const WORKER_SPEC = import.meta.path.includes("$bunfs") ? "./mail/parse-worker.ts" : new URL("./parse-worker.ts", import.meta.url).href;

interface Pending {
  resolve: (p: ParsedMessage) => void;
  reject: (e: unknown) => void;
  raw: Uint8Array;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
}

export class ParsePool {
  private slots: Slot[] = [];
  private nextId = 1;
  private closed = false;

  private started = false;

  constructor(
    private readonly size: number,
    private readonly inlineBelow: number,
  ) {}

  private spawn(): void {
    let worker: Worker;
    try {
      worker = new Worker(WORKER_SPEC);
    } catch (e) {
      log.error({ err: e }, "parse pool: worker unavailable, parsing in the main thread");
      return;
    }
    // Parsing must not keep the process alive on its own.
    (worker as any).unref?.();
    const slot: Slot = { worker, pending: new Map() };
    worker.onmessage = (e: MessageEvent<{ id: number; parsed?: ParsedMessage; error?: string }>) => {
      const p = slot.pending.get(e.data.id);
      if (!p) return;
      slot.pending.delete(e.data.id);
      if (e.data.parsed) p.resolve(e.data.parsed);
      else p.reject(new Error(e.data.error ?? "parse failed"));
    };
    const fail = (why: unknown) => {
      this.slots = this.slots.filter((s) => s !== slot);
      for (const p of slot.pending.values()) parseMessage(p.raw).then(p.resolve, p.reject);
      slot.pending.clear();
      if (!this.closed) {
        log.error({ err: why }, "parse pool: worker failed; replacing it");
        setTimeout(() => !this.closed && this.slots.length < this.size && this.spawn(), 1000);
      }
    };
    worker.onerror = (e) => {
      fail(e);
      worker.terminate();
    };
    worker.addEventListener("close", () => fail("exited"));
    this.slots.push(slot);
  }

  parse(raw: Uint8Array): Promise<ParsedMessage> {
    if (this.size === 0 || raw.byteLength < this.inlineBelow) return parseMessage(raw);
    if (!this.started) {
      this.started = true;
      for (let i = 0; i < this.size; i++) this.spawn();
    }
    if (this.slots.length === 0) return parseMessage(raw);
    let slot = this.slots[0]!;
    for (const s of this.slots) if (s.pending.size < slot.pending.size) slot = s;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject, raw });
      // A copy: the SMTP buffer may be a view into a larger pooled allocation.
      slot.worker.postMessage({ id, raw: new Uint8Array(raw) });
    });
  }

  close(): void {
    this.closed = true;
    for (const s of this.slots) s.worker.terminate();
    this.slots = [];
  }
}
