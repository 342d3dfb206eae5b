// The scale benchmarks' seeding (bench/scale.ts, bench/index-catchup-rss.ts): ~2 KB messages
// written straight through the storage layer (the ingest transaction's rows: uid, message row,
// inline raw blob, search queue) with the server stopped, so a million takes minutes.
import { openSqliteStorage } from "../src/storage/sqlite";
import { sha256Hex } from "../src/storage";
import { newId } from "../src/lib/ids";

/** A ~2 KB plain-text message; `seedtok<i>` makes each one findable alone. */
function message(i: number, to: string): string {
  const head =
    `From: Scale Bench <bench@example.com>\r\nTo: <${to}>\r\nSubject: scale message ${i}\r\n` +
    `Message-ID: <scale-${i}@example.com>\r\nDate: Mon, 02 Mar 2026 10:00:00 +0000\r\n` +
    `MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n`;
  const line = `Hello, this is line of seedtok${i}; your code is ${100000 + (i % 900000)}. Lorem ipsum dolor sit amet.\r\n`;
  let body = "";
  while (head.length + body.length < 2048) body += line;
  return head + body.slice(0, 2046 - head.length) + "\r\n";
}

export interface Box {
  id: string;
  address: string;
  password: string;
  projectId: string;
}

/** Writes `n` messages into the box through the storage layer, in transactions of 2,000. */
export async function seed(dataDir: string, box: Box, from: number, n: number): Promise<void> {
  const storage = openSqliteStorage(dataDir);
  const enc = new TextEncoder();
  try {
    for (let done = 0; done < n; ) {
      const batch = Math.min(2000, n - done);
      await storage.transaction(async (tx) => {
        for (let k = 0; k < batch; k++) {
          const i = from + done + k;
          const rawText = message(i, box.address);
          const raw = enc.encode(rawText);
          const key = sha256Hex(raw);
          await tx.putInlineBlob(key, raw);
          const bumped = (await tx.inboxes.takeUid(box.id))!;
          const now = Date.now();
          const body = rawText.slice(rawText.indexOf("\r\n\r\n") + 4);
          await tx.messages.insert({
            id: newId(),
            inbox_id: box.id,
            project_id: box.projectId,
            uid: bumped.uid,
            blob_key: key,
            size_bytes: raw.byteLength,
            logical_size_bytes: raw.byteLength,
            envelope_from: "bench@example.com",
            envelope_to: box.address,
            from_email: "bench@example.com",
            from_name: "Scale Bench",
            to_json: JSON.stringify([{ name: "", email: box.address }]),
            cc_json: "[]",
            subject: `scale message ${i}`,
            preview: body.slice(0, 120),
            text_body: body,
            html_body: null,
            codes: "[]",
            links: "[]",
            headers: "[]",
            headers_truncated: 0,
            message_id_header: `<scale-${i}@example.com>`,
            sent_at: "2026-03-02T10:00:00.000Z",
            attachment_count: 0,
            parse_error: null,
            received_at: new Date(now).toISOString(),
            expires_at: new Date(now + 30 * 86400_000).toISOString(),
          });
        }
      });
      done += batch;
    }
  } finally {
    await storage.close();
  }
}
