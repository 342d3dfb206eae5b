// SQLite implementation of ImapFolderRepository (storage/imap-folders.ts; migration 0025).
import type { CopiedMessage, FolderCounts, ImapFolderRecord, ImapFolderRepositories, ImapFolderRepository } from "../imap-folders";
import type { SqliteConnection, SqlReader } from "./connection";
import { newId } from "../../lib/ids";
import { NEXT_MODSEQ } from "./migrations/0028_condstore";
import { yieldToLoop } from "../../lib/batches";

/**
 * UIDs (so at most as many index entries) one step of a \Recent count walks before the event
 * loop gets a turn (countRange): well under 1 ms from the page cache; 50,000 held the loop up to
 * 290 ms when the index pages had to come from the disk.
 */
const RECENT_WINDOW = 4096;

const fromRow = (r: Record<string, any>): ImapFolderRecord => ({
  id: r.id,
  inboxId: r.inbox_id,
  name: r.name,
  uidValidity: r.uid_validity,
  uidNext: r.uid_next,
  subscribed: r.subscribed === 1,
  specialUse: r.special_use,
  createdAt: r.created_at,
});

/** Every column of a message but id, uid and mailbox_id (what a copy keeps). */
/** A copy's own columns; every other column of `messages` is carried over as it is. */
const OWN = new Set(["id", "uid", "mailbox_id", "modseq"]);

/** LIKE pattern for the names under `name` ("name/…"), with LIKE's wildcards escaped. */
const under = (name: string) => `${name.replace(/[\\%_]/g, "\\$&")}/%`;

class SqliteImapFolders implements ImapFolderRepository {
  /**
   * The columns COPY carries over, read from the table itself: a column added later (the
   * compressed bodies, flags) is copied without anyone having to remember this list.
   */
  private readonly kept: string;

  constructor(private readonly c: SqliteConnection) {
    this.kept = c
      .all<{ name: string }>("SELECT name FROM pragma_table_info('messages')")
      .map((r) => r.name)
      .filter((n) => !OWN.has(n))
      .join(", ");
  }

  async ofInbox(inboxId: string) {
    return this.c.all<Record<string, any>>("SELECT * FROM imap_mailboxes WHERE inbox_id = ? ORDER BY name", inboxId).map(fromRow);
  }

  async byName(inboxId: string, name: string) {
    const r = this.c.get<Record<string, any>>("SELECT * FROM imap_mailboxes WHERE inbox_id = ? AND name = ?", inboxId, name);
    return r ? fromRow(r) : null;
  }

  async byId(id: string) {
    const r = this.c.get<Record<string, any>>("SELECT * FROM imap_mailboxes WHERE id = ?", id);
    return r ? fromRow(r) : null;
  }

  async namesOf(ids: string[]) {
    const out = new Map<string, string>();
    if (ids.length === 0) return out;
    for (const r of this.c.all<{ id: string; name: string }>(
      "SELECT id, name FROM imap_mailboxes WHERE id IN (SELECT value FROM json_each(?))",
      JSON.stringify(ids),
    )) {
      out.set(r.id, r.name);
    }
    return out;
  }

  async nextUidValidity(inboxId: string, atLeast: number) {
    return (
      this.c.get<{ v: number }>(
        `UPDATE inboxes SET last_folder_uid_validity = MAX(last_folder_uid_validity + 1, ?) WHERE id = ?
         RETURNING last_folder_uid_validity AS v`,
        atLeast,
        inboxId,
      )?.v ?? atLeast
    );
  }

  async insert(r: ImapFolderRecord) {
    return (
      this.c.run(
        `INSERT INTO imap_mailboxes (id, inbox_id, name, uid_validity, uid_next, subscribed, special_use, created_at)
         VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (inbox_id, name) DO NOTHING`,
        r.id,
        r.inboxId,
        r.name,
        r.uidValidity,
        r.uidNext,
        r.subscribed ? 1 : 0,
        r.specialUse,
        r.createdAt,
      ).changes > 0
    );
  }

  async rename(inboxId: string, from: string, to: string) {
    this.c.run(
      `UPDATE imap_mailboxes SET name = ?3 || substr(name, length(?2) + 1)
       WHERE inbox_id = ?1 AND (name = ?2 OR name LIKE ?4 ESCAPE '\\')`,
      inboxId,
      from,
      to,
      under(from),
    );
  }

