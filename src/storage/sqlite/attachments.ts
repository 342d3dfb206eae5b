// SQLite implementation of the attachment and blob-reference repositories (src/storage/mail.ts).
import type { AttachmentRecord, AttachmentRepository, BlobRefRepository } from "../mail";
import type { SqliteConnection } from "./connection";

export class SqliteAttachments implements AttachmentRepository {
  constructor(private readonly c: SqliteConnection) {}

  async ofMessages(messageIds: string[]) {
    if (messageIds.length === 0) return [];
    if (messageIds.length === 1) {
      return this.c.all<AttachmentRecord>("SELECT * FROM attachments WHERE message_id = ? ORDER BY position", messageIds[0]!);
    }
    return this.c.all<AttachmentRecord>(
      "SELECT * FROM attachments WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY message_id, position",
      JSON.stringify(messageIds),
    );
  }

  async byId(messageId: string, id: string) {
    return this.c.get<AttachmentRecord>("SELECT * FROM attachments WHERE id = ? AND message_id = ?", id, messageId);
  }

  async insert(records: AttachmentRecord[]) {
    for (const a of records) {
      this.c.run(
        `INSERT INTO attachments (id, message_id, position, filename, declared_content_type, served_content_type,
           disposition, content_id, size_bytes, sha256, blob_key) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
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

export class SqliteBlobRefs implements BlobRefRepository {
  constructor(private readonly c: SqliteConnection) {}

  async isReferenced(key: string) {
    return (
      this.c.get<{ used: number }>(
        "SELECT EXISTS(SELECT 1 FROM messages WHERE blob_key = ?1) OR EXISTS(SELECT 1 FROM attachments WHERE blob_key = ?1) AS used",
        key,
      )!.used !== 0
    );
  }
}
