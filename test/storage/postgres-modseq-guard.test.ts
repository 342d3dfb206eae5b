// The PostgreSQL message repository leaves CONDSTORE modseqs to migration 0028's triggers, which
// take the next value of the mailbox's counter themselves (under its row lock): this proves, on a
// real server, that the repository's insert and flag writes get exactly the value SQLite's writers
// compute (NEXT_MODSEQ: 1 + the counter), even when the counter was moved behind their back, and
// that a write changing nothing takes none.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import type { Storage } from "../../src/storage";
import type { NewMessage } from "../../src/storage/mail";
import { openPostgresStorage } from "../../src/storage/postgres";
import { type PostgresServer, postgresBinDir, postgresRequired, startPostgres } from "../support/postgres";
import { messageRecord } from "../support/storage-records";

const T = "2026-01-01T00:00:00.000Z";
const msg = (id: string, uid: number): NewMessage =>
  messageRecord({
    id,
    inbox_id: "ib_q",
    project_id: "pr_q",
    uid,
    blob_key: "k".repeat(64),
    size_bytes: 10,
    logical_size_bytes: 10,
    envelope_to: "q@example.test",
    from_email: "a@example.test",
    subject: "s",
    text_body: "t",
    received_at: T,
    expires_at: T,
  });

describe.skipIf(!postgresBinDir() && !postgresRequired)("PostgreSQL modseqs of the message repository's writes", () => {
  let pg: PostgresServer;
  let s: Storage;

  beforeAll(async () => {
    pg = await startPostgres();
    s = await openPostgresStorage(pg.url, { max: 2 });
    await s.teams.insert({ id: "tm_q", name: "q", plan: "free", usedBytes: 0, createdAt: T });
    await s.projects.insert({ id: "pr_q", teamId: "tm_q", slug: "q", name: "q", environment: "live", settings: {}, createdAt: T });
    await s.inboxes.insert({
      id: "ib_q",
      projectId: "pr_q",
      address: "q@example.test",
      localPart: "q",
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
    await s?.close();
    await pg?.stop();
  });

  test("insert and flag writes take the mailbox's next modseq, and the counter follows", async () => {
    const admin = new SQL(pg.url);
    try {
      await admin.unsafe("UPDATE inboxes SET highest_modseq = 41");
      await s.messages.insert(msg("m2", 1));
      expect((await s.messages.flagsOf("ib_q", null, ["m2"]))[0]!.modseq).toBe(42);
      expect(await s.imapFolders.highestModseq("ib_q", null)).toBe(42);
      await admin.unsafe("UPDATE inboxes SET highest_modseq = 50");
      expect(await s.messages.setFlags("ib_q", [{ id: "m2", flagged: true }])).toEqual(["m2"]);
      expect((await s.messages.flagsOf("ib_q", null, ["m2"]))[0]!.modseq).toBe(51);
      // No change, no modseq.
      expect(await s.messages.setFlags("ib_q", [{ id: "m2", flagged: true }])).toEqual([]);
      expect((await s.messages.flagsOf("ib_q", null, ["m2"]))[0]!.modseq).toBe(51);
      expect(await s.imapFolders.highestModseq("ib_q", null)).toBe(51);
    } finally {
      await admin.close();
    }
  });
});
