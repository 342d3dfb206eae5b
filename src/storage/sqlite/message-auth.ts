// SQLite implementation of MessageAuthRepository (storage/mail.ts; table from migration 0020).
import type { MessageAuthRecord, MessageAuthRepository, PendingAuth } from "../mail";
import type { SqliteConnection } from "./connection";

export class SqliteMessageAuth implements MessageAuthRepository {
  constructor(private readonly c: SqliteConnection) {}

  async enqueue(messageId: string, clientIp: string | null, helo: string | null) {
    this.c.run("INSERT INTO message_auth (message_id, client_ip, helo) VALUES (?, ?, ?)", messageId, clientIp, helo);
  }

  async claimPending(limit: number, now: string, until: string, by: string) {
    const ids = this.c
      .all<{ message_id: string }>(
        `UPDATE message_auth SET check_claimed_until = ?1, check_claimed_by = ?2 WHERE message_id IN (SELECT message_id
           FROM message_auth WHERE verdict IS NULL AND (check_claimed_until IS NULL OR check_claimed_until <= ?3 OR check_claimed_by = ?2)
           ORDER BY message_id LIMIT ?4)
         RETURNING message_id`,
        until,
        by,
        now,
        limit,
      )
      .map((r) => r.message_id);
    return this.c.all<PendingAuth>(
      `SELECT a.message_id, m.project_id, m.inbox_id, a.client_ip, a.helo, m.blob_key, m.envelope_from
         FROM message_auth a JOIN messages m ON m.id = a.message_id
        WHERE a.message_id IN (SELECT value FROM json_each(?)) ORDER BY a.message_id`,
      JSON.stringify(ids),
    );
  }

  async ofMessage(messageId: string) {
    return this.c.get<MessageAuthRecord>(
      "SELECT message_id, client_ip, helo, verdict, result_json, checked_at FROM message_auth WHERE message_id = ?",
      messageId,
    );
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
