// The mail capability's repositories: what its services keep, as typed records and small
// interfaces. Engines implement them in src/storage/<engine>/mail.ts.
import type { FolderCounts } from "./imap-folders";

export interface InboxRecord {
  id: string;
  projectId: string;
  address: string;
  localPart: string;
  domain: string;
  domainId: string | null;
  name: string | null;
  /** "catch_all": the instance's catch-all inbox (persistent, never expires, not deletable). */
  type: "disposable" | "persistent" | "catch_all";
  status: string;
  passwordEnc: string;
  uidValidity: number;
  uidNext: number;
  expiresAt: string | null;
  expiringAlertedAt: string | null;
  createdBySession: string | null;
  messageCount: number;
  unreadCount: number;
  usedBytes: number;
  createdAt: string;
}

/** Fields of an inbox that may change after creation; absent fields stay as they are. */
export interface InboxPatch {
  name?: string | null;
  expiresAt?: string | null;
  expiringAlertedAt?: string | null;
}

/** What the expiry sweep needs of an inbox whose lifetime is over. */
export interface ExpiredInbox {
  id: string;
  project_id: string;
  address: string;
  expires_at: string;
}

/** IMAP STATUS of one inbox. */
export interface MailboxStatus {
  uidValidity: number;
  uidNext: number;
  messages: number;
  unseen: number;
  maxUid: number | null;
}

export interface InboxRepository {
  byId(id: string): Promise<InboxRecord | null>;
  /** The inbox if it belongs to the project (null otherwise). */
  inProject(projectId: string, id: string): Promise<InboxRecord | null>;
  /** Exact match on the stored (lower-case) address. */
  byAddress(address: string): Promise<InboxRecord | null>;
  /** The instance's catch-all inbox, if there is one. */
  catchAll(): Promise<InboxRecord | null>;
  /** Newest first, ids below `before` when given; at most `limit` records. */
  listInProject(projectId: string, before: string | null, limit: number, type?: InboxRecord["type"] | null): Promise<InboxRecord[]>;
  /** Inboxes of every project of the team (the catch-all inbox does not count: it is the instance's). */
  /** Every inbox of every project, newest first, ids below `before`; at most `limit` (for `inboxd dump`). */
  listAll(before: string | null, limit: number): Promise<InboxRecord[]>;
  countForTeam(teamId: string): Promise<number>;
  /** Bytes stored by the team's inboxes (kept by the engine as messages come and go). */
  teamUsedBytes(teamId: string): Promise<number>;
  insert(r: InboxRecord): Promise<void>;
  update(id: string, patch: InboxPatch): Promise<void>;
  /** Replaces the sealed IMAP/POP3 password (rotation). */
  setPassword(id: string, passwordEnc: string): Promise<void>;
  /** Hands out the inbox's next UID; returns it with the inbox as it is after the bump (null: no such inbox). */
  /**
   * Takes the next UID of a mailbox of the inbox (folderId null: INBOX, the inbox's counter; else
   * that mailbox's own, migration 0029) and reads the inbox row; null if either is gone.
   */
  takeUid(id: string, folderId?: string | null): Promise<{ uid: number; inbox: InboxRecord } | null>;
  /**
   * Inside a transaction, before its first takeUid: locks these inboxes' rows in id order, so that
   * transactions delivering into several inboxes at once (group commits, on several nodes) never
   * wait for each other in a cycle. A no-op where one writer holds the whole database (SQLite).
   */
  lockForDelivery(ids: string[]): Promise<void>;
  mailboxStatus(id: string): Promise<MailboxStatus | null>;
  /** Deletes the inbox with its messages; the blob keys they referenced, or null when there was no such inbox. */
  deleteInProject(projectId: string, id: string): Promise<string[] | null>;
  /** Inboxes whose expires_at is at or before now, soonest first. */
  expired(now: string, limit: number): Promise<ExpiredInbox[]>;
  /**
   * Claims (sets expiring_alerted_at = now) the inboxes entering their expiring window: expiry
   * within leadDays, or a fifth of their lifetime if that is shorter. Returns the claimed ones.
   */
  claimExpiring(now: string, leadDays: number): Promise<InboxRecord[]>;
}

export interface InboxWatchRepository {
  /** Idempotent. */
  add(w: { inboxId: string; deviceSessionId: string; userId: string; createdAt: string }): Promise<void>;
  remove(inboxId: string, deviceSessionId: string): Promise<void>;
  /** Which of these inboxes the device session watches. */
  watchedAmong(deviceSessionId: string, inboxIds: string[]): Promise<string[]>;
  /** Users with at least one device watching the inbox. */
  watcherUserIds(inboxId: string): Promise<string[]>;
}