  async remove(id: string) {
    // Its \Recent mark (migration 0026) first, found through the mailbox's inbox (the key's prefix).
    this.c.run("DELETE FROM imap_recent WHERE inbox_id = (SELECT inbox_id FROM imap_mailboxes WHERE id = ?1) AND mailbox = ?1", id);
    this.c.run("DELETE FROM imap_mailboxes WHERE id = ?", id);
  }

  async setSubscribed(id: string, on: boolean) {
    this.c.run("UPDATE imap_mailboxes SET subscribed = ? WHERE id = ?", on ? 1 : 0, id);
  }

  async orphanSubscriptions(inboxId: string) {
    return this.c
      .all<{ name: string }>("SELECT name FROM imap_orphan_subscriptions WHERE inbox_id = ? ORDER BY name", inboxId)
      .map((r) => r.name);
  }

  async setOrphanSubscription(inboxId: string, name: string, on: boolean) {
    const had = !!this.c.get("SELECT 1 AS x FROM imap_orphan_subscriptions WHERE inbox_id = ? AND name = ?", inboxId, name);
    if (on) this.c.run("INSERT OR IGNORE INTO imap_orphan_subscriptions (inbox_id, name) VALUES (?, ?)", inboxId, name);
    else this.c.run("DELETE FROM imap_orphan_subscriptions WHERE inbox_id = ? AND name = ?", inboxId, name);
    return had;
  }

  async counts(inboxId: string, folderId: string | null): Promise<FolderCounts> {
    return folderCounts(this.c, inboxId, folderId);
  }

  private mark(inboxId: string, folderId: string | null): number {
    const key = folderId ?? "";
    const r = this.c.get<{ last_uid: number }>("SELECT last_uid FROM imap_recent WHERE inbox_id = ? AND mailbox = ?", inboxId, key);
    if (r) return r.last_uid;
    const start =
      folderId === null
        ? (this.c.get<{ u: number | null }>(
            "SELECT MAX(uid) AS u FROM messages INDEXED BY messages_mailbox WHERE inbox_id = ? AND mailbox_id IS NULL",
            inboxId,
          )?.u ?? 0)
        : 0;
    this.c.run("INSERT OR IGNORE INTO imap_recent (inbox_id, mailbox, last_uid) VALUES (?, ?, ?)", inboxId, key, start);
    return start;
  }

  /**
   * How many messages of the mailbox have a UID in (after, upTo]. One COUNT walks every index
   * entry of the range while the event loop waits: the first SELECT after 810,000 arrivals held it
   * 70-110 ms, seconds with the index pages not in the page cache (issue 19). So a long range is counted in windows of RECENT_WINDOW UIDs (at most that
   * many entries each, as UIDs are unique) with a turn of the loop between them; each window
   * starts at the next UID present, so gaps left by deletions cost one index seek, not a window
   * each; INBOX, whose size is kept, may count the entries at or below `after` instead. Inside a
   * transaction (the connection is the caller's until it ends) it is one statement.
   * Between windows other writers may commit: a message deleted meanwhile may or may not be
   * counted, which \Recent, a hint, tolerates.
   */
  private async countRange(inboxId: string, folderId: string | null, after: number, upTo: number): Promise<number> {
    if (this.c.open) return this.countIn(inboxId, folderId, after, upTo);
    if (folderId === null && after > 0) {
      // INBOX's size is a kept counter (folderCounts): with fewer UIDs at or below the mark than
      // above it, count those and subtract (a first SELECT at 1M after the 100k run: 90,000
      // entries instead of 810,000).
      const atOrBelowUpTo = await this.c.whenIdle(() => {
        const c = folderCounts(this.c, inboxId, null);
        const top = Math.min(upTo, c.maxUid ?? 0);
        if (after >= top - after) return null;
        return c.messages - (upTo < (c.maxUid ?? 0) ? this.countIn(inboxId, null, upTo, Number.MAX_SAFE_INTEGER) : 0);
      });
      if (atOrBelowUpTo !== null) return atOrBelowUpTo - (await this.countWindows(inboxId, null, 0, after));
    }
    return this.countWindows(inboxId, folderId, after, upTo);
  }

