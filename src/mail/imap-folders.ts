// IMAP mailboxes of an inbox (docs/imap.md, "Mailboxes"): names, the special-use set, and the
// changes that touch messages (DELETE of a mailbox, RENAME INBOX, COPY). INBOX is the inbox
// itself; every other mailbox is an imap_mailboxes row (storage/imap-folders.ts).
import type { AppContext } from "../runtime/context";
import { newId } from "../lib/ids";
import type { CopiedMessage, ImapFolderRecord, ImapFolderRepository } from "../storage/imap-folders";
import type { InboxRow } from "./inboxes";
import type { MailRemoval } from "./removal";

export const DELIMITER = "/";

/**
 * RFC 6154 mailboxes every inbox has, created when missing at each IMAP log-in (Dovecot's
 * `auto = create`): Thunderbird, Apple Mail and K-9 find them by attribute instead of making
 * their own "Sent Messages" or "Deleted Items".
 */
export const SPECIAL_USE: ReadonlyArray<readonly [name: string, use: string]> = [
  ["Drafts", "\\Drafts"],
  ["Sent", "\\Sent"],
  ["Trash", "\\Trash"],
  ["Junk", "\\Junk"],
  ["Archive", "\\Archive"],
];

const MAX_NAME = 255;
const MAX_FOLDERS = 1000;

/** A mailbox as the commands see it: INBOX (id null) or a folder row. */
export interface MailboxRef {
  id: string | null;
  name: string;
  uidValidity: number;
  uidNext: number;
}

export class FolderError extends Error {
  constructor(
    /** The IMAP response code (RFC 5530) the refusal carries. */
    readonly code: "NONEXISTENT" | "TRYCREATE" | "ALREADYEXISTS" | "CANNOT" | "INUSE" | "LIMIT",
    message: string,
  ) {
    super(message);
  }
}

/** "inbox", "Inbox/x" → "INBOX", "INBOX/x" (INBOX is case-insensitive, RFC 3501 §5.1). */
export function canonicalName(name: string): string {
  const head = name.slice(0, 5);
  if (head.toUpperCase() === "INBOX" && (name.length === 5 || name[5] === DELIMITER)) return `INBOX${name.slice(5)}`;
  return name;
}

const MODIFIED_BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+,";

/**
 * Printable ASCII, with "&-" for "&" and "&…-" runs of modified base64 that decode to whole UTF-16
 * code units (zero padding bits), properly paired surrogates, and no character that could have
 * been written as itself.
 */
export function isModifiedUtf7(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
    if (c !== 0x26) continue;
    const end = name.indexOf("-", i + 1);
    if (end < 0) return false;
    const run = name.slice(i + 1, end);
    i = end;
    if (run === "") continue;
    let bits = 0;
    let acc = 0;
    const units: number[] = [];
    for (const ch of run) {
      const v = MODIFIED_BASE64.indexOf(ch);
      if (v < 0) return false;
      acc = ((acc << 6) | v) & 0xffffff;
      bits += 6;
      if (bits >= 16) {
        bits -= 16;
        units.push((acc >> bits) & 0xffff);
      }
    }
    if (bits >= 6 || (acc & ((1 << bits) - 1)) !== 0 || units.length === 0) return false;
    for (let k = 0; k < units.length; k++) {
      const u = units[k]!;
      if (u >= 0x20 && u <= 0x7e) return false;
      if (u >= 0xd800 && u <= 0xdbff) {
        const next = units[++k];
        if (next === undefined || next < 0xdc00 || next > 0xdfff) return false;
      } else if (u >= 0xdc00 && u <= 0xdfff) return false;
    }
  }
  return true;
}

/** Why a name cannot be a mailbox's, or null. */
export function invalidName(name: string): string | null {
  if (name === "") return "The mailbox name is empty";
  if (name.length > MAX_NAME) return `Mailbox names are at most ${MAX_NAME} characters`;
  if (/[\x00-\x1f\x7f*%]/.test(name)) return "Mailbox names may not hold control characters, * or %";
  // No UTF8=ACCEPT: names are modified UTF-7 (RFC 3501 §5.1.3), or LIST would give back a name that
  // SELECT cannot find (8-bit bytes), as Dovecot refuses them.
  if (!isModifiedUtf7(name)) return "Mailbox name is not valid modified UTF-7 (RFC 3501, section 5.1.3)";
  if (name.startsWith(DELIMITER) || name.endsWith(DELIMITER) || name.includes(DELIMITER + DELIMITER)) {
    return `Mailbox names may not start or end with ${DELIMITER} or hold an empty level`;
  }
  return null;
}

export class FolderService {
  constructor(
    private readonly ctx: AppContext,
    private readonly removal: MailRemoval,
  ) {}

