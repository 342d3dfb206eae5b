// The one place a received message is stored, whichever channel delivers it (SMTP, or an HTTP
// import or composed message: import.ts). Durability first: the raw bytes and every attachment are
// fsynced into the blob store, then the rows (message + attachments, once per recipient inbox)
// are committed in one transaction, and only then does the caller get its answer (SMTP 250).
//
// Group commit: deliveries that reach the commit step while the previous group is committing
// (or in the same event-loop turn) share one storage transaction, which resolves once the commit
// is durable (the engine shares one flush among the transactions committed meanwhile), so the
// event loop never waits on the disk. Each delivery sits in its own savepoint, so one that fails
// (quota, a failing hook) does not take its neighbours down.
import { isTransientConflict } from "../lib/errors";
import { log } from "../lib/log";
import type { AppContext } from "../runtime/context";
import type { ParsedMessage } from "../mime/types";
import { ParsePool } from "./parse-pool";
import { newId } from "../lib/ids";
import { sha256Hex, type Transaction } from "../storage";
import { envelopeToColumn, type InboxRepository } from "../storage/mail";
import { pinBlob } from "./blob-refs";
import { planOf } from "../tenancy/plans";
import { withoutTag } from "./addresses";
import type { InboxRow } from "./inboxes";
import type { ProjectRef } from "../tenancy/auth";
import { InflightBudget } from "./inflight-budget";
import { IncomingMessage, type MessageBytes, sizeOf } from "./incoming";
import { largeMessageStarted } from "./memory-release";

const DAY_MS = 86_400_000;
const EMPTY = new Uint8Array(0);
/** Raw size from which the quota is checked before parsing too. */
const PRECHECK_ABOVE = 256 * 1024;
/** Longest a group commit waits for announced deliveries (see IngestService.announce). */
const GROUP_WAIT_MS = 2;
/**
 * A delivery announced longer ago than this is a slow client (a sender pausing between commands,
 * a large body on a slow link): groups stop waiting for it. Without this bound one such client,
 * always mid-transaction, made every group wait its full GROUP_WAIT_MS: 17-34 % fewer messages/s
 * for everyone else with sessions reused (docs/benchmarks.md, 2026-11-24 18:20-19:45). Clients
 * that keep up are announced for a round of the other senders' commands, a few ms.
 */
const ANNOUNCE_FRESH_MS = 10;

/** What storedInTx hooks see: enough to write an outbox row or an alert in the same transaction. */
export interface StoredMessage {
  message: {
    id: string;
    uid: number;
    inboxId: string;
    blobKey: string;
    sizeBytes: number;
    logicalSizeBytes: number;
    envelopeFrom: string | null;
    /** The envelope recipients this inbox was chosen by (Recipient.addresses). */
    envelopeTo: string[];
    receivedAt: string;
    expiresAt: string;
    attachmentIds: string[];
  };
  inbox: InboxRow;
  projectId: string;
  teamId: string;
  parsed: ParsedMessage;
  /** The SMTP client that handed the message over (null: an HTTP import or composed message). */
  receipt: Receipt | null;
}

/** Who handed a message over by SMTP: what SPF needs beside the envelope sender. */
export interface Receipt {
  clientIp: string;
  /** The EHLO/HELO/LHLO name (null if the client sent none). */
  helo: string | null;
}

export interface QuotaRefusal {
  inbox: InboxRow;
  kind: "inbox" | "team";
  projectId: string;
  teamId: string;
  usedBytes: number;
  quotaBytes: number;
  /** Size of the refused message (0 when refused at RCPT because the store is already full). */
  messageBytes: number;
}

/** Thrown when a delivery would go over a storage quota; SMTP maps it to 452/552. */
export class QuotaExceeded extends Error {
  constructor(readonly refusal: QuotaRefusal) {
    super(`${refusal.kind} storage quota exceeded (${refusal.usedBytes}/${refusal.quotaBytes} bytes)`);
  }
}

