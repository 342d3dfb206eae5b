// The IMAP folder repository contract (src/storage/imap-folders.ts), asserted once and run against
// both engines: mailboxes and their renames, subscriptions that outlive their mailbox, counts,
// \Recent marks (claims made at once never hand one UID to two sessions), COPY (every column
// carried over), and CONDSTORE's modseqs (kept counters that move with every change, and on
// PostgreSQL stay distinct when changes arrive at once), and UIDs per mailbox (migration 0029: two
// mailboxes of an inbox may hold the same UID). Message rows are written with plain SQL
// (test/support/message-rows.ts), so these tests need no message repository.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { inboxRecord, T0 } from "../support/storage-records";
import type { ImapFolderRecord } from "../../src/storage/imap-folders";
import { openPostgresStorage } from "../../src/storage/postgres";
import type { InboxRecord } from "../../src/storage/mail";
import { insertMessageRows, sqlOn } from "../support/message-rows";
import { type Engine, storageEngines } from "../support/storage-engines";

const ENGINES = storageEngines();

const inbox = (id: string): InboxRecord => inboxRecord(id, "pr_1");

const folder = (id: string, inboxId: string, name: string, patch: Partial<ImapFolderRecord> = {}): ImapFolderRecord => ({
  id,
  inboxId,
  name,
  uidValidity: 1_800_000_000,
  uidNext: 1,
  subscribed: true,
  specialUse: null,
  createdAt: T0,
  ...patch,
});