  /** Creates the special-use mailboxes the inbox lacks (none with that attribute, none with that name). */
  async ensureSpecialUse(inbox: InboxRow): Promise<void> {
    const have = await this.ctx.storage.imapFolders.ofInbox(inbox.id);
    const missing = SPECIAL_USE.filter(([name, use]) => !have.some((f) => f.specialUse === use || f.name === name));
    if (!missing.length) return;
    // One transaction: as autocommits, each mailbox's UIDVALIDITY step and row fsynced the WAL on
    // the event loop, ten times in an inbox's first log-in (20-40 ms without a reply, issue 19).
    await this.ctx.storage.transaction(async (tx) => {
      for (const [name, use] of missing) await this.insert(inbox, name, use, have, tx.imapFolders);
    });
  }

  /** INBOX and every folder, by name (INBOX first). */
  async all(inbox: InboxRow): Promise<MailboxRef[]> {
    const fresh = await this.ctx.storage.inboxes.byId(inbox.id);
    const folders = await this.ctx.storage.imapFolders.ofInbox(inbox.id);
    return [this.inboxRef(fresh ?? inbox), ...folders.map(refOf)];
  }

  folders(inbox: InboxRow): Promise<ImapFolderRecord[]> {
    return this.ctx.storage.imapFolders.ofInbox(inbox.id);
  }

  /** The mailbox of that name, or null. */
  async find(inbox: InboxRow, name: string): Promise<MailboxRef | null> {
    const n = canonicalName(name);
    if (n === "INBOX") {
      const fresh = await this.ctx.storage.inboxes.byId(inbox.id);
      return fresh ? this.inboxRef(fresh) : null;
    }
    const f = await this.ctx.storage.imapFolders.byName(inbox.id, n);
    return f ? refOf(f) : null;
  }

  /** As find, or a NONEXISTENT refusal. */
  async get(inbox: InboxRow, name: string): Promise<MailboxRef> {
    const m = await this.find(inbox, name);
    if (!m) throw new FolderError("NONEXISTENT", "No such mailbox");
    return m;
  }

  /** CREATE: the mailbox and any missing level above it (RFC 3501 §6.3.3). */
  async create(inbox: InboxRow, rawName: string): Promise<void> {
    // A trailing delimiter only says the client means to put mailboxes under it.
    const name = canonicalName(rawName.endsWith(DELIMITER) ? rawName.slice(0, -1) : rawName);
    const bad = invalidName(name);
    if (bad) throw new FolderError("CANNOT", bad);
    if (name === "INBOX" || (await this.find(inbox, name))) throw new FolderError("ALREADYEXISTS", "Mailbox already exists");
    const have = await this.ctx.storage.imapFolders.ofInbox(inbox.id);
    const levels = name.split(DELIMITER);
    for (let i = 1; i <= levels.length; i++) {
      const path = levels.slice(0, i).join(DELIMITER);
      if (path === "INBOX" || have.some((f) => f.name === path)) continue;
      await this.insert(inbox, path, null, have);
    }
    // A subscription that outlived an earlier mailbox of this name belongs to the new one.
    if (await this.ctx.storage.imapFolders.setOrphanSubscription(inbox.id, name, false)) {
      const made = await this.ctx.storage.imapFolders.byName(inbox.id, name);
      if (made) await this.ctx.storage.imapFolders.setSubscribed(made.id, true);
    }
  }

  /**
   * DELETE (RFC 3501 §6.3.4): its messages go through the one removal path (blobs, counters, bus),
   * then the row. INBOX cannot go; a mailbox with mailboxes under it neither (they would be left
   * as \Noselect levels, which this store does not keep).
   */
  async remove(inbox: InboxRow, name: string): Promise<void> {
    const m = await this.get(inbox, name);
    if (m.id === null) throw new FolderError("CANNOT", "INBOX cannot be deleted");
    const folders = await this.ctx.storage.imapFolders.ofInbox(inbox.id);
    if (folders.some((f) => f.name.startsWith(m.name + DELIMITER))) {
      throw new FolderError("INUSE", "Delete the mailboxes under it first");
    }
    for (;;) {
      const ids = await this.ctx.storage.imapFolders.messageIds(inbox.id, m.id, 500);
      if (ids.length === 0) break;
      await this.removal.deleteMessages(inbox.projectId, ids);
    }
    await this.ctx.storage.imapFolders.remove(m.id);
    // The subscription stays (RFC 3501 §6.3.6), listed \NonExistent until unsubscribed.
    if (folders.find((f) => f.id === m.id)?.subscribed) await this.ctx.storage.imapFolders.setOrphanSubscription(inbox.id, m.name, true);
  }

  /** Subscribed names without a mailbox (their mailbox was deleted). */
  orphanSubscriptions(inbox: InboxRow): Promise<string[]> {
    return this.ctx.storage.imapFolders.orphanSubscriptions(inbox.id);
  }

