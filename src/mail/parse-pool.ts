// Parsing off the event loop: a small pool of worker threads running src/mime/parse.ts, so the
// SMTP sessions, SQLite commits and HTTP requests on the main thread never wait behind MIME
// decoding and code extraction (a large message takes seconds; a 10 KB one most of a
// millisecond). Messages below `inlineBelow` bytes (INBOXD_PARSE_INLINE_BELOW: 64 KiB on two
// cores, where the hand-off costs more than it frees; docs/smtp.md) are parsed on the main
// thread, except those of a shape mailparser takes seconds over (mime/parse.ts,
// mailparserMayStall), which go to a worker whatever their size. Workers start on first use.
// INBOXD_PARSE_WORKERS=0 parses everything in the main thread; a worker that fails to start or
// dies falls back to the same in-thread parse, so parsing never loses a message.
//
// Memory: parsing holds about three times a message (its bytes, mailparser's decoded parts and
// strings, the attachments handed back), so what is handed to parsing at once is bounded by
// bytes (INBOXD_PARSE_BYTES, default 64 MiB); the rest waits here, in order, as a file name when
// the message was spooled (src/mail/incoming.ts): 40 queued 24 MB messages cost 40 paths, not
// 40 copies in a worker's message queue. A spooled message is read by the thread that parses it.
import { readFileSync } from "node:fs";
import { log } from "../lib/log";
import type { ParsedMessage } from "../mime/types";
import { mailparserMayStall, parseIfSimple, parseMessage, parseMessageWithMailparser } from "../mime/parse";
import type { MessageBytes } from "./incoming";
import { sizeOf } from "./incoming";

// From source, the worker file sits next to this one. In the compiled executable
// (`bun build --compile src/main.ts src/mail/parse-worker.ts`) entrypoints are embedded
// relative to their common root, src/.
const WORKER_SPEC = import.meta.path.includes("$bunfs") ? "./mail/parse-worker.ts" : new URL("./parse-worker.ts", import.meta.url).href;

interface Pending {
  resolve: (p: Parsed) => void;
  reject: (e: unknown) => void;
  raw: MessageBytes;
}

/** A parse's answer: the message, and the sha256 of its bytes when a worker took it (null: not taken). */
export interface Parsed {
  parsed: ParsedMessage;
  sha256: string | null;
}

/** What a worker is sent (a batch of these per postMessage) and what it answers. */
export type ParseJob = { id: number; raw: Uint8Array } | { id: number; path: string };
export interface ParseAnswer {
  id: number;
  parsed?: ParsedMessage;
  sha256?: string;
  error?: string;
}

/** In-thread parse of bytes in memory or in a spool file (`declined`: the fast path already said no). */
const parseHere = async (raw: MessageBytes, declined = false): Promise<Parsed> => {
  const bytes = raw instanceof Uint8Array ? raw : readFileSync(raw.path);
  return { parsed: await (declined ? parseMessageWithMailparser(bytes) : parseMessage(bytes)), sha256: null };
};

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
  /**
   * Jobs not yet sent: while a batch is in the worker, what arrives waits here and goes as the
   * next batch in one postMessage when the worker answers. Each postMessage wakes a thread, and
   * on two busy cores a wake per message cost the event loop more than the copy itself
   * (docs/benchmarks.md, "parse off the main thread").
   */
  backlog: ParseJob[];
  backlogTransfer: ArrayBuffer[];
  busy: boolean;
}

export class ParsePool {
  private slots: Slot[] = [];
  private nextId = 1;
  private closed = false;

  private started = false;
  /** Bytes being parsed now, and the parses waiting for room (FIFO). */
  private parsing = 0;
  private waiting: Array<{ bytes: number; go: () => void }> = [];

