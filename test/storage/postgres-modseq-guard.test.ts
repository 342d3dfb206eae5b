// The PostgreSQL message repository writes CONDSTORE modseqs (SQLite migration 0028) only when
// messages.modseq exists; the PostgreSQL half of 0028 comes from a sibling branch. This proves
// both sides of that guard on a real server: without the column, inserts and flag writes work and
// flagsOf reports the column's default (1); with the columns added as 0028 adds them, the same
// repository sets modseq in the statement, as SQLite's does (NEXT_MODSEQ).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import type { Storage } from "../../src/storage";
import type { NewMessage } from "../../src/storage/mail";
import { openPostgresStorage } from "../../src/storage/postgres";
import { type PostgresServer, postgresBinDir, postgresRequired, startPostgres } from "../support/postgres";

const T = "2026-01-01T00:00:00.000Z";
const msg = (id: string, uid: number): NewMessage => ({
  id,
  inbox_id: "ib_q",
  project_id: "pr_q",
  uid,
  blob_key: "k".repeat(64),
  size_bytes: 10,
  logical_size_bytes: 10,
  envelope_from: null,
  envelope_to: "q@example.test",
  from_email: "a@example.test",
  from_name: "",
  to_json: "[]",
  cc_json: "[]",
  subject: "s",
  preview: "",
  text_body: "t",
  html_body: null,
  codes: "[]",
  links: "[]",
  headers: "[]",
  headers_truncated: 0,
  message_id_header: null,
  sent_at: null,
  attachment_count: 0,
  parse_error: null,
  received_at: T,
  expires_at: T,
});

describe.skipIf(!postgresBinDir() && !postgresRequired)("PostgreSQL modseq guard", () => {
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

  test("without the column: writes work, flagsOf reports 1", async () => {
    await s.messages.insert(msg("m1", 1));
    expect(await s.messages.setFlags("ib_q", [{ id: "m1", read: true }])).toEqual(["m1"]);
    expect((await s.messages.flagsOf("ib_q", ["m1"]))[0]!.modseq).toBe(1);
  });

  test("with the columns of 0028: insert and flag writes set the mailbox's next modseq", async () => {
    const admin = new SQL(pg.url);
    await admin
      .unsafe(`ALTER TABLE inboxes ADD COLUMN highest_modseq BIGINT NOT NULL DEFAULT 1;
      ALTER TABLE imap_mailboxes ADD COLUMN highest_modseq BIGINT NOT NULL DEFAULT 1;
      ALTER TABLE messages ADD COLUMN modseq BIGINT NOT NULL DEFAULT 1;
      UPDATE inboxes SET highest_modseq = 41`)
      .simple();
    await admin.close();
    const again = await openPostgresStorage(pg.url, { max: 2 });
    try {
      await again.messages.insert(msg("m2", 2));
      expect((await again.messages.flagsOf("ib_q", ["m2"]))[0]!.modseq).toBe(42);
      // The follow-up triggers (0028's PostgreSQL half) move the counter; here it is moved by hand.
      const bump = new SQL(pg.url);
      await bump.unsafe("UPDATE inboxes SET highest_modseq = 50");
      await bump.close();
      expect(await again.messages.setFlags("ib_q", [{ id: "m2", flagged: true }])).toEqual(["m2"]);
      expect((await again.messages.flagsOf("ib_q", ["m2"]))[0]!.modseq).toBe(51);
    } finally {
      await again.close();
    }
  });
});