  /**
   * RENAME (RFC 3501 §6.3.5): the mailbox and those under it take the new name; missing levels
   * above the new name are created. RENAME INBOX files every INBOX message in a new mailbox of
   * that name and leaves INBOX empty.
   */
  async rename(inbox: InboxRow, fromName: string, toRaw: string): Promise<void> {
    const from = await this.get(inbox, fromName);
    const to = canonicalName(toRaw);
    const bad = invalidName(to);
    if (bad) throw new FolderError("CANNOT", bad);
    if (to === "INBOX" || (await this.find(inbox, to))) throw new FolderError("ALREADYEXISTS", "The new name is taken");
    if (from.id !== null && to.startsWith(from.name + DELIMITER)) throw new FolderError("CANNOT", "A mailbox cannot move under itself");
    const parent = to.includes(DELIMITER) ? to.slice(0, to.lastIndexOf(DELIMITER)) : null;
    if (from.id === null) {
      if (parent) await this.createIfMissing(inbox, parent);
      await this.ctx.storage.transaction(async (tx) => {
        const have = await tx.imapFolders.ofInbox(inbox.id);
        const row = await this.row(tx.imapFolders, inbox, to, null, have);
        await tx.imapFolders.insert(row);
        await tx.imapFolders.adoptInbox(inbox.id, row.id);
      });
      return;
    }
    await this.ctx.storage.imapFolders.rename(inbox.id, from.name, to);
    if (parent) await this.createIfMissing(inbox, parent);
  }

  async subscribe(inbox: InboxRow, name: string, on: boolean): Promise<void> {
    const m = await this.find(inbox, name);
    // INBOX is always subscribed; unsubscribing it is accepted and changes nothing.
    if (m?.id === null) return;
    if (!m) {
      // RFC 3501 §6.3.6 lets a server refuse subscribing to a name that does not exist;
      // UNSUBSCRIBE of one drops a subscription that outlived its mailbox, if any.
      if (on) throw new FolderError("NONEXISTENT", "No such mailbox");
      await this.ctx.storage.imapFolders.setOrphanSubscription(inbox.id, name, false);
      return;
    }
    await this.ctx.storage.imapFolders.setSubscribed(m.id!, on);
  }

  /**
   * COPY (RFC 3501 §6.4.7, UIDPLUS): the UIDs of mailbox `from` (null: INBOX) as new rows in the
   * target mailbox with UIDs from its own counter, in one transaction; the
   * inbox's and team's storage counters include the copies (quotas count them).
   */
  async copy(inbox: InboxRow, from: string | null, uids: number[], target: MailboxRef): Promise<CopiedMessage[]> {
    if (uids.length === 0) return [];
    const copied = await this.ctx.storage.transaction((tx) => tx.imapFolders.copy(inbox.id, from, uids, target.id));
    for (const c of copied)
      this.ctx.bus.publish({ type: "message.received", projectId: inbox.projectId, inboxId: inbox.id, messageId: c.id });
    return copied;
  }

  /** The folder name of each message (null: INBOX), for the message views. */
  async folderNames(ids: string[]): Promise<Map<string, string>> {
    const folders = await this.ctx.storage.imapFolders.foldersOf(ids);
    const names = await this.ctx.storage.imapFolders.namesOf([...new Set([...folders.values()].filter((v): v is string => !!v))]);
    const out = new Map<string, string>();
    for (const [id, f] of folders) out.set(id, f ? (names.get(f) ?? "INBOX") : "INBOX");
    return out;
  }

  private inboxRef(inbox: InboxRow): MailboxRef {
    return { id: null, name: "INBOX", uidValidity: inbox.uidValidity, uidNext: inbox.uidNext };
  }

  private async createIfMissing(inbox: InboxRow, name: string): Promise<void> {
    if (!(await this.find(inbox, name))) await this.create(inbox, name);
  }

  private async insert(
    inbox: InboxRow,
    name: string,
    specialUse: string | null,
    have: ImapFolderRecord[],
    repo: ImapFolderRepository = this.ctx.storage.imapFolders,
  ): Promise<void> {
    if (have.length >= MAX_FOLDERS) throw new FolderError("LIMIT", `An inbox holds at most ${MAX_FOLDERS} mailboxes`);
    const row = await this.row(repo, inbox, name, specialUse, have);
    if (await repo.insert(row)) have.push(row);
  }

  private async row(
    repo: ImapFolderRepository,
    inbox: InboxRow,
    name: string,
    specialUse: string | null,
    have: ImapFolderRecord[],
  ): Promise<ImapFolderRecord> {
    // A mailbox deleted and created again must not reuse its UIDVALIDITY (its UIDs start at 1
    // again): seconds since the epoch, above every one the inbox ever handed out.
    const atLeast = Math.max(Math.floor(Date.now() / 1000), inbox.uidValidity + 1, ...have.map((f) => f.uidValidity + 1)) >>> 0;
    const uidValidity = await repo.nextUidValidity(inbox.id, atLeast);
    return {
      id: newId(),
      inboxId: inbox.id,
      name,
      uidValidity,
      uidNext: 1,
      // CREATE does not subscribe (RFC 3501 §6.3.3; clients SUBSCRIBE themselves); the special-use
      // mailboxes made for the client are (Dovecot's `auto = subscribe`).
      subscribed: specialUse !== null,
      specialUse,
      createdAt: new Date().toISOString(),
    };
  }
}

const refOf = (f: ImapFolderRecord): MailboxRef => ({ id: f.id, name: f.name, uidValidity: f.uidValidity, uidNext: f.uidNext });