export interface Recipient {
  inbox: InboxRow;
  /**
   * The envelope addresses that selected this inbox, in RCPT order, each once: several when one
   * transaction names more addresses of one inbox (a catch-all, +tags). One message is stored for
   * them, as MTAs deliver one copy per mailbox; envelope_to records them all (storage/mail.ts).
   */
  addresses: string[];
  /** IMAP APPEND: where the message is filed and with what (absent: INBOX, flags clear, received now). */
  filing?: Filing;
}

/** An IMAP APPEND's placement (protocols/imap/commands/append.ts). */
export interface Filing {
  /** The mailbox (storage/imap-folders.ts); null: INBOX. */
  folderId: string | null;
  flags: { read: boolean; flagged: boolean; deleted: boolean };
  /** \Answered, \Draft and keywords, space-separated (protocols/imap/extra-flags.ts), or null. */
  extraFlags: string | null;
  /** The internal date the client gave (ISO), or null: now. */
  receivedAt: string | null;
}

export interface DeliveryResult {
  messageIds: string[];
  /** The UID each message got in its inbox, in the same order (IMAP APPENDUID). */
  uids: number[];
}

/** Answers may come synchronously or not (a cache, or a storage lookup). */
type MaybePromise<T> = Promise<T> | T;

/** Runs inside the transaction that stores the message (use only tx): an outbox row, an alert. */
export type StoredInTxHook = (m: StoredMessage, tx: Transaction) => Promise<void>;

interface PendingWrite {
  size: number;
  /** The project of each recipient (resolved before the transaction, which may await nothing else). */
  projects: ProjectRef[];
  /** raw, then each attachment's bytes; inline[i] says whether it is written in the transaction (a spooled raw never is). */
  blobs: MessageBytes[];
  inline: boolean[];
  blobKey: string;
  attachmentKeys: string[];
  parsed: ParsedMessage;
  envelopeFrom: string | null;
  recipients: Recipient[];
  receipt: Receipt | null;
  resolve: (stored: { ids: string[]; uids: number[] }) => void;
  reject: (e: unknown) => void;
}

export class IngestService {
  /** Extension points for other capabilities (webhooks outbox, alerts, catch-all domains). */
  readonly hooks = {
    /** Awaited in order inside the delivery's savepoint; a throw refuses that delivery. */
    storedInTx: [] as StoredInTxHook[],
    quotaRefused: [] as Array<(info: QuotaRefusal) => void | Promise<void>>,
  };
  /** Received bytes in flight, shared by every channel (INBOXD_INFLIGHT_BYTES). */
  readonly budget: InflightBudget;
  private queue: PendingWrite[] = [];
  private readonly parser: ParsePool;
  private flushScheduled = false;
  /**
   * A group is committing or waiting for its WAL flush. Deliveries that become ready meanwhile
   * wait and form the next group: one commit for all of them instead of one small commit each,
   * every one rewriting the same inbox, team and index pages. (Measured on 2 cores: ~15 % less
   * main-thread CPU per message and ~7 % more messages/s; the wait is one flush, which these
   * deliveries would have waited for anyway.) The count of groups open at once: one on SQLite,
   * storage.ingestGroups on an engine whose every statement is a round trip.
   */
  private committing = 0;
  /** Inboxes of the groups committing now, with how many deliveries to each. */
  private readonly openInboxes = new Map<string, number>();
  /** Deliveries announced but not yet queued (see announce), with when, oldest first (insertion order). */
  private readonly announced = new Map<number, number>();
  private announceSeq = 0;
  /** Mail clients connected now (attend). */
  private attending = 0;
  /** When the oldest delivery of the queue was queued (performance.now()). */
  private groupOpenedAt = 0;
  private groupTimer: ReturnType<typeof setTimeout> | null = null;
  private get groups(): number {
    return this.ctx.storage.ingestGroups ?? 1;
  }
  constructor(
    private readonly ctx: AppContext,
    private readonly projectOf: (id: string) => MaybePromise<ProjectRef | null>,
    /** Consulted in order when no inbox has the exact address (catch-all domains); the first non-null answer wins. */
    private readonly recipientResolvers: ReadonlyArray<(address: string) => MaybePromise<InboxRow | null>> = [],
  ) {
    this.parser = new ParsePool(ctx.config.parseWorkers, ctx.config.parseInlineBelow, ctx.config.parseBytes);
    this.budget = new InflightBudget(ctx.config.inflightBytes);
  }

