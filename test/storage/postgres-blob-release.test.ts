// Freeing blobs with two nodes on one PostgreSQL (migration 0034, src/storage/postgres/blob-release.ts).
// Two stores on one database stand for nodes A and B, plus a third connection that watches. The
// race: A has deleted the last message using blob K and frees K while B, in its open ingest
// transaction, stores a new message with the same bytes (its put finds K and writes nothing). A's
// release must wait for B's commit and then keep K; B's message reads its bytes. In the other order
// (A's lock first, A's statements run by hand to pause between them) B's put waits for A's DELETE
// and writes K again. Also: a blob
// nothing references is freed, a large blob touched within the grace period is kept, and freed
// once its touch is old.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { SQL } from "bun";
import type { Storage } from "../../src/storage";
import { sha256Hex } from "../../src/storage/blobs";
import type { NewMessage } from "../../src/storage/mail";
import { openPostgresStorage } from "../../src/storage/postgres";
import { PG_INLINE_MAX } from "../../src/storage/postgres/blobs";
import { inboxRecord, messageRecord, T0 } from "../support/storage-records";
import { type PostgresServer, postgresBinDir, postgresRequired, startPostgres } from "../support/postgres";

let n = 0;

function message(inboxId: string, projectId: string, uid: number, blobKey: string): NewMessage {
  n++;
  const id = `01J0000000000000000000${String(n).padStart(4, "0")}`;
  return messageRecord({
    id,
    inbox_id: inboxId,
    project_id: projectId,
    uid,
    blob_key: blobKey,
    envelope_from: "sender@example.test",
    subject: `message ${n}`,
    message_id_header: `<${n}@example.test>`,
    sent_at: T0,
  });
}

