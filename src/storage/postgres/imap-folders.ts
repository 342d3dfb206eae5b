// PostgreSQL implementation of ImapFolderRepository (src/storage/imap-folders.ts), the SQLite one
// (../sqlite/imap-folders.ts) statement for statement, with three differences that matter:
// - several nodes: claimRecent is one statement that reads and raises the mark under the row's
//   lock, so two sessions on two nodes never both get the same \Recent range;
// - modseqs: the triggers of migration 0028 take each changed row's modseq from its mailbox's
//   counter themselves (under the counter row's lock), so writers here do not compute it;
// - COPY's column list comes from information_schema.columns (SQLite: pragma_table_info), read
//   once per COPY command (a catalogue query beside one insert per message): a column added by a
//   later migration is copied without a list to keep in step.
import { newId } from "../../lib/ids";
import type { CopiedMessage, FolderCounts, ImapFolderRecord, ImapFolderRepositories, ImapFolderRepository } from "../imap-folders";
import type { PgClient } from "./connection";
import { lockInboxRows, takeMailboxUid } from "./inboxes";
import { num, type Row } from "./rows";

const fromRow = (r: Row): ImapFolderRecord => ({
  id: r.id,
  inboxId: r.inbox_id,
  name: r.name,
  uidValidity: num(r.uid_validity),
  uidNext: num(r.uid_next),
  subscribed: r.subscribed === 1,
  specialUse: r.special_use,
  createdAt: r.created_at,
});

/** A copy's own columns; every other column of `messages` is carried over as it is. */
export const COPY_OWN_COLUMNS = new Set(["id", "uid", "mailbox_id", "modseq"]);

/** LIKE pattern for the names under `name` ("name/…"), with LIKE's wildcards escaped. */
const under = (name: string) => `${name.replace(/[\\%_]/g, "\\$&")}/%`;

/**
 * "The message is in this mailbox" for parameter $n: `IS NULL` for INBOX, `=` otherwise, never
 * `IS NOT DISTINCT FROM`, which no index serves.
 */
const inMailbox = (folderId: string | null, n: number) => (folderId === null ? "mailbox_id IS NULL" : `mailbox_id = $${n}::text`);

/** UIDs as a parameter: the driver binds string[] as text[], cast to the column's type. */
const uidList = (uids: number[]) => uids.map(String);

