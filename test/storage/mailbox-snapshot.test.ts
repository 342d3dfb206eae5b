// Storage.mailboxSnapshot on both engines (src/storage/sqlite/mailbox-snapshot.ts, a read
// transaction on a connection of its own; src/storage/postgres/mailbox-snapshot.ts, REPEATABLE READ
// on a reserved pooled connection): the counts and every page describe the mailbox when the
// snapshot was opened, whatever is deleted, delivered or flagged afterwards (what lets an IMAP view
// use its filled part before the rest is read), and a burst of snapshots beyond the cap gets none
// (the caller reads without one) instead of running out of files or of pooled connections.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { inboxRecord, T0 } from "../support/storage-records";
import type { Storage } from "../../src/storage";
import type { MailboxSnapshot } from "../../src/storage/mail";
import { maxPgSnapshots } from "../../src/storage/postgres/mailbox-snapshot";
import { insertMessageRows } from "../support/message-rows";
import { storageEngines } from "../support/storage-engines";

for (const engine of storageEngines()) {
  // The cap: SQLite's MAX_OPEN; PostgreSQL's, a third of the pool (storage-engines.ts opens 4).
  const cap = engine.name === "sqlite" ? 16 : maxPgSnapshots(4);
  let s: Storage;

  beforeAll(async () => {
    if (!engine.available) return;
    s = await engine.open();
    await s.teams.insert({ id: "tm_1", name: "team", plan: "free", usedBytes: 0, createdAt: T0 });
    await s.projects.insert({ id: "pr_1", teamId: "tm_1", slug: "p1", name: "P", environment: "live", settings: {}, createdAt: T0 });
    await s.inboxes.insert(inboxRecord("ib_a", "pr_1", { address: "a@example.test", localPart: "a" }));
  });

  afterAll(async () => {
    if (!engine.available) return;
    await s?.close();
    await engine.stop();
  });

  async function deliver(n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const uid = (await s.inboxes.takeUid("ib_a", null))!.uid;
      const id = `ms_a_${uid}`;
      await insertMessageRows(engine, [{ id, inboxId: "ib_a", projectId: "pr_1", uid, mailboxId: null }]);
      ids.push(id);
    }
    return ids;
  }

  (engine.available ? describe : describe.skip)(`mailbox snapshots (${engine.name})`, () => {
    test("counts and pages stay those of the opening instant; the next snapshot sees the changes", async () => {
      const ids = await deliver(5);
      const snap = (await s.mailboxSnapshot!("ib_a", null))!;
      expect(snap.counts).toMatchObject({ messages: 5, unseen: 5, maxUid: 5, uidNext: 6 });
      const first = await snap.page(0, 2);
      expect([...first.uids]).toEqual([1, 2]);

      // After the snapshot: UID 3 deleted, UID 4 read, UID 6 delivered.
      await s.deleteMessages("pr_1", [ids[2]!]);
      expect(await s.messages.setFlags("ib_a", [{ id: ids[3]!, read: true }])).toEqual([ids[3]!]);
      await deliver(1);

      const rest = await snap.page(2, 100);
      expect([...rest.uids]).toEqual([3, 4, 5]);
      expect([...rest.flags]).toEqual([0, 0, 0]);
      snap.close();
      await expect(snap.page(5, 10)).rejects.toThrow();

      const live = await s.messages.mailboxPage("ib_a", 0, 100, null);
      expect([...live.uids]).toEqual([1, 2, 4, 5, 6]);
      const again = (await s.mailboxSnapshot!("ib_a", null))!;
      expect(again.counts).toMatchObject({ messages: 5, unseen: 4, maxUid: 6, uidNext: 7 });
      const now = await again.page(0, 100);
      expect([...now.uids]).toEqual([...live.uids]);
      expect([...now.flags]).toEqual([...live.flags]);
      again.close();
    });

    test(`beyond ${cap} open snapshots the next gets none; closing one makes room`, async () => {
      const open: MailboxSnapshot[] = [];
      for (let i = 0; i < cap; i++) open.push((await s.mailboxSnapshot!("ib_a", null))!);
      expect(open.every((x) => x.counts.messages === 5)).toBe(true);
      expect(await s.mailboxSnapshot!("ib_a", null)).toBeNull();
      open.pop()!.close();
      const one = await s.mailboxSnapshot!("ib_a", null);
      expect(one?.counts.messages).toBe(5);
      one!.close();
      for (const x of open) x.close();
    });
  });
}