/** A stored message (snake_case: the shape the message views read). */
export interface MessageRecord {
  id: string;
  inbox_id: string;
  project_id: string;
  uid: number;
  blob_key: string;
  size_bytes: number;
  logical_size_bytes: number;
  envelope_from: string | null;
  /** The envelope recipients that selected the inbox, one per line (envelopeToColumn, recipientsOf). */
  envelope_to: string;
  from_email: string;
  from_name: string;
  to_json: string;
  cc_json: string;
  subject: string;
  preview: string;
  text_body: string | null;
  html_body: string | null;
  codes: string;
  links: string;
  headers: string;
  headers_truncated: number;
  message_id_header: string | null;
  sent_at: string | null;
  attachment_count: number;
  parse_error: string | null;
  read: number;
  flagged: number;
  deleted_flag: number;
  received_at: string;
  expires_at: string;
  /** The IMAP mailbox it is filed in (storage/imap-folders.ts); null or absent: INBOX. */
  mailbox_id?: string | null;
}

/** A message as ingest inserts it (flags start cleared). */
export type NewMessage = Omit<MessageRecord, "read" | "flagged" | "deleted_flag">;

// -- Search (docs/search.md) ------------------------------------------------------------------
// The AST of a `q` (parsed by src/mail/search-query.ts); the repository evaluates it. Every term
// carries its position in q (for error messages) and whether a leading "-" negated it.

export type SearchTerm = { negated: boolean; position: number } & (
  | { kind: "text"; value: string; prefix: boolean }
  | { kind: "subject"; value: string; prefix: boolean }
  | { kind: "from"; value: string }
  | { kind: "to"; value: string }
  | { kind: "code"; value: string }
  | { kind: "header"; name: string; value: string | null }
  | { kind: "has"; what: "attachment" | "code" | "link" }
  | { kind: "is"; what: "read" | "unread" }
  | { kind: "after"; at: string }
  | { kind: "before"; at: string }
  | { kind: "larger"; bytes: number }
  | { kind: "smaller"; bytes: number }
  | { kind: "auth"; verdict: "pass" | "fail" | "none" | "pending" }
  /** The IMAP mailbox the message is filed in ("INBOX" or a folder's full name). */
  | { kind: "folder"; name: string }
);

/** Terms combine with AND; no terms: every message. */
export interface SearchQuery {
  terms: SearchTerm[];
}

/** What to search: one inbox or every inbox of the project, a cursor, an order and a page size. */
export interface MessageSearch {
  projectId: string;
  /** null: every inbox of the project. */
  inboxId: string | null;
  query: SearchQuery | null;
  /** Only ids below this one (pages of a newest-first list). */
  before?: string | null;
  /** Only ids above this one (long-poll baselines). */
  after?: string | null;
  order: "newest" | "oldest";
  limit: number;
}

/**
 * A page of an IMAP/POP3 view of an inbox, column-wise: a million messages cost 9 bytes each
 * (UID, size, flag bits) instead of an object with strings per message.
 */
export interface MailboxPage {
  uids: Uint32Array;
  sizes: Uint32Array;
  /** FLAG_SEEN | FLAG_FLAGGED | FLAG_DELETED per message. */
  flags: Uint8Array;
}

/**
 * One mailbox read at one instant (issue 19): its counts and its pages from one read transaction,
 * so every page agrees with the counts and with each other whatever is written meanwhile. Close
 * it when done (it pins the engine's snapshot).
 */
export interface MailboxSnapshot {
  readonly counts: FolderCounts;
  /** As MessageRepository.mailboxPage, at the snapshot's instant. */
  page(afterUid: number, limit: number): Promise<MailboxPage>;
  close(): void;
}

export const FLAG_SEEN = 1;
export const FLAG_FLAGGED = 2;
export const FLAG_DELETED = 4;

/** What a view fetches only for the messages a command touches. */
export interface MailboxDetails {
  uid: number;
  id: string;
  received_at: string;
  blob_key: string;
}

export interface FlagState {
  id: string;
  uid: number;
  read: number;
  flagged: number;
  deleted_flag: number;
  /** CONDSTORE modification sequence (migration 0028). */
  modseq: number;
}

/** A flag write: absent flags keep their value. */
export interface FlagChange {
  id: string;
  read?: boolean;
  flagged?: boolean;
  deleted?: boolean;
}

export interface RemovedMessage {
  id: string;
  inbox_id: string;
  /** The IMAP mailbox it was in (null: INBOX): a UID names a message within its mailbox. */
  mailbox_id: string | null;
  uid: number;
}