  /** A message about to arrive (SMTP DATA, BDAT): collects its bytes, spooling large ones, charged to the budget. */
  incoming(maxBytes: number): IncomingMessage {
    const blobs = this.ctx.storage.blobs;
    return new IncomingMessage(blobs, this.budget, maxBytes, blobs.inlineMax);
  }

  /**
   * The live inbox an envelope address delivers to, or null (SMTP: 550 5.1.1). In order (API.md
   * "Capture of any recipient"): the inbox with that exact address; the inbox of the address
   * without its +tag (`box+tag@d` → `box@d`; the envelope keeps the tag); the resolvers (a custom
   * domain's catch-all); the instance's catch-all inbox unless INBOXD_CATCH_ALL=off.
   */
  async resolveRecipient(address: string): Promise<InboxRow | null> {
    const addr = address.trim().toLowerCase();
    const exact = await this.ctx.storage.inboxes.byAddress(addr);
    if (exact) return isLive(exact) ? exact : null;
    const untagged = withoutTag(addr);
    if (untagged !== addr) {
      const box = await this.ctx.storage.inboxes.byAddress(untagged);
      if (box) return isLive(box) ? box : null;
    }
    for (const resolve of this.recipientResolvers) {
      const inbox = await resolve(addr);
      if (inbox && isLive(inbox)) return inbox;
    }
    if (this.ctx.config.catchAll === "on") {
      const sink = await this.ctx.storage.inboxes.catchAll();
      if (sink && isLive(sink)) return sink;
    }
    return null;
  }

  /**
   * Refusal when the inbox or its team has no room left at all (RCPT time, before the bytes are
   * known), or, given bytes, no room for that many more. Raises the quotaRefused hooks; returns
   * null when there is room.
   */
  async checkRoom(inbox: InboxRow, bytes = 0): Promise<QuotaRefusal | null> {
    const project = await this.projectOf(inbox.projectId);
    if (!project) return null;
    // With bytes (IMAP COPY) the caller's row may be a session's old copy: the usage is read again.
    const current = bytes > 0 ? ((await this.ctx.storage.inboxes.byId(inbox.id)) ?? inbox) : inbox;
    const refusal = await this.quotaCheck(this.ctx.storage.inboxes, current, project, bytes);
    if (refusal) await this.raiseQuota(refusal);
    return refusal;
  }

  /**
   * Parses, stores durably and commits one message for every recipient. Resolves after the
   * commit (the caller may then promise durability); rejects with QuotaExceeded when any
   * recipient has no room for it (the message is then stored nowhere). `envelopeFrom` may be
   * decided from the parsed message (an import takes the From header's address).
   */
  async deliver(
    raw: MessageBytes,
    envelopeFromOrOf: string | null | ((parsed: ParsedMessage) => string | null),
    recipients: Recipient[],
    receipt: Receipt | null = null,
  ): Promise<DeliveryResult> {
    if (recipients.length === 0) return { messageIds: [], uids: [] };
    const size = sizeOf(raw);
    const ended = largeMessageStarted(size);
    const arrived = this.announce();
    try {
      return await this.deliverSized(raw, size, envelopeFromOrOf, recipients, receipt, arrived);
    } finally {
      arrived();
      ended();
    }
  }

