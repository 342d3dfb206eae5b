// Two nodes on one PostgreSQL database (two openPostgresStorage, each with its own pool): the
// message path's cross-node promises. Messages stored at once through both nodes into one inbox
// get UIDs 1..n, each with its row, blob and counters; a message is found by the other node's
// search as soon as the storing transaction has resolved (the index is written by the commit
// itself: no queue, nothing for searchable() to wait for); a deletion on one node is seen by both.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseSearchQuery } from "../../src/mail/search-query";
import { sha256Hex, type Storage } from "../../src/storage";
import { openPostgresStorage } from "../../src/storage/postgres";
import { newId } from "../../src/lib/ids";
import { type PostgresServer, postgresBinDir, postgresRequired, startPostgres } from "../support/postgres";
import { messageRecord } from "../support/storage-records";

const T = new Date().toISOString();

describe.skipIf(!postgresBinDir() && !postgresRequired)("two nodes, one PostgreSQL: the message path", () => {
  let pg: PostgresServer;
  let a: Storage;
  let b: Storage;

  beforeAll(async () => {
    pg = await startPostgres();
    a = await openPostgresStorage(pg.url, { max: 4 });
    b = await openPostgresStorage(pg.url, { max: 4 });
    await a.teams.insert({ id: "tm_2", name: "two", plan: "free", usedBytes: 0, createdAt: T });
    await a.projects.insert({ id: "pr_2", teamId: "tm_2", slug: "two", name: "two", environment: "live", settings: {}, createdAt: T });
    await a.inboxes.insert({
      id: "ib_2",
      projectId: "pr_2",
      address: "two@example.test",
      localPart: "two",
      domain: "example.test",
      domainId: null,
      name: null,
      type: "persistent",
      status: "active",
      passwordEnc: "x",
      uidValidity: 1,
      uidNext: 1,
      expiresAt: null,
      expiringAlertedAt: null,
      createdBySession: null,
      messageCount: 0,
      unreadCount: 0,
      usedBytes: 0,
      createdAt: T,
    });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await pg?.stop();
  });

  /** Ingest's transaction: UID, inline blob, message row. */
  const store = (node: Storage, word: string) =>
    node.transaction(async (tx) => {
      const { uid } = (await tx.inboxes.takeUid("ib_2"))!;
      const raw = new TextEncoder().encode(`Subject: ${word}\r\n\r\n${word} body`);
      const key = sha256Hex(raw);
      await tx.putInlineBlob(key, raw);
      const id = newId();
      await tx.messages.insert(
        messageRecord({
          id,
          inbox_id: "ib_2",
          project_id: "pr_2",
          uid,
          blob_key: key,
          size_bytes: raw.byteLength,
          logical_size_bytes: raw.byteLength,
          envelope_to: "two@example.test",
          subject: word,
          text_body: `${word} body`,
          received_at: new Date().toISOString(),
          expires_at: T,
        }),
      );
      return { id, uid, key };
    });

  const search = (node: Storage, q: string) =>
    node.messages.search({ projectId: "pr_2", inboxId: "ib_2", query: parseSearchQuery(q), order: "oldest", limit: 50 });

  test("concurrent ingest through both nodes: UIDs 1..n, every message, blob and counter there", async () => {
    const stored = await Promise.all(Array.from({ length: 10 }, (_, i) => store(i % 2 ? b : a, `word${i}`)));
    expect(stored.map((s) => s.uid).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const inbox = (await b.inboxes.byId("ib_2"))!;
    expect([inbox.messageCount, inbox.unreadCount, inbox.uidNext]).toEqual([10, 10, 11]);
    for (const s of stored) expect(sha256Hex((await b.blobs.get(s.key))!)).toBe(s.key);
  });

  test("stored on one node, found by the other's search as soon as the transaction resolved", async () => {
    for (let i = 0; i < 5; i++) {
      const word = `fresh${i}x`;
      const { id } = await store(i % 2 ? b : a, word);
      const other = i % 2 ? a : b;
      await other.searchable();
      expect((await search(other, word)).map((m) => m.id)).toEqual([id]);
      expect((await search(other, `subject:${word.slice(0, 4)}*`)).length).toBe(i + 1);
    }
  });

  test("a deletion through one node is seen by the other", async () => {
    const [first] = await search(a, "word0");
    const out = await b.deleteMessages("pr_2", [first!.id]);
    expect(out.removed.map((r) => r.id)).toEqual([first!.id]);
    expect(await a.messages.exists(first!.id)).toBe(false);
    expect(await search(a, "word0")).toEqual([]);
    expect((await a.inboxes.byId("ib_2"))!.messageCount).toBe(14);
  });
});