export interface MessageRepository {
  inProject(projectId: string, id: string): Promise<MessageRecord | null>;
  /** Newest first, ids below `before` when given; at most `limit` records. */
  listInInbox(inboxId: string, before: string | null, limit: number): Promise<MessageRecord[]>;
  newest(inboxId: string): Promise<MessageRecord | null>;
  /** The oldest message of the inbox with an id above `after`. */
  oldestAfter(inboxId: string, after: string): Promise<MessageRecord | null>;
  exists(id: string): Promise<boolean>;
  /** Inserts a message into a mailbox of its inbox (folderId absent or null: INBOX) with a UID taken from it. */
  insert(m: NewMessage, folderId?: string | null): Promise<void>;
  /** Applies the changes (each to a message of the inbox); returns the ids whose flags actually changed. */
  setFlags(inboxId: string, changes: FlagChange[]): Promise<string[]>;
  /** Unread messages of the inbox with an id up to and including lastId. */
  unreadIdsUpTo(inboxId: string, lastId: string): Promise<string[]>;
  /**
   * The messages of one mailbox of the inbox (folderId absent or null: INBOX; storage/imap-folders.ts)
   * with a UID above afterUid, in UID order, at most `limit` (from a covering index).
   */
  mailboxPage(inboxId: string, afterUid: number, limit: number, folderId?: string | null): Promise<MailboxPage>;
  /** Id, arrival time and blob of those of the UIDs that still exist in the mailbox (folderId null: INBOX). */
  mailboxDetails(inboxId: string, folderId: string | null, uids: number[]): Promise<MailboxDetails[]>;
  /**
   * UIDs (ascending) of the inbox's messages whose field contains the value as a case-insensitive
   * substring (IMAP SEARCH text keys; the rule is docs/imap.md, "SEARCH"). `among.words`: the
   * candidates are the messages whose index column holds these words in this order, the last one
   * as a prefix (only fields with an index column: body, subject, text); `among.anyTerm`: the
   * messages whose index column holds any of these indexed terms; `among.uids`: these messages (a
   * batch of a scan; bounded by the caller).
   */
  uidsWithText(
    inboxId: string,
    folderId: string | null,
    key: ImapTextKey,
    among: { words: string[] } | { anyTerm: string[] } | { uids: number[] },
  ): Promise<number[]>;
  /** Up to `limit` terms of the full-text index's vocabulary after `after`, in order (all inboxes). */
  indexTermsAfter(after: string, limit: number): Promise<string[]>;
  /**
   * Up to `limit` index terms containing the fragment (folded as the index folds, at least 3
   * characters), found through a trigram index of the vocabulary; null while that vocabulary is
   * incomplete (being filled after an upgrade). Engines without one leave it out: callers then walk
   * indexTermsAfter.
   */
  indexTermsContaining?(fragment: string, limit: number): Promise<string[] | null>;
  /** Current flags of those of the messages that are still in the mailbox (folderId null: INBOX). */
  flagsOf(inboxId: string, folderId: string | null, ids: string[]): Promise<FlagState[]>;
  /** Each message's Date header (SENTBEFORE/SENTON/SENTSINCE; the one SEARCH key that reads every row). */
  sentDates(inboxId: string, folderId: string | null): Promise<Array<{ uid: number; sent_at: string | null; date_header: string | null }>>;
  /** The messages the search selects, in its order, at most `limit`. */
  search(s: MessageSearch): Promise<MessageRecord[]>;
  /** How many messages the search selects, counting no further than `cap` (the search's limit is ignored). */
  countUpTo(s: MessageSearch, cap: number): Promise<number>;
  /**
   * The one matcher for just-stored messages (long-poll): those of `ids` (messages of the project)
   * that the query selects, oldest first. The same SQL as search, restricted to these ids.
   */
  matching(projectId: string, ids: string[], query: SearchQuery | null): Promise<MessageRecord[]>;
  /** Ids of the inbox's messages the query selects (null: all), oldest first, at most `limit`, ids above `after`. */
  idsInInbox(inboxId: string, query: SearchQuery | null, after: string | null, limit: number): Promise<string[]>;
  /** Messages whose expires_at is at or before now, soonest first. */
  expired(now: string, limit: number): Promise<Array<{ id: string; project_id: string }>>;
  /** Deletes those of the messages that belong to the project; what went and the blob keys they referenced. */
  deleteInProject(projectId: string, ids: string[]): Promise<{ removed: RemovedMessage[]; blobKeys: string[] }>;
}

/**
 * An IMAP SEARCH text key: FROM, TO, CC and BCC test the stored (decoded, unfolded) header of
 * that name and, for FROM/TO/CC, the parsed addresses; HEADER the header `name`; TEXT the body and
 * every header; "headers" every header only (TEXT's half that the full-text index does not hold).
 */
export interface ImapTextKey {
  field: "body" | "text" | "subject" | "from" | "to" | "cc" | "bcc" | "header" | "headers";
  value: string;
  name?: string;
}

