// The message path's contract (src/storage/mail.ts: messages, attachments, blob references, auth
// checks; the Storage's transaction, putInlineBlob, deleteMessages, searchable, stats and blob
// store), asserted once and run against both engines: SQLite (openSqliteStorage) and PostgreSQL
// (openPostgresStorage, a real server this file starts). Search queries go through the real
// parser (mail/search-query.ts), so each case is a `q` of docs/search.md with the messages it
// must find on either engine.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { inboxRecord } from "../support/storage-records";
import { encodeTime } from "ulid";
import { parseSearchQuery } from "../../src/mail/search-query";
import { sha256Hex } from "../../src/storage";
import type { AttachmentRecord, InboxRecord, MessageSearch, NewMessage } from "../../src/storage/mail";
import { FLAG_DELETED, FLAG_FLAGGED, FLAG_SEEN } from "../../src/storage/mail";
import { type Engine, storageEngines } from "../support/storage-engines";

const ENGINES = storageEngines();

const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const iso = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
/** A ULID made at minute `minutes` (ids and received_at agree, as at ingest). */
const idAt = (minutes: number, n: number) => `${encodeTime(T0 + minutes * 60_000, 10)}${String(n).padStart(16, "0")}`;

const inbox = (id: string, projectId: string): InboxRecord => inboxRecord(id, projectId, { type: "persistent", createdAt: iso(0) });

interface Mail {
  minute: number;
  subject: string;
  text?: string | null;
  html?: string | null;
  fromName?: string;
  fromEmail?: string;
  to?: Array<{ name: string; email: string }>;
  headers?: Array<{ name: string; value: string }>;
  codes?: string[];
  links?: string[];
  size?: number;
  attachments?: number;
}

const message = (inboxId: string, projectId: string, uid: number, m: Mail, n: number): NewMessage => ({
  id: idAt(m.minute, n),
  inbox_id: inboxId,
  project_id: projectId,
  uid,
  blob_key: sha256Hex(`raw ${inboxId} ${n}`),
  size_bytes: m.size ?? 1000 + n,
  logical_size_bytes: m.size ?? 1000 + n,
  envelope_from: m.fromEmail ?? "sender@example.test",
  envelope_to: `${inboxId}@example.test`,
  from_email: m.fromEmail ?? "sender@example.test",
  from_name: m.fromName ?? "",
  to_json: JSON.stringify(m.to ?? [{ name: "", email: `${inboxId}@example.test` }]),
  cc_json: "[]",
  subject: m.subject,
  preview: (m.text ?? "").slice(0, 100),
  text_body: m.text === undefined ? `body of ${m.subject}` : m.text,
  html_body: m.html ?? null,
  codes: JSON.stringify(m.codes ?? []),
  links: JSON.stringify(m.links ?? []),
  headers: JSON.stringify(m.headers ?? [{ name: "Date", value: `Thu, 01 Jan 2026 00:${String(m.minute).padStart(2, "0")}:00 +0000` }]),
  headers_truncated: 0,
  message_id_header: `<${n}@example.test>`,
  sent_at: iso(m.minute),
  attachment_count: m.attachments ?? 0,
  parse_error: null,
  received_at: iso(m.minute),
  expires_at: iso(1000 + m.minute),
});

/** The mail of inbox ib_m: each case below names the ones it must find by their number. */
const MAILS: Mail[] = [
  {
    minute: 1,
    subject: "Your code",
    text: "Use 482913 to sign in.",
    codes: ["482913"],
    fromName: "Alice Martin",
    fromEmail: "alice@shop.example",
  },
  { minute: 2, subject: "Café menu", text: "Crème brûlée today", fromEmail: "chef@bistro.example" },
  { minute: 3, subject: "Weekly report", text: "The quick brown fox jumps", links: ["https://x.example"], size: 50_000 },
  { minute: 4, subject: "Invoice ABC-77", text: null, html: "<p>Pay the <b>invoice</b> now</p>", attachments: 1 },
  {
    minute: 5,
    subject: "Hello",
    text: "brown quick fox",
    headers: [
      { name: "X-Campaign", value: "Spring-Sale 2026" },
      { name: "Date", value: "Thu, 01 Jan 2026 00:05:00 +0000" },
    ],
    to: [{ name: "Bob Stone", email: "bob@corp.example" }],
  },
];

