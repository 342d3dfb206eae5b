// The project event log and the live stream built on it. `emit` is the one door through which
// every capability announces something (message.received, inbox.expiring, run.finished, alerts …):
// it appends a row to `events` (what SSE replays from Last-Event-ID), lets the fan-outs (the
// webhook outbox) write their rows in the same transaction, and wakes listeners after commit.
import { inBatches } from "../lib/batches";
import { log } from "../lib/log";
import type { AppContext } from "../runtime/context";
import type { Repositories, Transaction } from "../storage";
import type { StoredEvent } from "../storage/events";
import { newId } from "../lib/ids";
import { nowIso } from "../lib/time";
import type { Principal } from "../tenancy/auth";
import { hasScope } from "../tenancy/scopes";
import type { StoredMessage } from "../mail/ingest";

export type { StoredEvent };

export interface EmitOptions {
  inboxId?: string | null;
  /** Only this user's streams see the event (alerts). */
  userId?: string | null;
  /** Webhook deliveries with the same key go out one at a time, in order (default: the inbox). */
  orderKey?: string;
  /** The message the event describes: the row is deleted with the message (migration 0024). */
  messageId?: string;
}

export interface AppendedEvent {
  id: string;
  projectId: string;
  type: string;
  inboxId: string | null;
  userId: string | null;
  data: Record<string, unknown>;
  occurredAt: string;
  orderKey: string;
}

/** How long the log keeps events: long enough for SSE resume and for every webhook retry (~28 h). */
export const EVENT_RETENTION_MS = 2 * 86_400_000;

/** Where appended events go next (the webhook outbox); bound by src/events/build.ts. */
export interface EventSinks {
  /** Called inside the emitting transaction with each appended event; uses only tx. */
  fanout(tx: Transaction, e: AppendedEvent): Promise<void>;
  /**
   * Whether a message event of this inbox will be delivered somewhere that needs the bodies (a
   * webhook); when not, the log stores no bodies (the stream omits them anyway, and they are in
   * the message itself).
   */
  bodiesWanted(repos: Repositories, projectId: string, inboxId: string): Promise<boolean>;
}

export class EventLog {
  constructor(
    private readonly ctx: AppContext,
    private readonly sinks: EventSinks,
  ) {}

  /** Appends an event in a transaction of its own (with its fan-out rows). */
  emit(projectId: string, type: string, data: Record<string, unknown>, opts: EmitOptions = {}): Promise<AppendedEvent> {
    return this.ctx.storage.transaction((tx) => this.emitInTx(tx, projectId, type, data, opts));
  }

  /**
   * Appends an event inside the caller's transaction: the row (and every fan-out row) commits or
   * rolls back with the caller's work. The bus wake-up waits for the commit (tx.afterCommit).
   */
  async emitInTx(
    tx: Transaction,
    projectId: string,
    type: string,
    data: Record<string, unknown>,
    opts: EmitOptions = {},
  ): Promise<AppendedEvent> {
    const ev: AppendedEvent = {
      id: newId(),
      projectId,
      type,
      inboxId: opts.inboxId ?? null,
      userId: opts.userId ?? null,
      data,
      occurredAt: nowIso(),
      orderKey: opts.orderKey ?? opts.inboxId ?? "",
    };
    await tx.appendEvent({
      id: ev.id,
      projectId,
      type,
      inboxId: ev.inboxId,
      userId: ev.userId,
      data: JSON.stringify(data),
      occurredAt: ev.occurredAt,
      messageId: opts.messageId ?? null,
    });
    await this.sinks.fanout(tx, ev);
    tx.afterCommit(() => this.ctx.bus.publish({ type: "event.appended", projectId, eventId: ev.id }));
    return ev;
  }

