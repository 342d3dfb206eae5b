// Deleting message rows, shared by the main connection (inside its transactions) and the
// background connection of checkpoint-worker.ts (bulk deletions off the event loop). The triggers
// keep the counters and queue the search-index deletions; attachments go by cascade.
import type { Statement } from "bun:sqlite";
import type { RemovedMessage } from "../mail";

export function deleteMessageRows(
  prepare: (sql: string) => Statement,
  projectId: string,
  ids: string[],
): { removed: RemovedMessage[]; blobKeys: string[] } {
  const removed: RemovedMessage[] = [];
  const blobKeys: string[] = [];
  const row = prepare("SELECT id, inbox_id, mailbox_id, uid, blob_key FROM messages WHERE id = ? AND project_id = ?");
  const attachments = prepare("SELECT blob_key FROM attachments WHERE message_id = ?");
  const del = prepare("DELETE FROM messages WHERE id = ?");
  for (const id of ids) {
    const m = row.get(id, projectId) as (RemovedMessage & { blob_key: string }) | null;
    if (!m) continue;
    blobKeys.push(m.blob_key, ...(attachments.all(id) as { blob_key: string }[]).map((a) => a.blob_key));
    del.run(id);
    removed.push({ id: m.id, inbox_id: m.inbox_id, mailbox_id: m.mailbox_id, uid: m.uid });
  }
  return { removed, blobKeys };
}