for (const engine of ENGINES) {
  describe.skipIf(!engine.available)(`IMAP folders on ${engine.name}`, () => {
    let s: Engine;

    /** Delivers messages the way ingest does: a UID from the mailbox's own counter, then the row in that mailbox. */
    const deliver = async (
      inboxId: string,
      n: number,
      mailboxId: string | null = null,
      patch: { read?: 0 | 1; sizeBytes?: number } = {},
    ) => {
      const out: { id: string; uid: number }[] = [];
      for (let i = 0; i < n; i++) {
        const uid = (await s.inboxes.takeUid(inboxId, mailboxId))!.uid;
        const id = `ms_${inboxId}_${mailboxId ?? "inbox"}_${uid}`;
        await insertMessageRows(engine, [{ id, inboxId, projectId: "pr_1", uid, mailboxId, ...patch }]);
        out.push({ id, uid });
      }
      return out;
    };

    beforeAll(async () => {
      s = await engine.open();
      await s.teams.insert({ id: "tm_1", name: "team", plan: "free", usedBytes: 0, createdAt: T0 });
      await s.projects.insert({ id: "pr_1", teamId: "tm_1", slug: "p1", name: "P", environment: "live", settings: {}, createdAt: T0 });
      for (const id of ["ib_a", "ib_b", "ib_c", "ib_d", "ib_e", "ib_f"]) await s.inboxes.insert(inbox(id));
    });

    afterAll(async () => {
      await s?.close();
      await engine.stop();
    });

    test("mailboxes: insert once per name, read back, rename a subtree (LIKE wildcards literal), subscribe, remove", async () => {
      expect(await s.imapFolders.insert(folder("mb_1", "ib_a", "Archive"))).toBe(true);
      expect(await s.imapFolders.insert(folder("mb_2", "ib_a", "Archive/2024"))).toBe(true);
      expect(await s.imapFolders.insert(folder("mb_3", "ib_a", "Arch_ive/x"))).toBe(true);
      expect(await s.imapFolders.insert(folder("mb_4", "ib_a", "Sent", { specialUse: "\\Sent", subscribed: false }))).toBe(true);
      expect(await s.imapFolders.insert(folder("mb_dup", "ib_a", "Archive"))).toBe(false);
      expect(await s.imapFolders.insert(folder("mb_5", "ib_b", "Archive"))).toBe(true);
      expect(await s.imapFolders.byId("mb_4")).toEqual(folder("mb_4", "ib_a", "Sent", { specialUse: "\\Sent", subscribed: false }));
      expect((await s.imapFolders.byName("ib_a", "Archive/2024"))!.id).toBe("mb_2");
      expect(await s.imapFolders.byName("ib_a", "None")).toBeNull();
      expect(await s.imapFolders.byId("mb_none")).toBeNull();
      expect(await s.imapFolders.namesOf(["mb_1", "mb_5", "mb_none"])).toEqual(
        new Map([
          ["mb_1", "Archive"],
          ["mb_5", "Archive"],
        ]),
      );
      expect(await s.imapFolders.namesOf([])).toEqual(new Map());

      // "Arch_ive/x" must not match the pattern of "Archive/…" (an unescaped _ would), nor ib_b's Archive.
      await s.imapFolders.rename("ib_a", "Archive", "Old");
      expect((await s.imapFolders.ofInbox("ib_a")).map((f) => [f.id, f.name])).toEqual([
        ["mb_3", "Arch_ive/x"],
        ["mb_1", "Old"],
        ["mb_2", "Old/2024"],
        ["mb_4", "Sent"],
      ]);
      expect((await s.imapFolders.byId("mb_5"))!.name).toBe("Archive");
      await s.imapFolders.rename("ib_a", "Arch_ive", "A%");
      expect((await s.imapFolders.byId("mb_3"))!.name).toBe("A%/x");

      await s.imapFolders.setSubscribed("mb_4", true);
      expect((await s.imapFolders.byId("mb_4"))!.subscribed).toBe(true);
      await s.imapFolders.remove("mb_3");
      expect(await s.imapFolders.byId("mb_3")).toBeNull();
      expect((await s.imapFolders.ofInbox("ib_a")).length).toBe(3);
    });

    test("orphan subscriptions: added and removed once, listed by name, per inbox", async () => {
      expect(await s.imapFolders.setOrphanSubscription("ib_a", "Gone", true)).toBe(false);
      expect(await s.imapFolders.setOrphanSubscription("ib_a", "Gone", true)).toBe(true);
      expect(await s.imapFolders.setOrphanSubscription("ib_a", "Also/Gone", true)).toBe(false);
      expect(await s.imapFolders.orphanSubscriptions("ib_a")).toEqual(["Also/Gone", "Gone"]);
      expect(await s.imapFolders.orphanSubscriptions("ib_b")).toEqual([]);
      expect(await s.imapFolders.setOrphanSubscription("ib_a", "Gone", false)).toBe(true);
      expect(await s.imapFolders.setOrphanSubscription("ib_a", "Gone", false)).toBe(false);
      expect(await s.imapFolders.orphanSubscriptions("ib_a")).toEqual(["Also/Gone"]);
    });

    test("counts: INBOX is the inbox's counters less the other mailboxes; UIDs and UIDNEXT per mailbox; adopt; ids; folders of", async () => {
      await s.imapFolders.insert(folder("mb_c1", "ib_c", "Work"));
      const inInbox = await deliver("ib_c", 3, null, { sizeBytes: 10 });
      const inWork = await deliver("ib_c", 2, "mb_c1", { sizeBytes: 1000, read: 1 });
      await deliver("ib_c", 1, "mb_c1", { sizeBytes: 1000 });
      // Each mailbox counts from 1 on its own counter: INBOX and Work both hold UIDs 1..3.
      expect(inInbox.map((m) => m.uid)).toEqual([1, 2, 3]);
      expect(inWork.map((m) => m.uid)).toEqual([1, 2]);
      const inboxCounts = await s.imapFolders.counts("ib_c", null);
      expect({ ...inboxCounts, highestModseq: 0 }).toEqual({
        messages: 3,
        unseen: 3,
        bytes: 30,
        maxUid: 3,
        uidNext: 4,
        highestModseq: 0,
      });
      const work = await s.imapFolders.counts("ib_c", "mb_c1");
      expect({ ...work, highestModseq: 0 }).toEqual({ messages: 3, unseen: 1, bytes: 3000, maxUid: 3, uidNext: 4, highestModseq: 0 });
      expect((await s.imapFolders.byId("mb_c1"))!.uidNext).toBe(4);
      expect((await s.inboxes.byId("ib_c"))!.uidNext).toBe(4);
      // A UID names a message within its mailbox: the same UID, two messages.
      expect((await s.messages.mailboxDetails("ib_c", null, [1])).map((d) => d.id)).toEqual([inInbox[0]!.id]);
      expect((await s.messages.mailboxDetails("ib_c", "mb_c1", [1])).map((d) => d.id)).toEqual([inWork[0]!.id]);
      // The unique key is per mailbox: a second UID 1 in Work is refused, in INBOX of another inbox it is not.
      await expect(
        insertMessageRows(engine, [{ id: "ms_dup", inboxId: "ib_c", projectId: "pr_1", uid: 1, mailboxId: "mb_c1" }]),
      ).rejects.toThrow();
      expect(await s.imapFolders.counts("ib_none", null)).toEqual({
        messages: 0,
        unseen: 0,
        bytes: 0,
        maxUid: null,
        uidNext: 1,
        highestModseq: 1,
      });
      expect((await s.imapFolders.messageIds("ib_c", "mb_c1", 10)).sort()).toEqual([
        "ms_ib_c_mb_c1_1",
        "ms_ib_c_mb_c1_2",
        "ms_ib_c_mb_c1_3",
      ]);
      expect((await s.imapFolders.messageIds("ib_c", "mb_c1", 2)).length).toBe(2);
      expect(await s.imapFolders.foldersOf([inInbox[0]!.id, inWork[0]!.id, "ms_none"])).toEqual(
        new Map([
          [inInbox[0]!.id, null],
          [inWork[0]!.id, "mb_c1"],
        ]),
      );

      // RENAME INBOX: every INBOX message moves into the new mailbox, whose UIDNEXT rises above them.
      await s.imapFolders.insert(folder("mb_c2", "ib_c", "Old INBOX"));
      expect(await s.imapFolders.adoptInbox("ib_c", "mb_c2")).toBe(3);
      expect((await s.imapFolders.counts("ib_c", null)).messages).toBe(0);
      expect((await s.imapFolders.counts("ib_c", "mb_c2")).messages).toBe(3);
      expect((await s.imapFolders.byId("mb_c2"))!.uidNext).toBe(4);
    });

    test("\\Recent: INBOX's first mark is its highest UID, a new mailbox's is 0; a claim hands a range once", async () => {
      await deliver("ib_d", 2);
      expect(await s.imapFolders.recentMark("ib_d", null)).toEqual({ mark: 2, above: 0 });
      await deliver("ib_d", 3);
      expect(await s.imapFolders.recentMark("ib_d", null)).toEqual({ mark: 2, above: 3 });
      expect(await s.imapFolders.claimRecent("ib_d", null, 4)).toEqual({ from: 2, count: 2 });
      expect(await s.imapFolders.claimRecent("ib_d", null, 4)).toEqual({ from: 4, count: 0 });
      expect(await s.imapFolders.claimRecent("ib_d", null, 3)).toEqual({ from: 4, count: 0 });
      expect(await s.imapFolders.recentMark("ib_d", null)).toEqual({ mark: 4, above: 1 });

      await s.imapFolders.insert(folder("mb_d1", "ib_d", "Drafts"));
      await deliver("ib_d", 2, "mb_d1");
      expect(await s.imapFolders.recentMark("ib_d", "mb_d1")).toEqual({ mark: 0, above: 2 });
      // The INBOX range (4, 7] holds only UID 5; Drafts counts its own UIDs 1 and 2.
      expect(await s.imapFolders.claimRecent("ib_d", null, 7)).toEqual({ from: 4, count: 1 });
      expect(await s.imapFolders.claimRecent("ib_d", "mb_d1", 7)).toEqual({ from: 0, count: 2 });
      // Removing the mailbox takes its mark: a new one of the same id starts from 0 again.
      await s.imapFolders.remove("mb_d1");
      await s.imapFolders.insert(folder("mb_d1", "ib_d", "Drafts"));
      expect((await s.imapFolders.recentMark("ib_d", "mb_d1")).mark).toBe(0);
    });

    test("\\Recent: sessions claiming at once get disjoint ranges that cover every message once", async () => {
      await s.imapFolders.insert(folder("mb_e1", "ib_e", "Busy"));
      await deliver("ib_e", 20, "mb_e1");
      // Twelve sessions, some asking for more than others, all at once (on PostgreSQL over the pool's connections).
      const upTos = [5, 20, 3, 12, 20, 8, 15, 1, 20, 10, 18, 7];
      const claims = await Promise.all(upTos.map((upTo) => s.imapFolders.claimRecent("ib_e", "mb_e1", upTo).then((c) => ({ ...c, upTo }))));
      const handed = claims.filter((c) => c.count > 0).map((c) => [c.from, c.upTo] as const);
      const uids = handed.flatMap(([from, upTo]) => Array.from({ length: upTo - from }, (_, i) => from + i + 1)).sort((a, b) => a - b);
      expect(uids).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(claims.reduce((n, c) => n + c.count, 0)).toBe(20);
      expect((await s.imapFolders.recentMark("ib_e", "mb_e1")).mark).toBe(20);
    });

    // SQLite's windows (src/storage/sqlite/imap-folders.ts): not listed for PostgreSQL, which counts in
    // one statement off the event loop (and 11,001 single-row inserts cost it ~30 s here).
    (engine.name === "sqlite" ? test : () => {})(
      "\\Recent: counts over many thousand UIDs with gaps are exact (SQLite counts them a window at a time)",
      async () => {
        await s.imapFolders.insert(folder("mb_e2", "ib_e", "Many"));
        const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
        // 11,001 messages: a run, a gap wider than a window, another run, one far above.
        const uids = [...range(1, 5000), ...range(20_001, 26_000), 90_000];
        await insertMessageRows(
          engine,
          uids.map((uid) => ({ id: `ms_many_${uid}`, inboxId: "ib_e", projectId: "pr_1", uid, mailboxId: "mb_e2" })),
        );
        expect(await s.imapFolders.recentMark("ib_e", "mb_e2")).toEqual({ mark: 0, above: 11_001 });
        expect(await s.imapFolders.claimRecent("ib_e", "mb_e2", 22_000)).toEqual({ from: 0, count: 7_000 });
        expect(await s.imapFolders.recentMark("ib_e", "mb_e2")).toEqual({ mark: 22_000, above: 4_001 });
        expect(await s.imapFolders.claimRecent("ib_e", "mb_e2", 89_999)).toEqual({ from: 22_000, count: 4_000 });
        expect(await s.imapFolders.claimRecent("ib_e", "mb_e2", 100_000)).toEqual({ from: 89_999, count: 1 });
        expect(await s.imapFolders.claimRecent("ib_e", "mb_e2", 100_000)).toEqual({ from: 100_000, count: 0 });
      },
    );

    test("\\Recent: INBOX counts with few messages at or below the mark are exact (SQLite subtracts those from its kept count)", async () => {
      const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
      const rows = (uids: number[], mailboxId: string | null) =>
        uids.map((uid) => ({ id: `ms_f_${mailboxId ?? "inbox"}_${uid}`, inboxId: "ib_f", projectId: "pr_1", uid, mailboxId }));
      await insertMessageRows(engine, rows(range(1, 3), null));
      expect(await s.imapFolders.recentMark("ib_f", null)).toEqual({ mark: 3, above: 0 });
      // 199 arrivals above the mark, and mail filed elsewhere (in the inbox's kept count, not INBOX's).
      await insertMessageRows(engine, rows([...range(4, 100), ...range(201, 301), 400], null));
      await s.imapFolders.insert(folder("mb_f1", "ib_f", "Other"));
      await insertMessageRows(engine, rows(range(1, 50), "mb_f1"));
      expect(await s.imapFolders.recentMark("ib_f", null)).toEqual({ mark: 3, above: 199 });
      expect(await s.imapFolders.claimRecent("ib_f", null, 350)).toEqual({ from: 3, count: 198 });
      expect(await s.imapFolders.claimRecent("ib_f", null, 400)).toEqual({ from: 350, count: 1 });
    });

    test("COPY: new ids and UIDs from the target's own counter, every other column carried over, attachments copied", async () => {
      await s.imapFolders.insert(folder("mb_b1", "ib_b", "Copies"));
      const [m1, m2] = await deliver("ib_b", 2, null, { sizeBytes: 321, read: 1 });
      await s.imapFolders.setExtraFlags("ib_b", null, [{ uid: m1!.uid, flags: "\\Answered $Label1" }]);
      await sqlOn(engine, [
        [
          `INSERT INTO attachments (id, message_id, position, filename, declared_content_type, served_content_type, size_bytes, sha256, blob_key)
           VALUES ($1, $2, 0, 'a.pdf', 'application/pdf', 'application/pdf', 10, 'ff', 'blob-att')`,
          ["at_1", m1!.id],
        ],
      ]);
      const copied = await s.transaction((tx) => tx.imapFolders.copy("ib_b", null, [m1!.uid, 999, m2!.uid], "mb_b1"));
      expect(copied.map((c) => [c.sourceUid, c.uid])).toEqual([
        [m1!.uid, 1],
        [m2!.uid, 2],
      ]);
      expect(new Set(copied.map((c) => c.id)).size).toBe(2);
      expect((await s.imapFolders.byId("mb_b1"))!.uidNext).toBe(3);
      expect((await s.inboxes.byId("ib_b"))!.uidNext).toBe(3);
      expect((await s.imapFolders.counts("ib_b", "mb_b1")).messages).toBe(2);
      expect((await s.imapFolders.counts("ib_b", null)).messages).toBe(2);

      const [rows] = await sqlOn(engine, [["SELECT * FROM messages WHERE id = $1 OR id = $2", [m1!.id, copied[0]!.id]]]);
      const src = rows!.find((r) => r.id === m1!.id)!;
      const copy = rows!.find((r) => r.id === copied[0]!.id)!;
      const own = ["id", "uid", "mailbox_id", "modseq"];
      const rest = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).filter(([k]) => !own.includes(k)));
      expect(rest(copy)).toEqual(rest(src));
      expect(Object.keys(rest(copy)).length).toBeGreaterThan(30);
      expect([copy.uid, copy.mailbox_id]).toEqual([1, "mb_b1"]);
      // Source and copy share UID 1, each in its own mailbox; flags are read per mailbox.
      expect((await s.messages.flagsOf("ib_b", "mb_b1", [copied[0]!.id, m1!.id])).map((f) => [f.id, f.uid])).toEqual([[copied[0]!.id, 1]]);
      expect((await s.messages.flagsOf("ib_b", null, [copied[0]!.id, m1!.id])).map((f) => [f.id, f.uid])).toEqual([[m1!.id, 1]]);

      const [atts] = await sqlOn(engine, [["SELECT id, filename, blob_key FROM attachments WHERE message_id = $1", [copied[0]!.id]]]);
      expect(atts!.map((a) => [a.filename, a.blob_key])).toEqual([["a.pdf", "blob-att"]]);
      expect(atts![0]!.id).not.toBe("at_1");
      // A copy back into INBOX, by the UID the message has in Copies: mailbox null, INBOX's next UID.
      const back = await s.imapFolders.copy("ib_b", "mb_b1", [2], null);
      expect(back.map((c) => c.uid)).toEqual([3]);
      expect((await s.messages.mailboxDetails("ib_b", null, [3]))[0]!.blob_key).toBe(`blob-${m2!.id}`);
      expect((await s.imapFolders.foldersOf([back[0]!.id])).get(back[0]!.id)).toBeNull();
    });

    test("flags and CONDSTORE: extra flags, keywords, modseqs rise with every change, HIGHESTMODSEQ follows, expunge bumps it", async () => {
      await s.inboxes.insert(inbox("ib_m"));
      await s.imapFolders.insert(folder("mb_m1", "ib_m", "Other"));
      const start = await s.imapFolders.highestModseq("ib_m", null);
      const msgs = await deliver("ib_m", 3);
      const afterArrival = await s.imapFolders.highestModseq("ib_m", null);
      expect(afterArrival).toBe(start + 3);
      const arrived = await s.imapFolders.modseqs("ib_m", null, [1, 2, 3, 99]);
      expect([...arrived.entries()]).toEqual([
        [1, start + 1],
        [2, start + 2],
        [3, start + 3],
      ]);

      await s.imapFolders.setExtraFlags("ib_m", null, [
        { uid: 2, flags: "\\Draft kw1" },
        { uid: 3, flags: "kw2 \\Answered" },
      ]);
      // Writing the same flags again changes nothing, so no modseq moves.
      await s.imapFolders.setExtraFlags("ib_m", null, [{ uid: 2, flags: "\\Draft kw1" }]);
      expect(await s.imapFolders.highestModseq("ib_m", null)).toBe(afterArrival + 2);
      expect(await s.imapFolders.changedSince("ib_m", null, afterArrival)).toEqual(
        new Map([
          [2, afterArrival + 1],
          [3, afterArrival + 2],
        ]),
      );
      expect(await s.imapFolders.extraFlags("ib_m", null, null)).toEqual(
        new Map([
          [2, "\\Draft kw1"],
          [3, "kw2 \\Answered"],
        ]),
      );
      expect(await s.imapFolders.extraFlags("ib_m", null, [1, 3])).toEqual(new Map([[3, "kw2 \\Answered"]]));
      expect(await s.imapFolders.extraFlags("ib_m", null, [])).toEqual(new Map());
      expect(await s.imapFolders.keywords("ib_m")).toEqual(["kw1", "kw2"]);
      await s.imapFolders.setExtraFlags("ib_m", null, [{ uid: 3, flags: null }]);
      expect(await s.imapFolders.keywords("ib_m")).toEqual(["kw1"]);

      // A message delivered into another mailbox takes that mailbox's next modseq (and its UID 1).
      const otherStart = await s.imapFolders.highestModseq("ib_m", "mb_m1");
      const inboxBefore = await s.imapFolders.highestModseq("ib_m", null);
      expect((await deliver("ib_m", 1, "mb_m1"))[0]!.uid).toBe(1);
      expect(await s.imapFolders.highestModseq("ib_m", "mb_m1")).toBe(otherStart + 1);
      expect(await s.imapFolders.highestModseq("ib_m", null)).toBe(inboxBefore);
      expect(await s.imapFolders.changedSince("ib_m", "mb_m1", otherStart)).toEqual(new Map([[1, otherStart + 1]]));
      expect((await s.imapFolders.counts("ib_m", "mb_m1")).highestModseq).toBe(otherStart + 1);
      // UID 1 of each mailbox: flags and modseqs are per mailbox.
      await s.imapFolders.setExtraFlags("ib_m", "mb_m1", [{ uid: 1, flags: "kw3" }]);
      expect(await s.imapFolders.extraFlags("ib_m", "mb_m1", null)).toEqual(new Map([[1, "kw3"]]));
      expect(await s.imapFolders.extraFlags("ib_m", null, [1])).toEqual(new Map());
      expect(await s.imapFolders.modseqs("ib_m", "mb_m1", [1])).toEqual(new Map([[1, otherStart + 2]]));
      expect(await s.imapFolders.modseqs("ib_m", null, [1])).toEqual(new Map([[1, start + 1]]));

      // An expunge leaves no row behind but moves the mailbox's counter (a client's HIGHESTMODSEQ goes stale).
      const beforeExpunge = await s.imapFolders.highestModseq("ib_m", null);
      await sqlOn(engine, [["DELETE FROM messages WHERE id = $1", [msgs[1]!.id]]]);
      expect(await s.imapFolders.highestModseq("ib_m", null)).toBe(beforeExpunge + 1);
      expect((await s.imapFolders.counts("ib_m", null)).highestModseq).toBe(beforeExpunge + 1);
      expect(await s.imapFolders.highestModseq("ib_m", "mb_none")).toBe(1);
    });

    test("CONDSTORE: flag changes arriving at once each get their own modseq, and HIGHESTMODSEQ is the highest", async () => {
      await s.inboxes.insert(inbox("ib_n"));
      await deliver("ib_n", 10);
      const before = await s.imapFolders.highestModseq("ib_n", null);
      await Promise.all(Array.from({ length: 10 }, (_, i) => s.imapFolders.setExtraFlags("ib_n", null, [{ uid: i + 1, flags: `k${i}` }])));
      const changed = await s.imapFolders.changedSince("ib_n", null, before);
      expect([...changed.values()].sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => before + i + 1));
      expect(await s.imapFolders.highestModseq("ib_n", null)).toBe(before + 10);
    });

    // Two nodes on one database: only PostgreSQL has them (SQLite: one process per data directory), so the
    // test is not even listed for SQLite (a skip would read as a missing component).
    (engine.name === "postgres" ? test : () => {})(
      "two nodes: \\Recent claims, COPYs and flag writes into one mailbox at once",
      async () => {
        const other = await openPostgresStorage(engine.location(), { max: 4 });
        try {
          await s.inboxes.insert(inbox("ib_2n"));
          await s.imapFolders.insert(folder("mb_2n", "ib_2n", "Shared"));
          await deliver("ib_2n", 16, "mb_2n");
          const nodes = [s, other];
          const claims = await Promise.all(
            Array.from({ length: 16 }, (_, i) =>
              nodes[i % 2]!.imapFolders.claimRecent("ib_2n", "mb_2n", i + 1).then((c) => ({ ...c, upTo: i + 1 })),
            ),
          );
          const uids = claims
            .filter((c) => c.count > 0)
            .flatMap((c) => Array.from({ length: c.upTo - c.from }, (_, k) => c.from + k + 1))
            .sort((a, b) => a - b);
          expect(uids).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));

          // COPY locks the inbox then the mailbox (its UID counter, then its modseq); a flag write in the mailbox takes the
          // same order (0028's trigger locks the inbox first, though \Seen's counter would lock it
          // after the row), so these never deadlock, and every change gets its own modseq.
          const before = await s.imapFolders.highestModseq("ib_2n", "mb_2n");
          await Promise.all([
            ...Array.from({ length: 6 }, (_, i) =>
              nodes[i % 2]!.transaction((tx) => tx.imapFolders.copy("ib_2n", "mb_2n", [i + 1], "mb_2n")),
            ),
            ...Array.from({ length: 3 }, (_, i) =>
              nodes[(i + 1) % 2]!.transaction((tx) => tx.imapFolders.setExtraFlags("ib_2n", "mb_2n", [{ uid: i + 10, flags: "kw" }])),
            ),
            // \Seen as the mail repository writes it: the unread counter locks the inbox after the row.
            ...Array.from({ length: 3 }, (_, i) =>
              sqlOn(engine, [["UPDATE messages SET read = 1 WHERE inbox_id = $1 AND uid = $2", ["ib_2n", i + 13]]]),
            ),
          ]);
          const changed = await s.imapFolders.changedSince("ib_2n", "mb_2n", before);
          expect([...changed.values()].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => before + i + 1));
          expect((await s.imapFolders.counts("ib_2n", "mb_2n")).messages).toBe(22);
          expect((await other.imapFolders.byId("mb_2n"))!.uidNext).toBe(23);
        } finally {
          await other.close();
        }
      },
    );
  });
}