  /** countRange a window at a time, with a turn of the event loop between windows. */
  private async countWindows(inboxId: string, folderId: string | null, after: number, upTo: number): Promise<number> {
    let total = 0;
    for (let from = after; from < upTo; ) {
      const n = await this.c.whenIdle(() => {
        const next = this.c.get<{ uid: number }>(
          "SELECT uid FROM messages INDEXED BY messages_mailbox WHERE inbox_id = ? AND mailbox_id IS ? AND uid > ? AND uid <= ? ORDER BY uid LIMIT 1",
          inboxId,
          folderId,
          from,
          upTo,
        )?.uid;
        if (next === undefined) return null;
        const end = Math.min(upTo, next - 1 + RECENT_WINDOW);
        const counted = this.countIn(inboxId, folderId, next - 1, end);
        from = end;
        return counted;
      });
      if (n === null) break;
      total += n;
      if (from < upTo) await yieldToLoop();
    }
    return total;
  }

  private countIn(inboxId: string, folderId: string | null, after: number, upTo: number): number {
    return this.c.get<{ n: number }>(
      "SELECT COUNT(*) AS n FROM messages INDEXED BY messages_mailbox WHERE inbox_id = ? AND mailbox_id IS ? AND uid > ? AND uid <= ?",
      inboxId,
      folderId,
      after,
      upTo,
    )!.n;
  }

  async recentMark(inboxId: string, folderId: string | null) {
    const mark = await this.writing(() => this.mark(inboxId, folderId), this.markRow(inboxId, folderId) === null);
    return { mark, above: await this.countRange(inboxId, folderId, mark, Number.MAX_SAFE_INTEGER) };
  }

  async claimRecent(inboxId: string, folderId: string | null, upTo: number) {
    // Read and raised in one synchronous step (atomic on the one connection); a read only when
    // there is nothing new to hand out (a SELECT again).
    const seen = this.markRow(inboxId, folderId);
    const take = () => {
      const from = this.mark(inboxId, folderId);
      if (upTo > from) this.c.run("UPDATE imap_recent SET last_uid = ? WHERE inbox_id = ? AND mailbox = ?", upTo, inboxId, folderId ?? "");
      return from;
    };
    const from = await this.writing(take, seen === null || upTo > seen);
    if (upTo <= from) return { from, count: 0 };
    return { from, count: await this.countRange(inboxId, folderId, from, upTo) };
  }

  private markRow(inboxId: string, folderId: string | null): number | null {
    return (
      this.c.get<{ last_uid: number }>("SELECT last_uid FROM imap_recent WHERE inbox_id = ? AND mailbox = ?", inboxId, folderId ?? "")
        ?.last_uid ?? null
    );
  }

  /**
   * Runs `step` (synchronous) as a transaction of ours when it writes: its WAL frames are then
   * flushed on the thread pool (connection.ts), where an autocommit would fsync them on the event
   * loop (the \Recent mark's UPDATE took 85 ms while another process wrote to the disk, issue 19).
   * Inside a caller's transaction it simply runs.
   */
  private async writing<T>(step: () => T, writes: boolean): Promise<T> {
    if (!writes || this.c.open) return step();
    return await this.c.transaction(async () => step());
  }

  async messageIds(inboxId: string, folderId: string, limit: number) {
    return this.c
      .all<{ id: string }>("SELECT id FROM messages WHERE inbox_id = ? AND mailbox_id = ? LIMIT ?", inboxId, folderId, limit)
      .map((r) => r.id);
  }

  async adoptInbox(inboxId: string, folderId: string) {
    const n = this.c.run("UPDATE messages SET mailbox_id = ? WHERE inbox_id = ? AND mailbox_id IS NULL", folderId, inboxId).changes;
    this.c.run(
      `UPDATE imap_mailboxes SET uid_next = MAX(uid_next, COALESCE((SELECT MAX(uid) + 1 FROM messages WHERE inbox_id = ?1 AND mailbox_id = ?2), 1))
       WHERE id = ?2`,
      inboxId,
      folderId,
    );
    return n;
  }