  constructor(
    private readonly size: number,
    private readonly inlineBelow: number,
    private readonly maxParsingBytes = Number.POSITIVE_INFINITY,
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
    const slot: Slot = { worker, pending: new Map(), backlog: [], backlogTransfer: [], busy: false };
    worker.onmessage = (e: MessageEvent<ParseAnswer[] | { ready: true }>) => {
      if (!Array.isArray(e.data)) return;
      slot.busy = false;
      this.send(slot);
      for (const a of e.data) {
        const p = slot.pending.get(a.id);
        if (!p) continue;
        slot.pending.delete(a.id);
        if (a.sha256 && !(p.raw instanceof Uint8Array)) p.raw.setKey(a.sha256);
        if (a.parsed) p.resolve({ parsed: a.parsed, sha256: a.sha256 ?? null });
        else p.reject(new Error(a.error ?? "parse failed"));
      }
    };
    const fail = (why: unknown) => {
      this.slots = this.slots.filter((s) => s !== slot);
      for (const p of slot.pending.values()) parseHere(p.raw).then(p.resolve, p.reject);
      slot.pending.clear();
      slot.backlog = [];
      slot.backlogTransfer = [];
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

  async parse(raw: MessageBytes): Promise<Parsed> {
    const bytes = sizeOf(raw);
    // Small mail skips the queue: the fast path reads text mail in a few tens of µs, mailparser the
    // rest in a few hundred; a hand-off to the worker costs the event loop more than that (~250 µs
    // for a 12 KB message with an attachment, docs/benchmarks.md). Except small mail of the shape
    // mailparser takes seconds over (mime/parse.ts mailparserMayStall): that goes to the worker.
    if (bytes < this.inlineBelow && raw instanceof Uint8Array) {
      const parsed = parseIfSimple(raw);
      if (parsed) return { parsed, sha256: null };
      if (this.size === 0 || !mailparserMayStall(raw)) return parseHere(raw, true);
    }
    await this.room(bytes);
    try {
      return await (this.size === 0 ? parseHere(raw) : this.inWorker(raw));
    } finally {
      this.parsing -= bytes;
      this.pump();
    }
  }

  /** Waits until `bytes` fit beside what is being parsed (a message larger than the limit parses alone). */
  private room(bytes: number): Promise<void> {
    if (this.waiting.length === 0 && (this.parsing === 0 || this.parsing + bytes <= this.maxParsingBytes)) {
      this.parsing += bytes;
      return Promise.resolve();
    }
    return new Promise((go) => this.waiting.push({ bytes, go }));
  }

  private pump(): void {
    while (this.waiting.length > 0) {
      const next = this.waiting[0]!;
      if (this.parsing !== 0 && this.parsing + next.bytes > this.maxParsingBytes) return;
      this.waiting.shift();
      this.parsing += next.bytes;
      next.go();
    }
  }

  private inWorker(raw: MessageBytes): Promise<Parsed> {
    if (!this.started) {
      this.started = true;
      for (let i = 0; i < this.size; i++) this.spawn();
    }
    if (this.slots.length === 0) return parseHere(raw);
    let slot = this.slots[0]!;
    for (const s of this.slots) if (s.pending.size < slot.pending.size) slot = s;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject, raw });
      if (raw instanceof Uint8Array) {
        // One copy, transferred (not cloned again): the caller keeps its bytes for the blob
        // write, and an LMTP message goes to several deliveries at once. A spool goes as its path.
        const copy = new Uint8Array(raw);
        slot.backlog.push({ id, raw: copy });
        slot.backlogTransfer.push(copy.buffer);
      } else slot.backlog.push({ id, path: raw.path });
      this.send(slot);
    });
  }

  /** Sends the slot's backlog as one batch unless a batch is in the worker already. */
  private send(slot: Slot): void {
    if (slot.busy || slot.backlog.length === 0) return;
    slot.busy = true;
    const jobs = slot.backlog;
    const transfer = slot.backlogTransfer;
    slot.backlog = [];
    slot.backlogTransfer = [];
    slot.worker.postMessage(jobs, transfer);
  }

  close(): void {
    this.closed = true;
    for (const s of this.slots) s.worker.terminate();
    this.slots = [];
  }
}
