// Deleting message rows on PostgreSQL (../sqlite/message-rows.ts): one DELETE … RETURNING per
// slice instead of a statement per message. The trigger function messages_counters() keeps the
// counters and removes the messages' events; attachments and auth rows go by cascade.
import type { RemovedMessage } from "../mail";
import type { PgClient } from "./connection";

/** Messages per statement: bounds one statement's work and its parameter array. */
const SLICE = 1000;

export async function deletePgMessageRows(
  c: PgClient,
  projectId: string,
  ids: string[],
): Promise<{ removed: RemovedMessage[]; blobKeys: string[] }> {
  const gone = new Map<string, RemovedMessage & { keys: string[] }>();
  // The inboxes' rows first, in id order (inboxes.ts lockInboxRows says why; named here through
  // the messages, whose inboxes the caller does not know).
  await c.run(
    `SELECT 1 FROM inboxes WHERE id IN (SELECT inbox_id FROM messages WHERE id = ANY($1::text[]) AND project_id = $2)
      ORDER BY id FOR NO KEY UPDATE`,
    ids,
    projectId,
  );
  for (let i = 0; i < ids.length; i += SLICE) {
    const slice = ids.slice(i, i + SLICE);
    // The attachments' keys first: the cascade takes their rows with the messages.
    const attachments = await c.rows<{ message_id: string; blob_key: string }>(
      `SELECT a.message_id, a.blob_key FROM attachments a JOIN messages m ON m.id = a.message_id
        WHERE m.id = ANY($1::text[]) AND m.project_id = $2 ORDER BY a.message_id, a.position`,
      slice,
      projectId,
    );
    const rows = await c.rows<{ id: string; inbox_id: string; mailbox_id: string | null; uid: number; blob_key: string }>(
      "DELETE FROM messages WHERE id = ANY($1::text[]) AND project_id = $2 RETURNING id, inbox_id, mailbox_id, uid, blob_key",
      slice,
      projectId,
    );
    for (const r of rows) gone.set(r.id, { id: r.id, inbox_id: r.inbox_id, mailbox_id: r.mailbox_id, uid: r.uid, keys: [r.blob_key] });
    for (const a of attachments) gone.get(a.message_id)?.keys.push(a.blob_key);
  }
  // In the order asked, as SQLite reports them.
  const removed: RemovedMessage[] = [];
  const blobKeys: string[] = [];
  for (const id of ids) {
    const m = gone.get(id);
    if (!m) continue;
    gone.delete(id);
    removed.push({ id: m.id, inbox_id: m.inbox_id, mailbox_id: m.mailbox_id, uid: m.uid });
    blobKeys.push(...m.keys);
  }
  return { removed, blobKeys };
}