  /** The event a message.received webhook/stream carries: the parsed message with links to the rest. Inside tx. */
  async messageReceived(m: StoredMessage, tx: Transaction): Promise<AppendedEvent> {
    const data = messageEventData(m, this.baseUrl());
    if (!(await this.sinks.bodiesWanted(tx, m.projectId, m.inbox.id))) {
      delete data.text;
      delete data.html;
    }
    return this.emitInTx(tx, m.projectId, "message.received", data, { inboxId: m.inbox.id, messageId: m.message.id });
  }

  baseUrl(): string {
    return publicBaseUrl(this.ctx);
  }

  lastSeq(projectId: string): Promise<number> {
    return this.ctx.storage.eventLog.lastSeq(projectId);
  }

  /** Events after `seq` that this user (null: an API key) may see, oldest first. */
  after(projectId: string, seq: number, userId: string | null, limit = 500): Promise<StoredEvent[]> {
    return this.ctx.storage.eventLog.after(projectId, seq, userId, limit);
  }

  /** Deletes what is past retention, in batches with other work between them (lib/batches.ts). */
  prune(now = Date.now()): Promise<number> {
    const before = new Date(now - EVENT_RETENTION_MS).toISOString();
    return inBatches(500, (limit) => this.ctx.storage.eventLog.prune(before, limit));
  }

  /**
   * A Server-Sent Events stream of the project: replays what follows `lastEventId` (the `seq` of
   * the last event the client saw) and then follows live, with a comment line as heartbeat.
   */
  async stream(
    principal: Principal,
    projectId: string,
    lastEventId: number | null,
    signal: AbortSignal,
  ): Promise<ReadableStream<Uint8Array>> {
    const enc = new TextEncoder();
    const userId = principal.userId;
    const heartbeatMs = this.ctx.config.sseHeartbeatMs;
    // An id beyond the newest event (the log was wiped, a CI instance started afresh while an EventSource kept its
    // id) resumes at "now": kept as it was, the stream stayed silent until the log caught up with it.
    const newest = await this.lastSeq(projectId);
    let cursor = lastEventId === null ? newest : Math.min(lastEventId, newest);
    let closed = false;
    let wake: (() => void) | null = null;
    /** An event was appended since the last read began (the read is async: a wake-up may come during it). */
    let poked = false;
    let drained: (() => void) | null = null;
    let unsubscribe: () => void = () => {};
    const stop = () => {
      closed = true;
      unsubscribe();
      wake?.();
      drained?.();
    };
    return new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          unsubscribe = this.ctx.bus.subscribe((e) => {
            if (e.type === "event.appended" && e.projectId === projectId) {
              poked = true;
              wake?.();
            } else if (e.type === "message.deleted" && e.projectId === projectId && visibleTo(principal, e.type)) {
              // Live only, without an id: a deletion is not in the log (a bulk delete would write a row per
              // message), so a resumed stream does not replay it; an open page still drops the message.
              const data = { id: e.messageId, inbox_id: e.inboxId };
              send(`event: message.deleted\ndata: ${JSON.stringify({ type: e.type, timestamp: new Date().toISOString(), data })}\n\n`);
            }
          });
          signal.addEventListener("abort", stop, { once: true });
          const send = (s: string) => {
            try {
              controller.enqueue(enc.encode(s));
            } catch {
              stop();
            }
          };
          send(`retry: 2000\n: connected, resuming after ${cursor}\n\n`);
          void (async () => {
            try {
              while (!closed) {
                // Backpressure: read on from the log only when the client has taken what it got.
                // The cursor lives in the database, so a slow client costs no memory here.
                if ((controller.desiredSize ?? 1) <= 0) {
                  await new Promise<void>((resolve) => (drained = resolve));
                  drained = null;
                  continue;
                }
                poked = false;
                const rows = await this.after(projectId, cursor, userId);
                // Stopped during the read (the credential was revoked, say): deliver nothing more.
                if (closed) break;
                let out = "";
                for (const r of rows) {
                  cursor = r.seq;
                  if (visibleTo(principal, r.type)) out += `id: ${r.seq}\nevent: ${r.type}\ndata: ${streamData(r)}\n\n`;
                }
                if (out) send(out);
                if (rows.length > 0 || poked || closed) continue;
                const woke = await new Promise<boolean>((resolve) => {
                  const t = setTimeout(() => resolve(false), heartbeatMs);
                  wake = () => {
                    clearTimeout(t);
                    resolve(true);
                  };
                });
                wake = null;
                if (!woke && !closed) send(`: heartbeat ${new Date().toISOString()}\n\n`);
              }
            } catch (e) {
              // The database went away under us (shutdown); the client reconnects with Last-Event-ID.
              if (!closed) log.error({ err: e }, "event stream stopped");
              stop();
            }
            try {
              controller.close();
            } catch {}
          })();
        },
        pull: () => drained?.(),
        cancel: () => stop(),
      },
      { highWaterMark: 8 },
    );
  }
}

