// Migration 0029 (UIDs per mailbox) on a database of the previous version: the time the rebuild of
// the messages table takes at start-up, for N stored ~2 KB messages (default 100,000; 90 % in one
// inbox, 10 % filed in an IMAP mailbox). The messages are seeded through the storage layer (as
// bench/scale.ts does), the schema is put back into the pre-0029 shape (test/support/sqlite-file.ts,
// undoUidsPerMailbox), and openDatabase() runs the migration alone.
//   bun bench/uids-migration.ts [--n 100000]
import { statSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../src/storage";
import { openSqliteStorage } from "../src/storage/sqlite";
import { openDatabase } from "../src/storage/sqlite/database";
import { newId } from "../src/lib/ids";
import { json, startInboxd } from "../test/support/harness";
import { shiftFolderUids, undoUidsPerMailbox, withDatabaseFile } from "../test/support/sqlite-file";
import { messageRecord } from "../test/support/storage-records";
import { arg, machineLine } from "./support";

const N = arg("n", 100_000);

function message(i: number): string {
  const head = `From: Bench <bench@example.com>\r\nTo: <x@example.com>\r\nSubject: migration message ${i}\r\n\r\n`;
  const line = `Hello, this is line of migtok${i}; lorem ipsum dolor sit amet consectetur.\r\n`;
  let body = "";
  while (head.length + body.length < 2048) body += line;
  return head + body.slice(0, 2048 - head.length);
}

console.log(machineLine());
const inst = await startInboxd({ INBOXD_PLAN: "" });
const ib = await json(inst.api("/v1/inboxes", { method: "POST", json: { ttl_seconds: 2592000 } }));
const box = { id: ib.body.data.id as string, projectId: ib.body.data.project_id as string };
if (!box.projectId) box.projectId = (await json(inst.api("/v1/usage"))).body.data.project.id;
await inst.stop();
const folderId = newId();
const t0 = performance.now();
const storage = openSqliteStorage(inst.dataDir);
await storage.imapFolders.insert({
  id: folderId,
  inboxId: box.id,
  name: "Archive",
  uidValidity: 1,
  uidNext: 1,
  subscribed: true,
  specialUse: null,
  createdAt: new Date().toISOString(),
});
const enc = new TextEncoder();
for (let done = 0; done < N; ) {
  const batch = Math.min(2000, N - done);
  await storage.transaction(async (tx) => {
    for (let k = 0; k < batch; k++) {
      const i = done + k;
      const folder = i % 10 === 9 ? folderId : null;
      const raw = enc.encode(message(i));
      const key = sha256Hex(raw);
      await tx.putInlineBlob(key, raw);
      const { uid } = (await tx.inboxes.takeUid(box.id, folder))!;
      const now = new Date().toISOString();
      await tx.messages.insert(
        messageRecord({
          id: newId(),
          inbox_id: box.id,
          project_id: box.projectId,
          uid,
          blob_key: key,
          size_bytes: raw.byteLength,
          logical_size_bytes: raw.byteLength,
          envelope_from: "bench@example.com",
          envelope_to: "x@example.com",
          from_email: "bench@example.com",
          from_name: "Bench",
          subject: `migration message ${i}`,
          preview: "Hello",
          text_body: message(i).slice(80),
          received_at: now,
          expires_at: new Date(Date.now() + 30 * 86400_000).toISOString(),
        }),
        folder,
      );
    }
  });
  done += batch;
}
await storage.close();
console.log(`seeded ${N.toLocaleString("en")} messages in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

// The previous version's schema; the folder's rows renumbered above the INBOX ones, as its one counter made them.
withDatabaseFile(inst.dataDir, (db) => undoUidsPerMailbox(db, () => shiftFolderUids(db, N)));
const file = join(inst.dataDir, "inboxd.db");
const mb = statSync(file).size / 1048576;
const t1 = performance.now();
const db = openDatabase(file);
const ms = performance.now() - t1;
db.close();
console.log(`migration 0029 on ${N.toLocaleString("en")} messages (database ${mb.toFixed(0)} MiB): ${(ms / 1000).toFixed(2)} s`);
inst.cleanup();