  private async deliverSized(
    raw: MessageBytes,
    size: number,
    envelopeFromOrOf: string | null | ((parsed: ParsedMessage) => string | null),
    recipients: Recipient[],
    receipt: Receipt | null,
    /** Ends this delivery's announcement (see announce) once it is queued. */
    arrived: () => void,
  ): Promise<DeliveryResult> {
    // Refuse what cannot fit before spending seconds parsing it (the check in the transaction
    // stays the authoritative one, with the same answer and alerts; for small mail, which parses
    // in well under a millisecond, it is the only one).
    for (const r of size < PRECHECK_ABOVE ? [] : recipients) {
      const fresh = await this.ctx.storage.inboxes.byId(r.inbox.id);
      const project = fresh ? await this.projectOf(fresh.projectId) : null;
      const refusal = fresh && project ? await this.quotaCheck(this.ctx.storage.inboxes, fresh, project, size) : null;
      if (refusal) {
        await this.raiseQuota(refusal);
        throw new QuotaExceeded(refusal);
      }
    }
    const projects: ProjectRef[] = [];
    for (const r of recipients) {
      const project = await this.projectOf(r.inbox.projectId);
      if (!project) throw new Error(`project ${r.inbox.projectId} of inbox ${r.inbox.id} is gone`);
      projects.push(project);
    }
    let parsed: ParsedMessage;
    /** The blob key, when the parse thread took it. */
    let sha256: string | null = null;
    try {
      ({ parsed, sha256 } = await this.parser.parse(raw));
    } catch (e) {
      parsed = unparsed(size, e);
    }
    const envelopeFrom = typeof envelopeFromOrOf === "function" ? envelopeFromOrOf(parsed) : envelopeFromOrOf;
    // Pin before put: a concurrent delete of an identical message must not free the blob
    // between our put and our commit (content addressing shares blobs).
    const blobKey = raw instanceof Uint8Array ? (sha256 ?? sha256Hex(raw)) : raw.key;
    const attachmentKeys = parsed.attachments.map((a) => a.sha256);
    const unpins = [blobKey, ...attachmentKeys].map((k) => pinBlob(k));
    try {
      // Small blobs are written inside the commit (one WAL fsync for the whole group); large
      // ones are fsynced to files first, so the commit never points at bytes not yet durable.
      const store = this.ctx.storage.blobs;
      const blobs: MessageBytes[] = [raw, ...parsed.attachments.map((a) => a.content)];
      const inline = blobs.map((b) => b instanceof Uint8Array && b.byteLength <= store.inlineMax);
      const keys = [blobKey, ...attachmentKeys];
      await Promise.all(blobs.map((b, i) => (inline[i] ? null : b instanceof Uint8Array ? store.put(b, keys[i]) : store.adopt(b))));
      // Durable now: a large attachment's bytes need not wait in memory for the group commit
      // (18 MB per 24 MB message); only inline ones are written by the transaction.
      parsed.attachments.forEach((a, i) => {
        if (!inline[i + 1]) {
          a.content = EMPTY;
          blobs[i + 1] = EMPTY;
        }
      });
      const stored = await new Promise<{ ids: string[]; uids: number[] }>((resolve, reject) => {
        if (this.queue.length === 0) this.groupOpenedAt = performance.now();
        this.queue.push({
          size,
          projects,
          blobs,
          inline,
          blobKey,
          attachmentKeys,
          parsed,
          envelopeFrom,
          recipients,
          receipt,
          resolve,
          reject,
        });
        arrived();
        this.scheduleFlush();
      });
      return { messageIds: stored.ids, uids: stored.uids };
    } finally {
      for (const u of unpins) u();
    }
  }