  async copy(inboxId: string, fromFolderId: string | null, uids: number[], folderId: string | null) {
    const out: CopiedMessage[] = [];
    for (const sourceUid of uids) {
      const src = this.c.get<{ id: string }>(
        "SELECT id FROM messages INDEXED BY messages_mailbox WHERE inbox_id = ? AND mailbox_id IS ? AND uid = ?",
        inboxId,
        fromFolderId,
        sourceUid,
      );
      if (!src) continue;
      // The target's own counter (migration 0029): its next UID is the UIDNEXT it announced.
      const taken =
        folderId === null
          ? this.c.get<{ uid: number }>("UPDATE inboxes SET uid_next = uid_next + 1 WHERE id = ? RETURNING uid_next - 1 AS uid", inboxId)
          : this.c.get<{ uid: number }>(
              "UPDATE imap_mailboxes SET uid_next = uid_next + 1 WHERE id = ? AND inbox_id = ? RETURNING uid_next - 1 AS uid",
              folderId,
              inboxId,
            );
      if (!taken) break;
      const uid = taken.uid;
      const id = newId();
      const row = this.c.get<{ rowid: number }>(
        `INSERT INTO messages (id, uid, mailbox_id, modseq, ${this.kept})
         SELECT ?1, ?2, ?3, 1 + COALESCE((SELECT highest_modseq FROM imap_mailboxes WHERE id = ?3),
                                         (SELECT highest_modseq FROM inboxes WHERE id = ?5)), ${this.kept}
         FROM messages WHERE id = ?4 RETURNING rowid`,
        id,
        uid,
        folderId,
        src.id,
        inboxId,
      )!;
      // Attachment rows get ids of their own (the API names them); the blobs are shared.
      for (const a of this.c.all<{ id: string }>("SELECT id FROM attachments WHERE message_id = ? ORDER BY position", src.id)) {
        this.c.run(
          `INSERT INTO attachments (id, message_id, position, filename, declared_content_type, served_content_type, disposition,
             content_id, size_bytes, sha256, blob_key)
           SELECT ?, ?, position, filename, declared_content_type, served_content_type, disposition,
             content_id, size_bytes, sha256, blob_key FROM attachments WHERE id = ?`,
          newId(),
          id,
          a.id,
        );
      }
      this.c.search.enqueued(
        this.c.get<{ seq: number }>("INSERT INTO search_queue (msg_rowid, op) VALUES (?, 1) RETURNING seq", row.rowid)!.seq,
      );
      out.push({ sourceUid, id, uid });
    }
    return out;
  }

  async foldersOf(ids: string[]) {
    const out = new Map<string, string | null>();
    if (ids.length === 0) return out;
    for (const r of this.c.all<{ id: string; mailbox_id: string | null }>(
      "SELECT id, mailbox_id FROM messages WHERE id IN (SELECT value FROM json_each(?))",
      JSON.stringify(ids),
    )) {
      out.set(r.id, r.mailbox_id);
    }
    return out;
  }

  async extraFlags(inboxId: string, folderId: string | null, uids: number[] | null) {
    const out = new Map<number, string>();
    if (uids?.length === 0) return out;
    for (const r of this.c.all<{ uid: number; imap_flags: string }>(
      `SELECT uid, imap_flags FROM messages INDEXED BY messages_imap_flags
       WHERE inbox_id = ?1 AND imap_flags IS NOT NULL AND mailbox_id IS ?3 AND (?2 IS NULL OR uid IN (SELECT value FROM json_each(?2)))`,
      inboxId,
      uids ? JSON.stringify(uids) : null,
      folderId,
    )) {
      out.set(r.uid, r.imap_flags);
    }
    return out;
  }

  async setExtraFlags(inboxId: string, folderId: string | null, changes: Array<{ uid: number; flags: string | null }>) {
    for (const ch of changes) {
      this.c.run(
        `UPDATE messages INDEXED BY messages_mailbox SET imap_flags = ?1, modseq = ${NEXT_MODSEQ}
         WHERE inbox_id = ?2 AND mailbox_id IS ?4 AND uid = ?3 AND imap_flags IS NOT ?1`,
        ch.flags || null,
        inboxId,
        ch.uid,
        folderId,
      );
    }
  }

  async highestModseq(inboxId: string, folderId: string | null) {
    const r =
      folderId === null
        ? this.c.get<{ h: number }>("SELECT highest_modseq AS h FROM inboxes WHERE id = ?", inboxId)
        : this.c.get<{ h: number }>("SELECT highest_modseq AS h FROM imap_mailboxes WHERE id = ?", folderId);
    return r?.h ?? 1;
  }

  async modseqs(inboxId: string, folderId: string | null, uids: number[]) {
    const out = new Map<number, number>();
    if (uids.length === 0) return out;
    for (const r of this.c.all<{ uid: number; modseq: number }>(
      "SELECT uid, modseq FROM messages INDEXED BY messages_mailbox WHERE inbox_id = ? AND mailbox_id IS ? AND uid IN (SELECT value FROM json_each(?))",
      inboxId,
      folderId,
      JSON.stringify(uids),
    )) {
      out.set(r.uid, r.modseq);
    }
    return out;
  }