/** The columns of `messages` that COPY carries over, in table order, as PostgreSQL lists them. */
export async function copiedMessageColumns(c: PgClient): Promise<string[]> {
  const rows = await c.rows<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = 'messages' ORDER BY ordinal_position`,
  );
  return rows.map((r) => r.column_name).filter((n) => !COPY_OWN_COLUMNS.has(n));
}

class PgImapFolders implements ImapFolderRepository {
  constructor(private readonly c: PgClient) {}

  async ofInbox(inboxId: string) {
    return (await this.c.rows<Row>("SELECT * FROM imap_mailboxes WHERE inbox_id = $1 ORDER BY name", inboxId)).map(fromRow);
  }

  async byName(inboxId: string, name: string) {
    const r = await this.c.row<Row>("SELECT * FROM imap_mailboxes WHERE inbox_id = $1 AND name = $2", inboxId, name);
    return r ? fromRow(r) : null;
  }

  async byId(id: string) {
    const r = await this.c.row<Row>("SELECT * FROM imap_mailboxes WHERE id = $1", id);
    return r ? fromRow(r) : null;
  }

  async namesOf(ids: string[]) {
    const out = new Map<string, string>();
    if (ids.length === 0) return out;
    for (const r of await this.c.rows<{ id: string; name: string }>(
      "SELECT id, name FROM imap_mailboxes WHERE id = ANY($1::text[])",
      ids,
    )) {
      out.set(r.id, r.name);
    }
    return out;
  }

  async nextUidValidity(inboxId: string, atLeast: number) {
    const r = await this.c.row<{ v: string }>(
      `UPDATE inboxes SET last_folder_uid_validity = GREATEST(last_folder_uid_validity + 1, $1::bigint) WHERE id = $2
       RETURNING last_folder_uid_validity AS v`,
      atLeast,
      inboxId,
    );
    return r ? num(r.v) : atLeast;
  }

  async insert(r: ImapFolderRecord) {
    return (
      (await this.c.run(
        `INSERT INTO imap_mailboxes (id, inbox_id, name, uid_validity, uid_next, subscribed, special_use, created_at)
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8) ON CONFLICT (inbox_id, name) DO NOTHING`,
        r.id,
        r.inboxId,
        r.name,
        r.uidValidity,
        r.uidNext,
        r.subscribed ? 1 : 0,
        r.specialUse,
        r.createdAt,
      )) > 0
    );
  }

  async rename(inboxId: string, from: string, to: string) {
    await this.c.run(
      `UPDATE imap_mailboxes SET name = $3 || substr(name, length($2) + 1)
       WHERE inbox_id = $1 AND (name = $2 OR name LIKE $4 ESCAPE '\\')`,
      inboxId,
      from,
      to,
      under(from),
    );
  }

  async remove(id: string) {
    // Its \Recent mark (migration 0026) first, found through the mailbox's inbox (the key's prefix).
    await this.c.run("DELETE FROM imap_recent WHERE inbox_id = (SELECT inbox_id FROM imap_mailboxes WHERE id = $1) AND mailbox = $1", id);
    await this.c.run("DELETE FROM imap_mailboxes WHERE id = $1", id);
  }

  async setSubscribed(id: string, on: boolean) {
    await this.c.run("UPDATE imap_mailboxes SET subscribed = $1 WHERE id = $2", on ? 1 : 0, id);
  }

  async orphanSubscriptions(inboxId: string) {
    const rows = await this.c.rows<{ name: string }>(
      "SELECT name FROM imap_orphan_subscriptions WHERE inbox_id = $1 ORDER BY name",
      inboxId,
    );
    return rows.map((r) => r.name);
  }

  async setOrphanSubscription(inboxId: string, name: string, on: boolean) {
    // One statement each way, so "was it there" is the answer of the write itself.
    if (on) {
      const added = await this.c.run(
        "INSERT INTO imap_orphan_subscriptions (inbox_id, name) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        inboxId,
        name,
      );
      return added === 0;
    }
    return (await this.c.run("DELETE FROM imap_orphan_subscriptions WHERE inbox_id = $1 AND name = $2", inboxId, name)) > 0;
  }

  async counts(inboxId: string, folderId: string | null): Promise<FolderCounts> {
    if (folderId === null) {
      // INBOX: the inbox's counters (kept by triggers) less the mail filed elsewhere.
      const r = await this.c.row<Row>(
        `SELECT i.message_count AS n, i.unread_count AS unseen, i.used_bytes AS bytes, i.uid_next, i.highest_modseq,
                o.n AS other_n, o.unseen AS other_unseen, o.bytes AS other_bytes,
                (SELECT MAX(uid) FROM messages m WHERE m.inbox_id = i.id AND m.mailbox_id IS NULL) AS max_uid
         FROM inboxes i,
              LATERAL (SELECT COUNT(*) AS n, COUNT(*) FILTER (WHERE m.read = 0) AS unseen, COALESCE(SUM(m.size_bytes), 0) AS bytes
                       FROM messages m WHERE m.inbox_id = i.id AND m.mailbox_id IS NOT NULL) o
         WHERE i.id = $1`,
        inboxId,
      );
      if (!r) return { messages: 0, unseen: 0, bytes: 0, maxUid: null, uidNext: 1, highestModseq: 1 };
      return {
        messages: num(r.n) - num(r.other_n),
        unseen: num(r.unseen) - num(r.other_unseen),
        bytes: num(r.bytes) - num(r.other_bytes),
        maxUid: num(r.max_uid),
        uidNext: num(r.uid_next),
        highestModseq: num(r.highest_modseq),
      };
    }
    const r = (await this.c.row<Row>(
      `SELECT COUNT(*) AS n, COUNT(*) FILTER (WHERE read = 0) AS unseen, COALESCE(SUM(size_bytes), 0) AS bytes, MAX(uid) AS max_uid,
              (SELECT uid_next FROM imap_mailboxes WHERE id = $2) AS uid_next,
              (SELECT highest_modseq FROM imap_mailboxes WHERE id = $2) AS highest_modseq
       FROM messages WHERE inbox_id = $1 AND mailbox_id = $2`,
      inboxId,
      folderId,
    ))!;
    return {
      messages: num(r.n),
      unseen: num(r.unseen),
      bytes: num(r.bytes),
      maxUid: num(r.max_uid),
      uidNext: num(r.uid_next ?? 1),
      highestModseq: num(r.highest_modseq ?? 1),
    };
  }

  /** Creates the mailbox's mark if it has none (INBOX: at its highest UID; another mailbox: 0). */
  private async ensureMark(inboxId: string, folderId: string | null): Promise<void> {
    // ON CONFLICT: a session on another node may create it at the same moment; the first one wins.
    await this.c.run(
      `INSERT INTO imap_recent (inbox_id, mailbox, last_uid)
       SELECT $1, $2, ${folderId === null ? "COALESCE((SELECT MAX(uid) FROM messages WHERE inbox_id = $1 AND mailbox_id IS NULL), 0)" : "0"}
       WHERE NOT EXISTS (SELECT 1 FROM imap_recent WHERE inbox_id = $1 AND mailbox = $2)
       ON CONFLICT (inbox_id, mailbox) DO NOTHING`,
      inboxId,
      folderId ?? "",
    );
  }

  private async countRange(inboxId: string, folderId: string | null, after: number, upTo: number): Promise<number> {
    const r = await this.c.row<{ n: string }>(
      `SELECT COUNT(*) AS n FROM messages WHERE inbox_id = $1 AND ${inMailbox(folderId, 4)} AND uid > $2 AND uid <= $3`,
      inboxId,
      after,
      upTo,
      ...(folderId === null ? [] : [folderId]),
    );
    return num(r!.n);
  }

  async recentMark(inboxId: string, folderId: string | null) {
    await this.ensureMark(inboxId, folderId);
    const r = await this.c.row<{ last_uid: string }>(
      "SELECT last_uid FROM imap_recent WHERE inbox_id = $1 AND mailbox = $2",
      inboxId,
      folderId ?? "",
    );
    const mark = num(r!.last_uid);
    return { mark, above: await this.countRange(inboxId, folderId, mark, Number.MAX_SAFE_INTEGER) };
  }

  async claimRecent(inboxId: string, folderId: string | null, upTo: number) {
    await this.ensureMark(inboxId, folderId);
    // Read the old mark and raise it in one statement: the sub-select locks the row (a second
    // claimer waits, then reads the mark the first one left), so two sessions on any nodes get
    // disjoint ranges (mark, upTo]. RETURNING shows new values only, hence the sub-select.
    const r = await this.c.row<{ old: string }>(
      `UPDATE imap_recent r SET last_uid = GREATEST(o.last_uid, $3)
       FROM (SELECT last_uid FROM imap_recent WHERE inbox_id = $1 AND mailbox = $2 FOR UPDATE) o
       WHERE r.inbox_id = $1 AND r.mailbox = $2 RETURNING o.last_uid AS old`,
      inboxId,
      folderId ?? "",
      upTo,
    );
    const from = num(r!.old);
    if (upTo <= from) return { from, count: 0 };
    return { from, count: await this.countRange(inboxId, folderId, from, upTo) };
  }

  async messageIds(inboxId: string, folderId: string, limit: number) {
    const rows = await this.c.rows<{ id: string }>(
      "SELECT id FROM messages WHERE inbox_id = $1 AND mailbox_id = $2 LIMIT $3",
      inboxId,
      folderId,
      limit,
    );
    return rows.map((r) => r.id);
  }

  async adoptInbox(inboxId: string, folderId: string) {
    await lockInboxRows(this.c, [inboxId]); // before its messages' rows (lockInboxRows says why)
    const n = await this.c.run("UPDATE messages SET mailbox_id = $1 WHERE inbox_id = $2 AND mailbox_id IS NULL", folderId, inboxId);
    await this.c.run(
      `UPDATE imap_mailboxes SET uid_next = GREATEST(uid_next, COALESCE((SELECT MAX(uid) + 1 FROM messages WHERE inbox_id = $1 AND mailbox_id = $2), 1))
       WHERE id = $2`,
      inboxId,
      folderId,
    );
    return n;
  }

  async copy(inboxId: string, fromFolderId: string | null, uids: number[], folderId: string | null) {
    const kept = (await copiedMessageColumns(this.c)).join(", ");
    const out: CopiedMessage[] = [];
    for (const sourceUid of uids) {
      const src = await this.c.row<{ id: string }>(
        `SELECT id FROM messages WHERE inbox_id = $1 AND ${inMailbox(fromFolderId, 3)} AND uid = $2`,
        inboxId,
        sourceUid,
        ...(fromFolderId === null ? [] : [fromFolderId]),
      );
      if (!src) continue;
      // The target's own counter (migration 0029); its row lock lives until COMMIT, so UIDs commit in order.
      const taken = await takeMailboxUid(this.c, inboxId, folderId);
      if (!taken) break;
      const uid = taken;
      const id = newId();
      // modseq: the insert trigger gives the copy the next value of its new mailbox's counter.
      await this.c.run(
        `INSERT INTO messages (id, uid, mailbox_id, ${kept}) SELECT $1, $2, $3::text, ${kept} FROM messages WHERE id = $4`,
        id,
        uid,
        folderId,
        src.id,
      );
      // Attachment rows get ids of their own (the API names them); the blobs are shared.
      for (const a of await this.c.rows<{ id: string }>("SELECT id FROM attachments WHERE message_id = $1 ORDER BY position", src.id)) {
        await this.c.run(
          `INSERT INTO attachments (id, message_id, position, filename, declared_content_type, served_content_type, disposition,
             content_id, size_bytes, sha256, blob_key)
           SELECT $1, $2, position, filename, declared_content_type, served_content_type, disposition,
             content_id, size_bytes, sha256, blob_key FROM attachments WHERE id = $3`,
          newId(),
          id,
          a.id,
        );
      }
      out.push({ sourceUid, id, uid });
    }
    return out;
  }

  async foldersOf(ids: string[]) {
    const out = new Map<string, string | null>();
    if (ids.length === 0) return out;
    for (const r of await this.c.rows<{ id: string; mailbox_id: string | null }>(
      "SELECT id, mailbox_id FROM messages WHERE id = ANY($1::text[])",
      ids,
    )) {
      out.set(r.id, r.mailbox_id);
    }
    return out;
  }

  async extraFlags(inboxId: string, folderId: string | null, uids: number[] | null) {
    const out = new Map<number, string>();
    if (uids?.length === 0) return out;
    const folder = folderId === null ? [] : [folderId];
    const rows = uids
      ? await this.c.rows<{ uid: number; imap_flags: string }>(
          `SELECT uid, imap_flags FROM messages
           WHERE inbox_id = $1 AND ${inMailbox(folderId, 3)} AND imap_flags IS NOT NULL AND uid = ANY($2::text[]::int[])`,
          inboxId,
          uidList(uids),
          ...folder,
        )
      : await this.c.rows<{ uid: number; imap_flags: string }>(
          `SELECT uid, imap_flags FROM messages WHERE inbox_id = $1 AND ${inMailbox(folderId, 2)} AND imap_flags IS NOT NULL`,
          inboxId,
          ...folder,
        );
    for (const r of rows) out.set(num(r.uid), r.imap_flags);
    return out;
  }

  async setExtraFlags(inboxId: string, folderId: string | null, changes: Array<{ uid: number; flags: string | null }>) {
    // modseq: messages_modseq_net (migration 0028) gives each changed row the next value. The inbox's
    // row first (lockInboxRows says why).
    if (changes.length > 0) await lockInboxRows(this.c, [inboxId]);
    for (const ch of changes) {
      await this.c.run(
        `UPDATE messages SET imap_flags = $1::text
         WHERE inbox_id = $2 AND ${inMailbox(folderId, 4)} AND uid = $3 AND imap_flags IS DISTINCT FROM $1::text`,
        ch.flags || null,
        inboxId,
        ch.uid,
        ...(folderId === null ? [] : [folderId]),
      );
    }
  }

  async highestModseq(inboxId: string, folderId: string | null) {
    const r =
      folderId === null
        ? await this.c.row<{ h: string }>("SELECT highest_modseq AS h FROM inboxes WHERE id = $1", inboxId)
        : await this.c.row<{ h: string }>("SELECT highest_modseq AS h FROM imap_mailboxes WHERE id = $1", folderId);
    return r ? num(r.h) : 1;
  }

  async modseqs(inboxId: string, folderId: string | null, uids: number[]) {
    const out = new Map<number, number>();
    if (uids.length === 0) return out;
    for (const r of await this.c.rows<{ uid: number; modseq: string }>(
      `SELECT uid, modseq FROM messages WHERE inbox_id = $1 AND ${inMailbox(folderId, 3)} AND uid = ANY($2::text[]::int[])`,
      inboxId,
      uidList(uids),
      ...(folderId === null ? [] : [folderId]),
    )) {
      out.set(num(r.uid), num(r.modseq));
    }
    return out;
  }

  async changedSince(inboxId: string, folderId: string | null, modseq: number) {
    const out = new Map<number, number>();
    for (const r of await this.c.rows<{ uid: number; modseq: string }>(
      `SELECT uid, modseq FROM messages WHERE inbox_id = $1 AND ${inMailbox(folderId, 3)} AND modseq > $2`,
      inboxId,
      modseq,
      ...(folderId === null ? [] : [folderId]),
    )) {
      out.set(num(r.uid), num(r.modseq));
    }
    return out;
  }

  async keywords(inboxId: string) {
    const out = new Set<string>();
    for (const r of await this.c.rows<{ imap_flags: string }>(
      "SELECT DISTINCT imap_flags FROM messages WHERE inbox_id = $1 AND imap_flags IS NOT NULL",
      inboxId,
    )) {
      for (const f of r.imap_flags.split(" ")) if (f && !f.startsWith("\\")) out.add(f);
    }
    return [...out].sort();
  }
}

export function postgresImapFolderRepositories(c: PgClient): ImapFolderRepositories {
  return { imapFolders: new PgImapFolders(c) };
}