  /**
   * A mail client connected (an SMTP or LMTP session): until the returned function is called, a
   * group commit flushes inline only if this client waits for it too (see flush). Idempotent.
   */
  attend(): () => void {
    this.attending++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.attending--;
    };
  }

  /** How many deliveries are announced now (for tests: every path out of a transaction ends its announcement). */
  get announcedDeliveries(): number {
    return this.announced.size;
  }

  /**
   * A delivery is on its way (an SMTP transaction opened with MAIL FROM, or a message being
   * parsed): the next group commit waits for it a little (GROUP_WAIT_MS at most, counted from
   * the oldest queued delivery). Call the returned function once it is queued, refused or
   * abandoned (idempotent).
   */
  announce(): () => void {
    const id = ++this.announceSeq;
    this.announced.set(id, performance.now());
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.announced.delete(id);
      if (this.awaitedDeliveries === 0) this.scheduleFlush();
    };
  }

  /** Announced deliveries fresh enough for a group to wait for (see ANNOUNCE_FRESH_MS). */
  get awaitedDeliveries(): number {
    const freshSince = performance.now() - ANNOUNCE_FRESH_MS;
    let n = 0;
    for (const at of this.announced.values()) if (at >= freshSince) n++;
    return n;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.committing >= this.groups || this.queue.length === 0) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.commitOrWait();
    });
  }

  /**
   * Commits the queued deliveries now, or, while others are announced, waits for them (at most
   * GROUP_WAIT_MS after the first queued one): one WAL flush costs 0.2-4 ms on this disk, so
   * eight concurrent senders each flushing alone spend most of their time waiting on the disk,
   * while a group of eight shares one flush (docs/benchmarks.md, 2026-11-24).
   */
  private commitOrWait(): void {
    if (this.committing >= this.groups || this.queue.length === 0) return;
    const left = this.groupOpenedAt + GROUP_WAIT_MS - performance.now();
    if (left > 0 && this.awaitedDeliveries > 0) {
      this.groupTimer ??= setTimeout(() => {
        this.groupTimer = null;
        this.commitOrWait();
      }, left);
      return;
    }
    if (this.groupTimer) clearTimeout(this.groupTimer);
    this.groupTimer = null;
    // With groups already open: only deliveries to none of their inboxes. The others would wait on
    // those inboxes' rows anyway (their UIDs commit in order); left queued, they form the next
    // group once one ends, one commit for all of them rather than many small ones in a row.
    const batch: PendingWrite[] = [];
    const later: PendingWrite[] = [];
    for (const w of this.queue) (w.recipients.some((r) => this.openInboxes.has(r.inbox.id)) ? later : batch).push(w);
    if (batch.length === 0) return; // a group's end reschedules
    this.queue = later;
    const inboxes = batch.flatMap((w) => w.recipients.map((r) => r.inbox.id));
    for (const id of inboxes) this.openInboxes.set(id, (this.openInboxes.get(id) ?? 0) + 1);
    this.committing++;
    void this.flush(batch).finally(() => {
      for (const id of inboxes) {
        const n = this.openInboxes.get(id)! - 1;
        if (n === 0) this.openInboxes.delete(id);
        else this.openInboxes.set(id, n);
      }
      this.committing--;
      this.scheduleFlush();
    });
  }

  private async flush(batch: PendingWrite[]): Promise<void> {
    const outcomes: Array<{ ok: true; stored: StoredMessage[] } | { ok: false; error: unknown }> = [];
    // Every connected mail client waits for this commit and no other delivery is on its way: the
    // event loop has nothing to do until the flush, which can then run on it (WalSyncer.flush). A
    // client still connecting or between commands keeps the flush on the thread pool, so that the
    // loop serves it meanwhile.
    const clients = batch.reduce((n, w) => n + (w.receipt ? 1 : 0), 0);
    const flushInline = clients > 0 && clients >= this.attending && this.awaitedDeliveries === 0 && this.queue.length === 0;
    try {
      await this.ctx.storage.transaction(
        async (tx) => {
          outcomes.length = 0;
          await tx.inboxes.lockForDelivery(batch.flatMap((w) => w.recipients.map((r) => r.inbox.id)));
          // A delivery alone needs no savepoint (two round trips on PostgreSQL): if it fails, the
          // whole transaction is rolled back, which undoes only its writes too.
          const alone = batch.length === 1;
          for (const w of batch) {
            try {
              outcomes.push({ ok: true, stored: alone ? await this.storeOne(tx, w) : await tx.savepoint((t) => this.storeOne(t, w)) });
            } catch (error) {
              // A deadlock's victim: the whole group runs again (the storage retries it), not this delivery refused.
              if (isTransientConflict(error)) throw error;
              outcomes.push({ ok: false, error });
              if (alone) throw new AloneRefused();
            }
          }
        },
        { flushInline },
      );
    } catch (error) {
      // The commit or the flush failed: nobody of this batch may be told "stored".
      if (!(error instanceof AloneRefused)) {
        for (const w of batch) w.reject(error);
        return;
      }
    }
    batch.forEach((w, i) => {
      const o = outcomes[i]!;
      if (!o.ok) {
        if (o.error instanceof QuotaExceeded) void this.raiseQuota(o.error.refusal).then(() => w.reject(o.error));
        else w.reject(o.error);
        return;
      }
      for (const s of o.stored) {
        this.ctx.bus.publish({ type: "message.received", projectId: s.projectId, inboxId: s.inbox.id, messageId: s.message.id });
      }
      w.resolve({ ids: o.stored.map((s) => s.message.id), uids: o.stored.map((s) => s.message.uid) });
    });
  }

  /** Inside the transaction: one message row (+ attachments) per recipient inbox. */
  private async storeOne(tx: Transaction, w: PendingWrite): Promise<StoredMessage[]> {
    const p = w.parsed;
    const out: StoredMessage[] = [];
    const size = w.size;
    const keys = [w.blobKey, ...w.attachmentKeys];
    for (let i = 0; i < w.blobs.length; i++) if (w.inline[i]) await tx.putInlineBlob(keys[i]!, w.blobs[i] as Uint8Array);
    const toJson = JSON.stringify(p.to);
    const ccJson = JSON.stringify(p.cc);
    const codes = JSON.stringify(p.codes);
    const links = JSON.stringify(p.links);
    const headers = JSON.stringify(p.headers);
    for (let ri = 0; ri < w.recipients.length; ri++) {
      const r = w.recipients[ri]!;
      const project = w.projects[ri]!;
      const bumped = await tx.inboxes.takeUid(r.inbox.id, r.filing?.folderId ?? null);
      // The inbox was deleted between RCPT and commit: the others still get their copy.
      if (!bumped) continue;
      const { inbox, uid } = bumped;
      const refusal = await this.quotaCheck(tx.inboxes, inbox, project, size);
      if (refusal) throw new QuotaExceeded(refusal);
      const id = newId();
      const now = Date.now();
      const receivedAt = r.filing?.receivedAt ?? new Date(now).toISOString();
      const expiresAt = new Date(now + planOf(project.plan).retentionDays * DAY_MS).toISOString();
      await tx.messages.insert(
        {
          id,
          inbox_id: inbox.id,
          project_id: project.id,
          uid,
          blob_key: w.blobKey,
          size_bytes: size,
          logical_size_bytes: p.logicalSizeBytes,
          envelope_from: w.envelopeFrom,
          envelope_to: envelopeToColumn(r.addresses),
          from_email: p.from.email,
          from_name: p.from.name,
          to_json: toJson,
          cc_json: ccJson,
          subject: p.subject,
          preview: p.preview,
          text_body: p.text,
          html_body: p.html,
          codes,
          links,
          headers,
          headers_truncated: p.headersTruncated ? 1 : 0,
          message_id_header: p.messageId,
          sent_at: p.sentAt,
          attachment_count: p.attachments.length,
          parse_error: p.parseError,
          received_at: receivedAt,
          expires_at: expiresAt,
        },
        r.filing?.folderId ?? null,
      );
      const filing = r.filing;
      if (filing && (filing.flags.read || filing.flags.flagged || filing.flags.deleted)) {
        await tx.messages.setFlags(inbox.id, [{ id, ...filing.flags }]);
      }
      if (filing?.extraFlags) await tx.imapFolders.setExtraFlags(inbox.id, filing.folderId, [{ uid, flags: filing.extraFlags }]);
      const attachmentIds: string[] = [];
      if (p.attachments.length) {
        await tx.attachments.insert(
          p.attachments.map((a, i) => {
            const aid = newId();
            attachmentIds.push(aid);
            return {
              id: aid,
              message_id: id,
              position: a.position,
              filename: a.filename,
              declared_content_type: a.declaredContentType,
              served_content_type: a.servedContentType,
              disposition: a.disposition,
              content_id: a.contentId,
              size_bytes: a.size,
              sha256: a.sha256,
              blob_key: w.attachmentKeys[i]!,
            };
          }),
        );
      }
      const stored: StoredMessage = {
        message: {
          id,
          uid,
          inboxId: inbox.id,
          blobKey: w.blobKey,
          sizeBytes: size,
          logicalSizeBytes: p.logicalSizeBytes,
          envelopeFrom: w.envelopeFrom,
          envelopeTo: r.addresses,
          receivedAt,
          expiresAt,
          attachmentIds,
        },
        inbox,
        projectId: project.id,
        teamId: project.teamId,
        parsed: p,
        receipt: w.receipt,
      };
      // Mail a client files in another mailbox (Sent, Drafts) was not received: no webhook
      // event, no authentication check. INBOX appends are received mail like an import.
      if (!filing?.folderId) for (const hook of this.hooks.storedInTx) await hook(stored, tx);
      out.push(stored);
    }
    if (out.length === 0) throw new InboxGone(w.recipients[0]!.addresses[0]!);
    return out;
  }

  /** Refusal when the message does not fit the inbox's or the team's quota (read through `inboxes`: in or out of a transaction). */
  private async quotaCheck(inboxes: InboxRepository, inbox: InboxRow, project: ProjectRef, size: number): Promise<QuotaRefusal | null> {
    const plan = planOf(project.plan);
    const base = { inbox, projectId: project.id, teamId: project.teamId, messageBytes: size };
    // Full means "no room for this message"; at RCPT (size 0) it means "already at the quota".
    const over = (used: number, quota: number) => (size === 0 ? used >= quota : used + size > quota);
    if (over(inbox.usedBytes, plan.inboxStorageBytes)) {
      return { ...base, kind: "inbox", usedBytes: inbox.usedBytes, quotaBytes: plan.inboxStorageBytes };
    }
    const teamUsed = await inboxes.teamUsedBytes(project.teamId);
    if (over(teamUsed, plan.teamStorageBytes)) {
      return { ...base, kind: "team", usedBytes: teamUsed, quotaBytes: plan.teamStorageBytes };
    }
    return null;
  }

  /**
   * Resolves once every hook is done (the alert committed), so the refusal is answered after it:
   * whoever reads alerts after the 452/422 finds it, on an engine whose commit is a round trip away too.
   */
  private async raiseQuota(refusal: QuotaRefusal): Promise<void> {
    await Promise.all(
      this.hooks.quotaRefused.map(async (hook) => {
        try {
          await hook(refusal);
        } catch (e) {
          log.error({ err: e }, "quotaRefused hook failed");
        }
      }),
    );
  }
}

/** Rolls back the transaction of a delivery that was alone in its group and failed (its outcome holds why). */
class AloneRefused extends Error {}

/** The recipient inbox disappeared between RCPT and commit. */
export class InboxGone extends Error {
  constructor(readonly address: string) {
    super(`inbox ${address} no longer exists`);
  }
}

function isLive(inbox: InboxRow): boolean {
  if (inbox.status !== "active") return false;
  return inbox.expiresAt === null || inbox.expiresAt > new Date().toISOString();
}

/** The parser itself failed: keep the raw, show what little we know. */
function unparsed(size: number, e: unknown): ParsedMessage {
  return {
    from: { email: "", name: "" },
    to: [],
    cc: [],
    subject: "",
    preview: "",
    text: null,
    html: null,
    headers: [],
    headersTruncated: false,
    messageId: null,
    sentAt: null,
    links: [],
    codes: [],
    attachments: [],
    logicalSizeBytes: size,
    parseError: String((e as any)?.message ?? e).slice(0, 500),
  };
}
