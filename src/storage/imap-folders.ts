// IMAP mailboxes other than INBOX (docs/imap.md, "Mailboxes"). INBOX is the inbox itself: a
// message whose folder is null is in INBOX. Names are full hierarchical names with "/" between
// levels ("Archive/2024"). Each mailbox hands out its own UIDs (migration 0029): a message is named
// by (inbox, mailbox, UID), and two mailboxes may hold the same UID.

export interface ImapFolderRecord {
  id: string;
  inboxId: string;
  name: string;
  uidValidity: number;
  /** UIDNEXT: one above the highest UID ever added to this mailbox (changes only when mail is added). */
  uidNext: number;
  subscribed: boolean;
  /** RFC 6154 attribute, e.g. "\\Sent"; null for an ordinary mailbox. */
  specialUse: string | null;
  createdAt: string;
}

/** What STATUS and SELECT report of one mailbox. */
export interface FolderCounts {
  messages: number;
  unseen: number;
  /** Sum of the messages' sizes (what POP3's STAT answers). */
  bytes: number;
  maxUid: number | null;
  /** The mailbox's UID counter (UIDNEXT) read with the counts: every message counted has a lower UID. */
  uidNext: number;
  /** CONDSTORE's HIGHESTMODSEQ of the mailbox, a kept counter (migration 0028). */
  highestModseq: number;
}

/** A message copied into a mailbox: its new id and UID beside the source UID (COPYUID). */
export interface CopiedMessage {
  sourceUid: number;
  id: string;
  uid: number;
}

export interface ImapFolderRepository {
  /** The inbox's mailboxes (INBOX excluded), by name. */
  ofInbox(inboxId: string): Promise<ImapFolderRecord[]>;
  byName(inboxId: string, name: string): Promise<ImapFolderRecord | null>;
  byId(id: string): Promise<ImapFolderRecord | null>;
  /** Names of these folder ids (for message views), as a map id → name. */
  namesOf(ids: string[]): Promise<Map<string, string>>;
  /**
   * A UIDVALIDITY for a new mailbox of the inbox: at least `atLeast` and above every one handed
   * out before (deleted mailboxes' included), so a name created again never repeats a pair of
   * UIDVALIDITY and UID.
   */
  nextUidValidity(inboxId: string, atLeast: number): Promise<number>;
  /** Inserts unless the name exists; whether it was inserted. */
  insert(r: ImapFolderRecord): Promise<boolean>;
  /** Renames the mailbox `from` and every mailbox under it ("from/…") to `to`/"to/…". */
  rename(inboxId: string, from: string, to: string): Promise<void>;
  remove(id: string): Promise<void>;
  setSubscribed(id: string, on: boolean): Promise<void>;
  /** Subscribed names whose mailbox was deleted (migration 0027), by name. */
  orphanSubscriptions(inboxId: string): Promise<string[]>;
  /** Adds or removes a subscribed name without a mailbox; whether it was there before. */
  setOrphanSubscription(inboxId: string, name: string, on: boolean): Promise<boolean>;
  /** Messages, unseen messages and the highest UID of a mailbox (folderId null: INBOX). */
  counts(inboxId: string, folderId: string | null): Promise<FolderCounts>;
  /**
   * \Recent (migration 0026): the mailbox's watermark (the highest UID handed to a session as
   * recent) and how many of its messages lie above it. INBOX without a mark yet gets one at the
   * inbox's current highest UID (mail that predates the first IMAP look is not recent); another
   * mailbox starts at 0 (it was created empty by IMAP).
   */
  recentMark(inboxId: string, folderId: string | null): Promise<{ mark: number; above: number }>;
  /**
   * Hands the messages with a UID in (mark, upTo] to the caller: raises the mark to upTo and
   * returns the former mark and how many messages of the mailbox lie in that range (0 when the
   * mark was already at or above upTo). Atomic (one synchronous step on the one connection).
   */
  claimRecent(inboxId: string, folderId: string | null, upTo: number): Promise<{ from: number; count: number }>;
  /** Ids of up to `limit` messages of the mailbox (for deleting it in batches). */
  messageIds(inboxId: string, folderId: string, limit: number): Promise<string[]>;
  /** Files every INBOX message of the inbox in the folder (RENAME INBOX); how many moved. */
  adoptInbox(inboxId: string, folderId: string): Promise<number>;
  /**
   * Copies messages (by UID, within the mailbox `fromFolderId` of the inbox; null: INBOX) into a
   * mailbox (folderId null: INBOX): a new row each, with a new id and a UID from the target's own
   * counter, the same blob, flags and internal date, and copies of the attachment rows. Use
   * inside a transaction.
   */
  copy(inboxId: string, fromFolderId: string | null, uids: number[], folderId: string | null): Promise<CopiedMessage[]>;
  /**
   * IMAP flags beyond \Seen, \Flagged and \Deleted (\Answered, \Draft, keywords), space-separated,
   * of those of the UIDs of the mailbox (null: all of it) that have any.
   */
  extraFlags(inboxId: string, folderId: string | null, uids: number[] | null): Promise<Map<number, string>>;
  /** Replaces the extra flags of messages of the mailbox (null or "": none). */
  setExtraFlags(inboxId: string, folderId: string | null, changes: Array<{ uid: number; flags: string | null }>): Promise<void>;
  /** Every keyword used in the inbox (for SELECT's FLAGS). */
  keywords(inboxId: string): Promise<string[]>;
  /** CONDSTORE: the mailbox's HIGHESTMODSEQ (one row: a kept counter). */
  highestModseq(inboxId: string, folderId: string | null): Promise<number>;
  /** CONDSTORE: the modseq of each of these messages (by UID). */
  modseqs(inboxId: string, folderId: string | null, uids: number[]): Promise<Map<number, number>>;
  /** CONDSTORE: UID → modseq of the mailbox's messages changed after `modseq` (index messages_modseq). */
  changedSince(inboxId: string, folderId: string | null, modseq: number): Promise<Map<number, number>>;
  /** The folder id of each of these messages (null: INBOX); messages that do not exist are left out. */
  foldersOf(ids: string[]): Promise<Map<string, string | null>>;
}

export interface ImapFolderRepositories {
  imapFolders: ImapFolderRepository;
}