/** The scope an API key needs to see a type of event on the stream (a device sees all). */
function visibleTo(p: Principal, type: string): boolean {
  const family = type.split(".")[0]!;
  const scope =
    family === "message"
      ? "messages:read"
      : family === "inbox"
        ? "inboxes:read"
        : family === "run" || family === "approval"
          ? "runs:read"
          : null;
  if (family === "alert") return p.kind === "device";
  return scope === null || hasScope(p.scopes, scope);
}

/** Stream frames carry the webhook envelope, minus the message bodies (fetch them when needed). */
function streamData(r: StoredEvent): string {
  let data = r.data;
  if (r.type === "message.received") {
    const d = JSON.parse(r.data);
    delete d.text;
    delete d.html;
    data = JSON.stringify(d);
  }
  return `{"id":${JSON.stringify(r.id)},"type":${JSON.stringify(r.type)},"timestamp":${JSON.stringify(r.occurred_at)},"data":${data}}`;
}

/** The base of absolute URLs in payloads: INBOXD_PUBLIC_URL, else the public host and the HTTP port. */
export function publicBaseUrl(ctx: AppContext): string {
  return ctx.config.publicUrl ?? `http://${ctx.config.publicHost}:${ctx.ports.http}`;
}

/** Bodies above this many characters are cut in webhook payloads (flagged *_truncated). */
const BODY_CAP = 512 * 1024;

export function messageEventData(m: StoredMessage, baseUrl: string): Record<string, unknown> {
  const p = m.parsed;
  const msgUrl = `${baseUrl}/v1/messages/${m.message.id}`;
  return {
    id: m.message.id,
    inbox_id: m.inbox.id,
    inbox_address: m.inbox.address,
    from: p.from,
    to: p.to,
    cc: p.cc,
    envelope: { from: m.message.envelopeFrom, to: m.message.envelopeTo[0], rcpt_to: m.message.envelopeTo },
    subject: p.subject,
    preview: p.preview,
    text: p.text === null ? null : p.text.slice(0, BODY_CAP),
    text_truncated: (p.text?.length ?? 0) > BODY_CAP,
    html: p.html === null ? null : p.html.slice(0, BODY_CAP),
    html_truncated: (p.html?.length ?? 0) > BODY_CAP,
    has_text: p.text !== null,
    has_html: p.html !== null,
    links: p.links,
    codes: p.codes,
    message_id_header: p.messageId,
    sent_at: p.sentAt,
    received_at: m.message.receivedAt,
    expires_at: m.message.expiresAt,
    size_bytes: m.message.sizeBytes,
    attachment_count: p.attachments.length,
    attachments: p.attachments.map((a, i) => {
      const id = m.message.attachmentIds[i]!;
      return {
        id,
        filename: a.filename,
        content_type: a.servedContentType,
        declared_content_type: a.declaredContentType,
        disposition: a.disposition,
        content_id: a.contentId,
        size_bytes: a.size,
        sha256: a.sha256,
        download_url: `${msgUrl}/attachments/${id}`,
      };
    }),
    url: msgUrl,
    raw_url: `${msgUrl}/raw`,
  };
}