for (const engine of ENGINES) {
  describe.skipIf(!engine.available)(`message repositories on ${engine.name}`, () => {
    let s: Engine;
    const ids: string[] = [];

    /** Stores one message the way ingest does: UID, row, inline blob, auth queue, in one transaction. */
    const store = (inboxId: string, projectId: string, m: Mail, n: number) =>
      s.transaction(async (tx) => {
        const { uid } = (await tx.inboxes.takeUid(inboxId))!;
        const rec = message(inboxId, projectId, uid, m, n);
        await tx.putInlineBlob(rec.blob_key, new TextEncoder().encode(`raw ${inboxId} ${n}`));
        await tx.messages.insert(rec);
        await tx.messageAuth.enqueue(rec.id, "192.0.2.1", "mx.example");
        return rec;
      });

    beforeAll(async () => {
      s = await engine.open();
      await s.teams.insert({ id: "tm_m", name: "team m", plan: "free", usedBytes: 0, createdAt: iso(0) });
      for (const p of ["pr_m", "pr_o"]) {
        await s.projects.insert({ id: p, teamId: "tm_m", slug: p, name: p, environment: "live", settings: {}, createdAt: iso(0) });
      }
      await s.inboxes.insert(inbox("ib_m", "pr_m"));
      await s.inboxes.insert(inbox("ib_o", "pr_o"));
      for (const [i, m] of MAILS.entries()) ids.push((await store("ib_m", "pr_m", m, i)).id);
      await store("ib_o", "pr_o", { minute: 6, subject: "Your code elsewhere", text: "Use 482913" }, 9);
      await s.searchable();
    });

    afterAll(async () => {
      await s?.close();
      await engine.stop();
    });

    test("insert reads back field for field; the inbox and team counters follow", async () => {
      const got = await s.messages.inProject("pr_m", ids[0]!);
      const want = message("ib_m", "pr_m", 1, MAILS[0]!, 0);
      expect(got).toMatchObject({ ...want, read: 0, flagged: 0, deleted_flag: 0 });
      expect(got!.mailbox_id ?? null).toBeNull();
      expect(await s.messages.inProject("pr_o", ids[0]!)).toBeNull();
      expect(await s.messages.exists(ids[0]!)).toBe(true);
      expect(await s.messages.exists("01NOPE")).toBe(false);
      const ib = (await s.inboxes.byId("ib_m"))!;
      const bytes = MAILS.reduce((sum, m, i) => sum + (m.size ?? 1000 + i), 0);
      expect([ib.messageCount, ib.unreadCount, ib.usedBytes, ib.uidNext]).toEqual([5, 5, bytes, 6]);
      expect(await s.inboxes.teamUsedBytes("tm_m")).toBe(bytes + 1009);
      expect(await s.inboxes.mailboxStatus("ib_m")).toEqual({ uidValidity: 1_767_225_600, uidNext: 6, messages: 5, unseen: 5, maxUid: 5 });
    });

    test("lists page newest first; newest and oldestAfter", async () => {
      const page1 = await s.messages.listInInbox("ib_m", null, 2);
      expect(page1.map((m) => m.id)).toEqual([ids[4], ids[3]]);
      const page2 = await s.messages.listInInbox("ib_m", page1[1]!.id, 2);
      expect(page2.map((m) => m.id)).toEqual([ids[2], ids[1]]);
      expect((await s.messages.newest("ib_m"))!.id).toBe(ids[4]!);
      expect((await s.messages.oldestAfter("ib_m", ids[1]!))!.id).toBe(ids[2]!);
      expect(await s.messages.oldestAfter("ib_m", ids[4]!)).toBeNull();
    });

    test("search: words, accents, phrases, prefixes, fields, structured terms, negation, order and cursors", async () => {
      const find = async (q: string, patch: Partial<MessageSearch> = {}) => {
        const found = await s.messages.search({
          projectId: "pr_m",
          inboxId: "ib_m",
          query: parseSearchQuery(q),
          order: "oldest",
          limit: 50,
          ...patch,
        });
        return found.map((m) => ids.indexOf(m.id));
      };
      expect(await find("")).toEqual([0, 1, 2, 3, 4]);
      expect(await find("fox")).toEqual([2, 4]);
      expect(await find("FOX")).toEqual([2, 4]);
      expect(await find("cafe")).toEqual([1]); // accents and case do not matter
      expect(await find("creme brulee")).toEqual([1]);
      expect(await find('"quick brown"')).toEqual([2]); // consecutively
      expect(await find('"brown quick"')).toEqual([4]);
      expect(await find("qui*")).toEqual([2, 4]);
      expect(await find("invoice")).toEqual([3]); // subject and the HTML body's text
      expect(await find("pay")).toEqual([3]);
      expect(await find("subject:invoice")).toEqual([3]);
      expect(await find("subject:fox")).toEqual([]);
      expect(await find("subject:abc")).toEqual([3]); // "ABC-77": two tokens
      expect(await find("from:ali")).toEqual([0]);
      expect(await find('from:"alice martin"')).toEqual([0]);
      expect(await find("from:shop.example")).toEqual([0]);
      expect(await find("from:bistro")).toEqual([1]);
      expect(await find("from:shop.alice")).toEqual([]); // consecutive words only
      expect(await find("to:bob")).toEqual([4]);
      expect(await find("to:corp.example")).toEqual([4]);
      expect(await find("to:ib_m")).toEqual([0, 1, 2, 3, 4]); // the envelope recipient, in every one
      expect(await find("-fox")).toEqual([0, 1, 3]);
      expect(await find("fox -subject:hello")).toEqual([2]);
      expect(await find("code:482913")).toEqual([0]);
      expect(await find("header:x-campaign")).toEqual([4]);
      expect(await find("header:X-CAMPAIGN=spring-sale")).toEqual([4]);
      expect(await find("header:x-campaign=autumn")).toEqual([]);
      expect(await find("has:attachment")).toEqual([3]);
      expect(await find("has:code")).toEqual([0]);
      expect(await find("has:link")).toEqual([2]);
      expect(await find("larger:10000")).toEqual([2]);
      expect(await find("smaller:10000")).toEqual([0, 1, 3, 4]);
      expect(await find(`after:${iso(3)}`)).toEqual([2, 3, 4]);
      expect(await find(`before:${iso(3)}`)).toEqual([0, 1]);
      expect(await find(`-after:${iso(3)}`)).toEqual([0, 1]);
      expect(await find("auth:pending")).toEqual([0, 1, 2, 3, 4]);
      expect(await find("folder:INBOX fox")).toEqual([2, 4]);
      // A word without a token (the parser refuses one; the repository must still agree): finds nothing, excludes nothing.
      const tokenless = (negated: boolean) => ({ terms: [{ kind: "text" as const, value: "!!!", prefix: false, negated, position: 0 }] });
      const raw = async (negated: boolean) =>
        (await s.messages.search({ projectId: "pr_m", inboxId: "ib_m", query: tokenless(negated), order: "oldest", limit: 9 })).length;
      expect([await raw(false), await raw(true)]).toEqual([0, 5]);
      // Order, limit and cursors; the whole project; counting.
      expect(await find("fox", { order: "newest" })).toEqual([4, 2]);
      expect(await find("", { order: "newest", limit: 2, before: ids[3] })).toEqual([2, 1]);
      expect(await find("", { after: ids[2] })).toEqual([3, 4]);
      const project = await s.messages.search({
        projectId: "pr_o",
        inboxId: null,
        query: parseSearchQuery("482913"),
        order: "newest",
        limit: 5,
      });
      expect(project.map((m) => m.inbox_id)).toEqual(["ib_o"]);
      const scope = { projectId: "pr_m", inboxId: null, order: "newest" as const, limit: 1 };
      expect(await s.messages.countUpTo({ ...scope, query: parseSearchQuery("fox") }, 10)).toBe(2);
      expect(await s.messages.countUpTo({ ...scope, query: null }, 3)).toBe(3);
      // The long-poll matcher and the per-inbox id walk use the same terms.
      expect((await s.messages.matching("pr_m", [ids[4]!, ids[1]!, ids[2]!], parseSearchQuery("fox"))).map((m) => m.id)).toEqual([
        ids[2],
        ids[4],
      ]);
      expect(await s.messages.matching("pr_o", [ids[4]!], null)).toEqual([]);
      expect(await s.messages.idsInInbox("ib_m", parseSearchQuery("fox"), ids[2]!, 10)).toEqual([ids[4]]);
      expect(await s.messages.idsInInbox("ib_m", null, null, 2)).toEqual([ids[0], ids[1]]);
    });

    test("IMAP SEARCH text keys: substrings over the index's candidates, its vocabulary, Date headers", async () => {
      const uids = (key: Parameters<Engine["messages"]["uidsWithText"]>[2], among: Parameters<Engine["messages"]["uidsWithText"]>[3]) =>
        s.messages.uidsWithText("ib_m", null, key, among);
      expect(await uids({ field: "body", value: "QUICK BRO" }, { words: ["quick", "bro"] })).toEqual([3]);
      expect(await uids({ field: "body", value: "rown" }, { anyTerm: ["brown"] })).toEqual([3, 5]);
      expect(await uids({ field: "subject", value: "voice" }, { anyTerm: ["invoice"] })).toEqual([4]);
      expect(await uids({ field: "text", value: "alice@shop" }, { uids: [1, 2, 3] })).toEqual([1]);
      expect(await uids({ field: "from", value: "ALICE MARTIN <alice" }, { uids: [1, 2, 3, 4, 5] })).toEqual([1]);
      expect(await uids({ field: "to", value: "bob@corp" }, { uids: [1, 2, 3, 4, 5] })).toEqual([5]);
      expect(await uids({ field: "header", name: "x-campaign", value: "sale" }, { uids: [1, 2, 3, 4, 5] })).toEqual([5]);
      expect(await uids({ field: "headers", value: "spring" }, { uids: [5] })).toEqual([5]);
      expect(await uids({ field: "bcc", value: "x" }, { uids: [] })).toEqual([]);
      const terms = await s.messages.indexTermsAfter("brov", 3);
      expect(terms[0]).toBe("brown");
      expect(terms).toEqual([...terms].sort());
      // SQLite's trigram index of the vocabulary (PostgreSQL walks indexTermsAfter: docs/scaling.md).
      if (s.messages.indexTermsContaining) expect(await s.messages.indexTermsContaining("row", 10)).toContain("brown");
      const dates = (await s.messages.sentDates("ib_m", null)).sort((a, b) => a.uid - b.uid);
      expect(dates[4]).toEqual({ uid: 5, sent_at: iso(5), date_header: "Thu, 01 Jan 2026 00:05:00 +0000" });
    });

    test("flags: only real changes count, unread counters follow, IMAP pages and details", async () => {
      const changed = await s.messages.setFlags("ib_m", [
        { id: ids[0]!, read: true },
        { id: ids[1]!, flagged: true, deleted: false },
        { id: ids[2]!, read: false },
        { id: ids[3]!, deleted: true },
      ]);
      expect(changed).toEqual([ids[0], ids[1], ids[3]]);
      expect(await s.messages.setFlags("ib_o", [{ id: ids[4]!, read: true }])).toEqual([]); // not that inbox's
      expect((await s.inboxes.byId("ib_m"))!.unreadCount).toBe(4);
      expect(await s.messages.unreadIdsUpTo("ib_m", ids[2]!)).toEqual([ids[1], ids[2]]);
      const flags = await s.messages.flagsOf("ib_m", null, [ids[1]!, "01NOPE", ids[0]!]);
      expect(flags.map((f) => [f.id, f.uid, f.read, f.flagged, f.deleted_flag])).toEqual([
        [ids[1], 2, 0, 1, 0],
        [ids[0], 1, 1, 0, 0],
      ]);
      expect(flags.every((f) => typeof f.modseq === "number")).toBe(true);
      const page = await s.messages.mailboxPage("ib_m", 1, 3);
      expect([...page.uids]).toEqual([2, 3, 4]);
      expect([...page.sizes]).toEqual([1001, 50_000, 1003]);
      expect([...page.flags]).toEqual([FLAG_FLAGGED, 0, FLAG_DELETED]);
      expect((await s.messages.mailboxPage("ib_m", 0, 1)).flags[0]).toBe(FLAG_SEEN);
      expect((await s.messages.mailboxPage("ib_m", 0, 10, "mb_none")).uids.length).toBe(0);
      const details = await s.messages.mailboxDetails("ib_m", null, [5, 1, 99]);
      expect(details.map((d) => [d.uid, d.id, d.received_at])).toEqual([
        [1, ids[0], iso(1)],
        [5, ids[4], iso(5)],
      ]);
      const search = (q: string) =>
        s.messages.search({ projectId: "pr_m", inboxId: "ib_m", query: parseSearchQuery(q), order: "oldest", limit: 9 });
      expect((await search("is:read")).map((m) => m.id)).toEqual([ids[0]]);
      expect((await search("is:unread")).length).toBe(4);
      await s.messages.setFlags("ib_m", [
        { id: ids[0]!, read: false },
        { id: ids[1]!, flagged: false },
        { id: ids[3]!, deleted: false },
      ]);
    });

    test("auth checks: queued with the message, claimed with a lease until recorded, searchable by verdict", async () => {
      const pending = await s.messageAuth.claimPending(100, iso(1), iso(5), "node-a");
      expect(pending.filter((p) => p.project_id === "pr_m").map((p) => p.message_id)).toEqual(ids);
      expect(pending[0]).toMatchObject({
        inbox_id: "ib_m",
        client_ip: "192.0.2.1",
        helo: "mx.example",
        envelope_from: "alice@shop.example",
      });
      await s.messageAuth.record({
        message_id: ids[0]!,
        client_ip: "192.0.2.1",
        helo: "mx.example",
        verdict: "pass",
        result_json: "{}",
        checked_at: iso(9),
      });
      await s.messageAuth.record({
        message_id: "01NOPE",
        client_ip: null,
        helo: null,
        verdict: "fail",
        result_json: null,
        checked_at: iso(9),
      });
      expect(await s.messageAuth.ofMessage("01NOPE")).toBeNull();
      expect(await s.messageAuth.ofMessage(ids[0]!)).toEqual({
        message_id: ids[0]!,
        client_ip: "192.0.2.1",
        helo: "mx.example",
        verdict: "pass",
        result_json: "{}",
        checked_at: iso(9),
      });
      // Held until iso(5): a second claimer (another node) gets none of them before it lapses.
      expect(await s.messageAuth.claimPending(100, iso(4), iso(8), "node-b")).toEqual([]);
      // Lapsed (a dead node's claim): taken over, but for the one already recorded.
      const retaken = (await s.messageAuth.claimPending(100, iso(5), iso(20), "node-b"))
        .filter((p) => p.project_id === "pr_m")
        .map((p) => p.message_id);
      expect(retaken).toEqual(ids.slice(1));
      // The node holding claims, restarted, takes its own back before they lapse.
      const own = (await s.messageAuth.claimPending(100, iso(6), iso(30), "node-b")).filter((p) => p.project_id === "pr_m");
      expect(own.map((p) => p.message_id)).toEqual(ids.slice(1));
      expect(await s.messageAuth.claimPending(100, iso(7), iso(30), "node-a")).toEqual([]);
      const auth = (q: string) =>
        s.messages.search({ projectId: "pr_m", inboxId: "ib_m", query: parseSearchQuery(q), order: "oldest", limit: 9 });
      expect((await auth("auth:pass")).map((m) => m.id)).toEqual([ids[0]]);
      expect((await auth("auth:pending")).length).toBe(4);
    });

    test("a transaction that throws leaves no message, UID or blob; a savepoint undoes only its own writes", async () => {
      const bytes = new TextEncoder().encode("rolled back");
      const key = sha256Hex(bytes);
      await expect(
        s.transaction(async (tx) => {
          const { uid } = (await tx.inboxes.takeUid("ib_m"))!;
          await tx.putInlineBlob(key, bytes);
          await tx.messages.insert(message("ib_m", "pr_m", uid, { minute: 20, subject: "ghost" }, 20));
          throw new Error("refused");
        }),
      ).rejects.toThrow("refused");
      expect(await s.messages.exists(idAt(20, 20))).toBe(false);
      expect(await s.blobs.get(key)).toBeNull();
      expect((await s.inboxes.byId("ib_m"))!.uidNext).toBe(6);
      const kept = await s.transaction(async (tx) => {
        const { uid } = (await tx.inboxes.takeUid("ib_m"))!;
        await expect(
          tx.savepoint(async (sp) => {
            await sp.messages.insert(message("ib_m", "pr_m", uid, { minute: 21, subject: "inner" }, 21));
            throw new Error("inner");
          }),
        ).rejects.toThrow("inner");
        await tx.messages.insert(message("ib_m", "pr_m", uid, { minute: 22, subject: "outer" }, 22));
        return uid;
      });
      expect(kept).toBe(6);
      expect(await s.messages.exists(idAt(21, 21))).toBe(false);
      expect((await s.messages.inProject("pr_m", idAt(22, 22)))!.subject).toBe("outer");
      await s.searchable();
      const found = await s.messages.search({
        projectId: "pr_m",
        inboxId: "ib_m",
        query: parseSearchQuery("outer"),
        order: "oldest",
        limit: 9,
      });
      expect(found.map((m) => m.uid)).toEqual([6]);
    });

    test("attachments and blob references; deletion reports rows and keys and the counters follow", async () => {
      const att = (n: number): AttachmentRecord => ({
        id: `at_${n}`,
        message_id: ids[3]!,
        position: n,
        filename: `file${n}.pdf`,
        declared_content_type: "application/pdf",
        served_content_type: "application/pdf",
        disposition: "attachment",
        content_id: n === 1 ? "<cid1>" : null,
        size_bytes: 2048 + n,
        sha256: sha256Hex(`att ${n}`),
        blob_key: sha256Hex(`att ${n}`),
      });
      await s.transaction((tx) => tx.attachments.insert([att(1), att(0)]));
      expect(await s.attachments.ofMessages([ids[3]!, ids[0]!])).toEqual([att(0), att(1)]);
      expect(await s.attachments.byId(ids[3]!, "at_1")).toEqual(att(1));
      expect(await s.attachments.byId(ids[0]!, "at_1")).toBeNull();
      expect(await s.blobRefs.isReferenced(att(1).blob_key)).toBe(true);
      const raw3 = message("ib_m", "pr_m", 4, MAILS[3]!, 3).blob_key;
      expect(await s.blobRefs.isReferenced(raw3)).toBe(true);
      const before = (await s.inboxes.byId("ib_m"))!;
      // Another project's id is left alone; the rest go, in the order asked.
      const out = await s.transaction((tx) => tx.messages.deleteInProject("pr_m", [ids[3]!, "01NOPE", idAt(6, 9)]));
      expect(out.removed).toEqual([{ id: ids[3]!, inbox_id: "ib_m", mailbox_id: null, uid: 4 }]);
      expect(out.blobKeys).toEqual([raw3, att(0).blob_key, att(1).blob_key]);
      expect(await s.attachments.ofMessages([ids[3]!])).toEqual([]);
      expect(await s.blobRefs.isReferenced(att(1).blob_key)).toBe(false);
      expect(await s.blobRefs.isReferenced(raw3)).toBe(false);
      expect(await s.messageAuth.ofMessage(ids[3]!)).toBeNull();
      const after = (await s.inboxes.byId("ib_m"))!;
      expect([after.messageCount, after.unreadCount, after.usedBytes]).toEqual([
        before.messageCount - 1,
        before.unreadCount - 1,
        before.usedBytes - 1003,
      ]);
      // Storage.deleteMessages: its own transaction, same report.
      const bulk = await s.deleteMessages("pr_m", [idAt(22, 22)]);
      expect(bulk.removed.map((r) => r.uid)).toEqual([6]);
      expect(await s.messages.exists(idAt(22, 22))).toBe(false);
      await s.searchable();
      const gone = await s.messages.search({
        projectId: "pr_m",
        inboxId: null,
        query: parseSearchQuery("invoice"),
        order: "oldest",
        limit: 9,
      });
      expect(gone).toEqual([]);
    });

    test("expiry lists messages soonest first; stats count messages, database bytes and pending deliveries", async () => {
      const due = await s.messages.expired(iso(1002), 10);
      expect(due).toEqual([
        { id: ids[0]!, project_id: "pr_m" },
        { id: ids[1]!, project_id: "pr_m" },
      ]);
      const stats = await s.stats();
      expect(stats.messages).toBe(5);
      expect(stats.databaseBytes).toBeGreaterThan(0);
      expect(stats.webhookPending).toBe(0);
    });

    test("blob store: inline and large blobs, streams, spools, sizes, deletes", async () => {
      const small = new TextEncoder().encode("small blob");
      const key = await s.blobs.put(small);
      expect(key).toBe(sha256Hex(small));
      expect(await s.blobs.put(small)).toBe(key); // content addressed: a second put is a no-op
      expect(Buffer.from((await s.blobs.get(key))!).toString()).toBe("small blob");
      expect(await s.blobs.size(key)).toBe(small.byteLength);
      const big = new Uint8Array(3 * 1024 * 1024 + 17).map((_, i) => (i * 31) % 251);
      const spool = s.blobs.spool();
      spool.write(big.subarray(0, 1_000_000));
      spool.write(big.subarray(1_000_000));
      const bigKey = await s.blobs.adopt(spool);
      spool.release();
      expect(bigKey).toBe(sha256Hex(big));
      expect(await s.blobs.size(bigKey)).toBe(big.byteLength);
      const chunks: Buffer[] = [];
      for await (const c of (await s.blobs.stream(bigKey))!) chunks.push(c as Buffer);
      expect(sha256Hex(Buffer.concat(chunks))).toBe(bigKey);
      expect(sha256Hex((await s.blobs.get(bigKey))!)).toBe(bigKey);
      await s.blobs.delete(key);
      await s.blobs.delete(bigKey);
      expect(await s.blobs.get(key)).toBeNull();
      expect(await s.blobs.stream(bigKey)).toBeNull();
      expect(await s.blobs.size(bigKey)).toBeNull();
      expect(s.blobs.inlineMax).toBeGreaterThan(0);
    });

    test("another mailbox: its own UIDs (the same UID as INBOX's), and every IMAP read scoped to it", async () => {
      await s.inboxes.insert(inbox("ib_f", "pr_m"));
      await s.imapFolders.insert({
        id: "mb_f",
        inboxId: "ib_f",
        name: "Sent",
        uidValidity: 7,
        uidNext: 1,
        subscribed: true,
        specialUse: null,
        createdAt: iso(0),
      });
      const inInbox = await store("ib_f", "pr_m", { minute: 40, subject: "kept in inbox", text: "alpha words" }, 40);
      const inFolder = await s.transaction(async (tx) => {
        const { uid } = (await tx.inboxes.takeUid("ib_f", "mb_f"))!;
        const rec = message("ib_f", "pr_m", uid, { minute: 41, subject: "filed in sent", text: "alpha words" }, 41);
        await tx.putInlineBlob(rec.blob_key, new TextEncoder().encode("raw ib_f 41"));
        await tx.messages.insert(rec, "mb_f");
        return rec;
      });
      expect([inInbox.uid, inFolder.uid]).toEqual([1, 1]);
      expect(await s.imapFolders.foldersOf([inInbox.id, inFolder.id])).toEqual(
        new Map([
          [inInbox.id, null],
          [inFolder.id, "mb_f"],
        ]),
      );
      expect((await s.imapFolders.byId("mb_f"))!.uidNext).toBe(2);
      expect((await s.inboxes.byId("ib_f"))!.uidNext).toBe(2);
      expect((await s.inboxes.mailboxStatus("ib_f"))!.maxUid).toBe(1);
      // Filed with the mailbox's next modseq, INBOX's counter untouched by it.
      expect((await s.messages.flagsOf("ib_f", "mb_f", [inFolder.id]))[0]!.modseq).toBe(await s.imapFolders.highestModseq("ib_f", "mb_f"));
      for (const [folder, id] of [
        [null, inInbox.id],
        ["mb_f", inFolder.id],
      ] as const) {
        expect((await s.messages.mailboxDetails("ib_f", folder, [1])).map((d) => d.id)).toEqual([id]);
        expect((await s.messages.flagsOf("ib_f", folder, [inInbox.id, inFolder.id])).map((f) => f.id)).toEqual([id]);
        expect(await s.messages.uidsWithText("ib_f", folder, { field: "body", value: "alpha" }, { uids: [1] })).toEqual([1]);
        expect((await s.messages.sentDates("ib_f", folder)).map((d) => d.sent_at)).toEqual([id === inInbox.id ? iso(40) : iso(41)]);
        expect([...(await s.messages.mailboxPage("ib_f", 0, 10, folder)).uids]).toEqual([1]);
      }
      await s.searchable(); // SQLite indexes after the commit
      expect(await s.messages.uidsWithText("ib_f", "mb_f", { field: "subject", value: "filed" }, { anyTerm: ["filed"] })).toEqual([1]);
      expect(await s.messages.uidsWithText("ib_f", null, { field: "subject", value: "filed" }, { anyTerm: ["filed"] })).toEqual([]);
      // A deletion names the mailbox, since the UID alone no longer names the message.
      const out = await s.deleteMessages("pr_m", [inFolder.id, inInbox.id]);
      expect(out.removed).toEqual([
        { id: inFolder.id, inbox_id: "ib_f", mailbox_id: "mb_f", uid: 1 },
        { id: inInbox.id, inbox_id: "ib_f", mailbox_id: null, uid: 1 },
      ]);
    });
  });
}