  async changedSince(inboxId: string, folderId: string | null, modseq: number) {
    const out = new Map<number, number>();
    for (const r of this.c.all<{ uid: number; modseq: number }>(
      "SELECT uid, modseq FROM messages INDEXED BY messages_modseq WHERE inbox_id = ? AND mailbox_id IS ? AND modseq > ?",
      inboxId,
      folderId,
      modseq,
    )) {
      out.set(r.uid, r.modseq);
    }
    return out;
  }

  async keywords(inboxId: string) {
    const out = new Set<string>();
    for (const r of this.c.all<{ imap_flags: string }>(
      "SELECT DISTINCT imap_flags FROM messages INDEXED BY messages_imap_flags WHERE inbox_id = ? AND imap_flags IS NOT NULL",
      inboxId,
    )) {
      for (const f of r.imap_flags.split(" ")) if (f && !f.startsWith("\\")) out.add(f);
    }
    return [...out].sort();
  }
}

export function sqliteImapFolderRepositories(c: SqliteConnection): ImapFolderRepositories {
  return { imapFolders: new SqliteImapFolders(c) };
}

/** The counts of one mailbox (a view's snapshot reads them too: mailbox-snapshot.ts). */
export function folderCounts(c: SqlReader, inboxId: string, folderId: string | null): FolderCounts {
  if (folderId === null) {
    // INBOX: the inbox's counters (kept by triggers) less the mail filed elsewhere, so a
    // million-message INBOX costs a walk over the (usually few) other mailboxes' entries only.
    const r = c.get<{
      n: number;
      unseen: number;
      bytes: number;
      other_n: number;
      other_unseen: number;
      other_bytes: number;
      max_uid: number | null;
      uid_next: number;
      highest_modseq: number;
    }>(
      `SELECT i.message_count AS n, i.unread_count AS unseen, i.used_bytes AS bytes, i.uid_next, i.highest_modseq,
              (SELECT COALESCE(SUM(size_bytes), 0) FROM messages m INDEXED BY messages_mailbox
                WHERE m.inbox_id = i.id AND m.mailbox_id IS NOT NULL) AS other_bytes,
              (SELECT COUNT(*) FROM messages m INDEXED BY messages_mailbox WHERE m.inbox_id = i.id AND m.mailbox_id IS NOT NULL) AS other_n,
              (SELECT COUNT(*) FROM messages m INDEXED BY messages_mailbox
                WHERE m.inbox_id = i.id AND m.mailbox_id IS NOT NULL AND m.read = 0) AS other_unseen,
              (SELECT MAX(uid) FROM messages m INDEXED BY messages_mailbox WHERE m.inbox_id = i.id AND m.mailbox_id IS NULL) AS max_uid
       FROM inboxes i WHERE i.id = ?`,
      inboxId,
    );
    if (!r) return { messages: 0, unseen: 0, bytes: 0, maxUid: null, uidNext: 1, highestModseq: 1 };
    return {
      messages: r.n - r.other_n,
      unseen: r.unseen - r.other_unseen,
      bytes: r.bytes - r.other_bytes,
      maxUid: r.max_uid,
      uidNext: r.uid_next,
      highestModseq: r.highest_modseq,
    };
  }
  const r = c.get<{
    n: number;
    unseen: number;
    bytes: number;
    max_uid: number | null;
    uid_next: number | null;
    highest_modseq: number | null;
  }>(
    `SELECT COUNT(*) AS n, COALESCE(SUM(read = 0), 0) AS unseen, COALESCE(SUM(size_bytes), 0) AS bytes, MAX(uid) AS max_uid,
            (SELECT uid_next FROM imap_mailboxes WHERE id = ?2) AS uid_next,
            (SELECT highest_modseq FROM imap_mailboxes WHERE id = ?2) AS highest_modseq
     FROM messages INDEXED BY messages_mailbox WHERE inbox_id = ?1 AND mailbox_id = ?2`,
    inboxId,
    folderId,
  )!;
  return {
    messages: r.n,
    unseen: r.unseen,
    bytes: r.bytes,
    maxUid: r.max_uid,
    uidNext: r.uid_next ?? 1,
    highestModseq: r.highest_modseq ?? 1,
  };
}