describe.skipIf(!postgresBinDir() && !postgresRequired)("freeing blobs with two nodes on PostgreSQL", () => {
  let pg: PostgresServer;
  let a: Storage;
  let b: Storage;
  let watch: InstanceType<typeof SQL>;

  /** Stores one message with these bytes the way ingest does (UID, inline blob, row) in one transaction. */
  const store = (s: Storage, bytes: Uint8Array, during?: () => Promise<void>) =>
    s.transaction(async (tx) => {
      const { uid } = (await tx.inboxes.takeUid("ib_1"))!;
      const rec = message("ib_1", "pr_1", uid, sha256Hex(bytes));
      await tx.putInlineBlob(rec.blob_key, bytes);
      await tx.messages.insert(rec);
      await during?.();
      return rec;
    });

  /** Resolves once some backend waits for a row lock (A's release behind B's open transaction). */
  async function someoneWaitsForALock(): Promise<boolean> {
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const rows = (await watch`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'`) as { n: number }[];
      if (rows[0]!.n > 0) return true;
      await Bun.sleep(20);
    }
    return false;
  }

  beforeAll(async () => {
    pg = await startPostgres();
    a = await openPostgresStorage(pg.url, { max: 4 });
    b = await openPostgresStorage(pg.url, { max: 4 });
    watch = new SQL(pg.url, { max: 1 });
    await a.teams.insert({ id: "tm_1", name: "team", plan: "free", usedBytes: 0, createdAt: T0 });
    await a.projects.insert({ id: "pr_1", teamId: "tm_1", slug: "p", name: "p", environment: "live", settings: {}, createdAt: T0 });
    await a.inboxes.insert(inboxRecord("ib_1", "pr_1"));
  });
  afterAll(async () => {
    await watch?.close();
    await a?.close();
    await b?.close();
    await pg?.stop();
  });

  test("A frees K while B's ingest, reusing K, is open: A waits for B's commit and keeps K", async () => {
    const bytes = new TextEncoder().encode(`raw mail ${Math.random()}`);
    const key = sha256Hex(bytes);
    const first = await store(a, bytes);
    const { blobKeys } = await a.deleteMessages("pr_1", [first.id]);
    expect(blobKeys).toEqual([key]);
    // B's transaction: the put of K (present: touched, row locked), its message row, then it waits.
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    let inside!: () => void;
    const bIsInside = new Promise<void>((r) => {
      inside = r;
    });
    const second = store(b, bytes, async () => {
      inside();
      await gate;
    });
    await bIsInside;
    let released: boolean | null = null;
    const release = a.releaseBlob(key).then((v) => {
      released = v;
      return v;
    });
    let waited: boolean;
    let decidedEarly: boolean | null;
    try {
      waited = await someoneWaitsForALock();
      // A is blocked on B's row lock: it has not decided anything while B is open.
      decidedEarly = released;
    } finally {
      open(); // also on failure: B's transaction must not stay open
    }
    expect(waited).toBe(true);
    expect(decidedEarly).toBeNull();
    const rec = await second;
    expect(await release).toBe(false);
    expect(Buffer.from((await a.blobs.get(key))!).toString()).toBe(Buffer.from(bytes).toString());
    const row = (await watch`SELECT blob_key FROM messages WHERE id = ${rec.id}`) as { blob_key: string }[];
    expect(row[0]!.blob_key).toBe(key);
  });

  test("the other order: A holds K's row lock first; B's put waits, then writes K afresh after A's delete", async () => {
    const bytes = new TextEncoder().encode(`raw mail ${Math.random()}`);
    const key = sha256Hex(bytes);
    const first = await store(a, bytes);
    await a.deleteMessages("pr_1", [first.id]);
    // A's release, paused after its lock and its reference check (the statements of blob-release.ts).
    const sqlA = new SQL(pg.url, { max: 1 });
    let proceed!: () => void;
    const gate = new Promise<void>((r) => {
      proceed = r;
    });
    let locked!: () => void;
    const aLocked = new Promise<void>((r) => {
      locked = r;
    });
    const aDone = sqlA.begin(async (tx) => {
      await tx`SELECT 1 FROM blobs_inline WHERE key = ${key} FOR UPDATE`;
      const used = (await tx`SELECT EXISTS (SELECT 1 FROM messages WHERE blob_key = ${key}) AS used`) as { used: boolean }[];
      locked();
      await gate;
      if (!used[0]!.used) await tx`DELETE FROM blobs_inline WHERE key = ${key}`;
    });
    try {
      await aLocked;
      const second = store(b, bytes);
      let waited: boolean;
      try {
        waited = await someoneWaitsForALock();
      } finally {
        proceed();
      }
      expect(waited).toBe(true);
      await aDone;
      const rec = await second;
      // B's INSERT found the conflict gone with A's DELETE and wrote the bytes itself.
      expect(Buffer.from((await a.blobs.get(key))!).toString()).toBe(Buffer.from(bytes).toString());
      const row = (await watch`SELECT blob_key FROM messages WHERE id = ${rec.id}`) as { blob_key: string }[];
      expect(row[0]!.blob_key).toBe(key);
    } finally {
      proceed();
      await sqlA.close();
    }
  });

  test("a blob nothing references is freed, and a later put of the same bytes writes it again", async () => {
    const bytes = new TextEncoder().encode(`lonely ${Math.random()}`);
    const key = sha256Hex(bytes);
    const m = await store(a, bytes);
    expect(await a.releaseBlob(key)).toBe(false); // still referenced
    await a.deleteMessages("pr_1", [m.id]);
    expect(await a.releaseBlob(key)).toBe(true);
    expect(await a.blobs.size(key)).toBeNull();
    await store(b, bytes);
    expect(await a.blobs.size(key)).toBe(bytes.byteLength);
  });

  test("a large blob touched within the grace period is kept; once the touch is old it is freed", async () => {
    const big = randomBytes(PG_INLINE_MAX + 1000);
    const key = await a.blobs.put(big);
    // Its message is not there yet (it commits after the blob's own transaction): kept.
    expect(await a.releaseBlob(key)).toBe(false);
    expect(await a.blobs.size(key)).toBe(big.byteLength);
    // Another put of the same bytes touches it again (and writes nothing).
    await watch`UPDATE blobs_inline SET touched_at = now() - interval '2 hours' WHERE key = ${key}`;
    await b.blobs.put(big);
    expect(await a.releaseBlob(key)).toBe(false);
    // Old and unreferenced: head and chunks go.
    await watch`UPDATE blobs_inline SET touched_at = now() - interval '2 hours' WHERE key = ${key}`;
    expect(await a.releaseBlob(key)).toBe(true);
    expect(await a.blobs.size(key)).toBeNull();
    const chunks = (await watch`SELECT count(*)::int AS n FROM blob_chunks WHERE key = ${key}`) as { n: number }[];
    expect(chunks[0]!.n).toBe(0);
  });
  test("the sweep frees an old unreferenced large blob a release had to keep; referenced or recent ones stay", async () => {
    const kept = randomBytes(PG_INLINE_MAX + 2000);
    const used = randomBytes(PG_INLINE_MAX + 3000);
    const recent = randomBytes(PG_INLINE_MAX + 4000);
    const keptKey = await a.blobs.put(kept);
    // Its message came and went within the grace period: the release keeps it.
    expect(await a.releaseBlob(keptKey)).toBe(false);
    const usedKey = await b.blobs.put(used);
    await b.transaction(async (tx) => {
      const { uid } = (await tx.inboxes.takeUid("ib_1"))!;
      await tx.messages.insert(message("ib_1", "pr_1", uid, usedKey));
    });
    const recentKey = await a.blobs.put(recent);
    await watch`UPDATE blobs_inline SET touched_at = now() - interval '2 hours' WHERE key IN (${keptKey}, ${usedKey})`;
    // Either node may run it; B here.
    expect(await b.sweepBlobs()).toBe(1);
    expect(await a.blobs.size(keptKey)).toBeNull();
    const chunks = (await watch`SELECT count(*)::int AS n FROM blob_chunks WHERE key = ${keptKey}`) as { n: number }[];
    expect(chunks[0]!.n).toBe(0);
    expect(await a.blobs.size(usedKey)).toBe(used.byteLength);
    expect(await a.blobs.size(recentKey)).toBe(recent.byteLength);
    expect(await a.sweepBlobs()).toBe(0);
  });
});
