// PostgreSQL implementation of the attachment, blob-reference and auth-check repositories
// (src/storage/mail.ts), ../sqlite/attachments.ts and ../sqlite/message-auth.ts statement for statement.
import type {
  AttachmentRecord,
  AttachmentRepository,
  BlobRefRepository,
  MessageAuthRecord,
  MessageAuthRepository,
  PendingAuth,
} from "../mail";
import type { PgClient } from "./connection";
import { num, type Row } from "./rows";

const attachment = (r: Row): AttachmentRecord => ({ ...(r as AttachmentRecord), size_bytes: num(r.size_bytes) });

export class PgAttachments implements AttachmentRepository {
  constructor(private readonly c: PgClient) {}

  async ofMessages(messageIds: string[]) {
    if (messageIds.length === 0) return [];
    const rows = await this.c.rows<Row>(
      "SELECT * FROM attachments WHERE message_id = ANY($1::text[]) ORDER BY message_id, position",
      messageIds,
    );
    return rows.map(attachment);
  }

  async byId(messageId: string, id: string) {
    const r = await this.c.row<Row>("SELECT * FROM attachments WHERE id = $1 AND message_id = $2", id, messageId);
    return r ? attachment(r) : null;
  }

  async insert(records: AttachmentRecord[]) {
    for (const a of records) {
      await this.c.run(
        `INSERT INTO attachments (id, message_id, position, filename, declared_content_type, served_content_type,
           disposition, content_id, size_bytes, sha256, blob_key) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)`,
        a.id,
        a.message_id,
        a.position,
        a.filename,
        a.declared_content_type,
        a.served_content_type,
        a.disposition,
        a.content_id,
        a.size_bytes,
        a.sha256,
        a.blob_key,
      );
    }
  }
}

export class PgBlobRefs implements BlobRefRepository {
  constructor(private readonly c: PgClient) {}

  async isReferenced(key: string) {
    const r = await this.c.row<{ used: boolean }>(
      "SELECT EXISTS (SELECT 1 FROM messages WHERE blob_key = $1) OR EXISTS (SELECT 1 FROM attachments WHERE blob_key = $1) AS used",
      key,
    );
    return r!.used;
  }
}

export class PgMessageAuth implements MessageAuthRepository {
  constructor(private readonly c: PgClient) {}

  async enqueue(messageId: string, clientIp: string | null, helo: string | null) {
    await this.c.run("INSERT INTO message_auth (message_id, client_ip, helo) VALUES ($1, $2, $3)", messageId, clientIp, helo);
  }

  claimPending(limit: number, now: string, until: string, by: string) {
    // SKIP LOCKED: a node claiming at the same moment takes other rows instead of waiting; a row
    // another node claimed and committed meanwhile is re-checked against the lease and left.
    return this.c.rows<PendingAuth>(
      `WITH c AS (SELECT message_id FROM message_auth
                   WHERE verdict IS NULL AND (check_claimed_until IS NULL OR check_claimed_until <= $2 OR check_claimed_by = $4)
                   ORDER BY message_id LIMIT $1 FOR UPDATE SKIP LOCKED),
            u AS (UPDATE message_auth a SET check_claimed_until = $3, check_claimed_by = $4 FROM c WHERE a.message_id = c.message_id
                  RETURNING a.message_id, a.client_ip, a.helo)
       SELECT u.message_id, m.project_id, m.inbox_id, u.client_ip, u.helo, m.blob_key, m.envelope_from
         FROM u JOIN messages m ON m.id = u.message_id ORDER BY u.message_id`,
      limit,
      now,
      until,
      by,
    );
  }

  ofMessage(messageId: string) {
    return this.c.row<MessageAuthRecord>(
      "SELECT message_id, client_ip, helo, verdict, result_json, checked_at FROM message_auth WHERE message_id = $1",
      messageId,
    );
  }

  /**
   * Nothing for a message deleted meanwhile. FOR KEY SHARE waits for a deletion in flight and then
   * sees the row gone; a plain EXISTS saw it, and the foreign key then failed the checker's whole batch.
   */
  async record(r: Omit<MessageAuthRecord, "verdict"> & { verdict: "pass" | "fail" | "none" }) {
    await this.c.run(
      `INSERT INTO message_auth (message_id, client_ip, helo, verdict, result_json, checked_at)
       SELECT $1, $2, $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM messages WHERE id = $1 FOR KEY SHARE)
       ON CONFLICT (message_id) DO UPDATE SET verdict = excluded.verdict, result_json = excluded.result_json,
         checked_at = excluded.checked_at`,
      r.message_id,
      r.client_ip,
      r.helo,
      r.verdict,
      r.result_json,
      r.checked_at,
    );
  }
}