export interface AttachmentRecord {
  id: string;
  message_id: string;
  position: number;
  filename: string;
  declared_content_type: string;
  served_content_type: string;
  disposition: string;
  content_id: string | null;
  size_bytes: number;
  sha256: string;
  blob_key: string;
}

export interface AttachmentRepository {
  /** Attachments of these messages, by message then position. */
  ofMessages(messageIds: string[]): Promise<AttachmentRecord[]>;
  byId(messageId: string, id: string): Promise<AttachmentRecord | null>;
  insert(records: AttachmentRecord[]): Promise<void>;
}

export interface BlobRefRepository {
  /** Whether any message or attachment still points at the blob. */
  isReferenced(key: string): Promise<boolean>;
}

/** One fault-injection rule of an inbox (mail/chaos.ts, docs/chaos.md). */
export interface ChaosRuleRecord {
  stage: "rcpt" | "data";
  /** SMTP reply code, 400..599. */
  code: number;
  /** Reply text; null: the default text naming inboxd chaos. */
  message: string | null;
  /** Probability 0..1 that the rule fires for one message (or one RCPT). */
  rate: number;
  delayMs: number;
}

export interface InboxChaosRepository {
  /** The inbox's rules in evaluation order (empty: no fault injection). */
  ofInbox(inboxId: string): Promise<ChaosRuleRecord[]>;
  /** Replaces every rule of the inbox by these, in this order (use inside a transaction). */
  replace(inboxId: string, rules: ChaosRuleRecord[], createdAt: string): Promise<void>;
  /** Removes the inbox's rules; whether there were any. */
  clear(inboxId: string): Promise<boolean>;
}

/** One connect-time fault-injection rule of the instance's SMTP listeners (mail/smtp-chaos.ts, docs/chaos.md). */
export interface SmtpChaosRuleRecord {
  stage: "connect";
  /** 421 or 554; null: no refusal, the greeting is only late. */
  code: 421 | 554 | null;
  /** Reply text; null: the default text naming inboxd chaos. */
  message: string | null;
  /** Probability 0..1 that the rule fires for one connection. */
  rate: number;
  delayMs: number;
}

export interface SmtpChaosRepository {
  /** The rules in evaluation order (empty: greetings as usual). */
  list(): Promise<SmtpChaosRuleRecord[]>;
  /** Replaces every rule by these, in this order (use inside a transaction). */
  replace(rules: SmtpChaosRuleRecord[], createdAt: string): Promise<void>;
  clear(): Promise<void>;
}

/** What SPF, DKIM, DMARC and ARC said of a message (mail/auth-check.ts); verdict null: not checked yet. */
export interface MessageAuthRecord {
  message_id: string;
  client_ip: string | null;
  helo: string | null;
  verdict: "pass" | "fail" | "none" | null;
  result_json: string | null;
  checked_at: string | null;
}

/** A message waiting for its check, with what the check reads. */
export interface PendingAuth {
  message_id: string;
  project_id: string;
  inbox_id: string;
  client_ip: string | null;
  helo: string | null;
  blob_key: string;
  envelope_from: string | null;
}

export interface MessageAuthRepository {
  /** Queues the message's check (in the transaction that stores it). */
  enqueue(messageId: string, clientIp: string | null, helo: string | null): Promise<void>;
  /**
   * Claims messages still to check, oldest first, at most `limit`, for node `by`: each is held
   * until `until` (ISO time), so no other node takes it meanwhile; claims lapsed at `now`, and
   * those `by` itself held (before a restart), are taken over.
   */
  claimPending(limit: number, now: string, until: string, by: string): Promise<PendingAuth[]>;
  ofMessage(messageId: string): Promise<MessageAuthRecord | null>;
  /** Stores a result (creating the row for a message stored before checks existed). */
  record(r: Omit<MessageAuthRecord, "verdict"> & { verdict: "pass" | "fail" | "none" }): Promise<void>;
}

export interface MailRepositories {
  inboxes: InboxRepository;
  inboxWatches: InboxWatchRepository;
  inboxChaos: InboxChaosRepository;
  smtpChaos: SmtpChaosRepository;
  messages: MessageRepository;
  attachments: AttachmentRepository;
  blobRefs: BlobRefRepository;
  messageAuth: MessageAuthRepository;
}

/**
 * The envelope_to column of several recipients: one address a line, as an SMTP address holds no line
 * break. A row from before several were kept holds one address, which reads back the same way.
 */
export function envelopeToColumn(addresses: readonly string[]): string {
  return addresses.join("\n");
}

/** The envelope recipients an envelope_to column holds (envelopeToColumn). */
export function recipientsOf(envelopeTo: string): string[] {
  return envelopeTo.split("\n");
}
