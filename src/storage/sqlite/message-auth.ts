// SQLite implementation of MessageAuthRepository (storage/mail.ts; table from migration 0020).
import type { MessageAuthRecord, MessageAuthRepository, PendingAuth } from "../mail";
import type { SqliteConnection } from "./connection";

export class SqliteMessageAuth implements MessageAuthRepository {
  constructor(private readonly c: SqliteConnection) {}

  async enqueue(messageId: string, clientIp: string | null, helo: string | null) {
    this.c.run("INSERT INTO message_auth (message_id, client_ip, helo) VALUES (?, ?, ?)", messageId, clientIp, helo);
  }

  async pending(limit: number) {
    return this.c.all<PendingAuth>(
      `SELECT a.message_id, m.project_id, m.inbox_id, a.client_ip, a.helo, m.blob_key, m.envelope_from
         FROM message_auth a JOIN messages m ON m.id = a.message_id
        WHERE a.verdict IS NULL ORDER BY a.message_id LIMIT ?`,
      limit,
    );
  }

  async ofMessage(messageId: string) {
    return this.c.get<MessageAuthRecord>("SELECT * FROM message_auth WHERE message_id = ?", messageId);
  }

  async record(r: MessageAuthRecord & { verdict: "pass" | "fail" | "none" }) {
    this.c.run(
      `INSERT INTO message_auth (message_id, client_ip, helo, verdict, result_json, checked_at)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE EXISTS (SELECT 1 FROM messages WHERE id = ?1)
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
