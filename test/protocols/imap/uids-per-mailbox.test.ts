// UIDs per mailbox (issue 21, migration 0029): every mailbox, INBOX included, hands out its own
// UIDs, so two mailboxes of one inbox hold the same UIDs and every command must act on the
// selected mailbox's message of that UID only. Raw sockets for the exact bytes; the migration is
// tested on a database put back into the shape the previous version left.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, startInboxd, type Instance } from "../../support/harness";
import { newBox, RawImap, sendRawMail, type Box } from "../../support/imap";
import { undoUidsPerMailbox, withDatabaseFile } from "../../support/sqlite-file";
import { Pop3Client } from "../../support/pop3-client";
import { sqliteOnlyDescribe } from "../../support/test-database";

let inst: Instance;
beforeAll(async () => {
  inst = await startInboxd();
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

const mail = (subject: string) =>
  [
    `From: Alice <alice@example.com>`,
    "To: someone@example.com",
    `Subject: ${subject}`,
    "Date: Mon, 02 Mar 2026 10:00:00 +0000",
    "",
    `body of ${subject}`,
    "",
  ].join("\r\n");

async function session(box: Box): Promise<RawImap> {
  const r = await RawImap.open(inst.ports.imap!);
  await r.login(box);
  return r;
}

async function append(r: RawImap, tag: string, mailbox: string, raw: string): Promise<string> {
  r.write(`${tag} APPEND ${mailbox} {${Buffer.byteLength(raw)}}\r\n`);
  await r.until("+");
  r.write(`${raw}\r\n`);
  return r.until(`${tag} `);
}

const uidNextOf = (select: string) => Number(/UIDNEXT (\d+)/.exec(select)?.[1]);

/** INBOX with UIDs 1, 2 (SMTP) and mailbox Box with UIDs 1, 2 (APPEND), different subjects. */
async function twoMailboxes(): Promise<{ box: Box; r: RawImap }> {
  const box = await newBox(inst);
  await sendRawMail(inst, box.address, mail("inbox one"));
  await sendRawMail(inst, box.address, mail("inbox two"));
  const r = await session(box);
  expect(await r.cmd("c", "CREATE Box")).toContain("c OK");
  expect(await append(r, "a1", "Box", mail("box one"))).toMatch(/a1 OK \[APPENDUID \d+ 1\]/);
  expect(await append(r, "a2", "Box", mail("box two"))).toMatch(/a2 OK \[APPENDUID \d+ 2\]/);
  return { box, r };
}

describe("UIDs per mailbox", () => {
  test("each mailbox counts its own UIDs from 1; UIDNEXT is the next one handed out", async () => {
    const { r } = await twoMailboxes();
    const inbox = await r.cmd("s1", "SELECT INBOX");
    expect(uidNextOf(inbox)).toBe(3);
    expect(await r.cmd("f1", "UID FETCH 1:* (UID BODY.PEEK[HEADER.FIELDS (SUBJECT)])")).toContain("Subject: inbox one");
    const box = await r.cmd("s2", "SELECT Box");
    expect(uidNextOf(box)).toBe(3);
    const f = await r.cmd("f2", "UID FETCH 1:* (UID BODY.PEEK[HEADER.FIELDS (SUBJECT)])");
    expect(f).toContain("Subject: box one");
    expect(f).not.toContain("inbox");
    // COPY from INBOX into Box takes Box's counter: the UIDNEXT it announced.
    await r.cmd("s3", "SELECT INBOX");
    expect(await r.cmd("cp", "UID COPY 2 Box")).toMatch(/cp OK \[COPYUID \d+ 2 3\]/);
    expect(await r.cmd("st", "STATUS Box (UIDNEXT MESSAGES)")).toContain("(UIDNEXT 4 MESSAGES 3)");
    expect(await r.cmd("st2", "STATUS INBOX (UIDNEXT MESSAGES)")).toContain("(UIDNEXT 3 MESSAGES 2)");
    r.close();
  });

  test("STORE, FETCH, SEARCH and EXPUNGE in one mailbox leave the other's message of the same UID alone", async () => {
    const { box, r } = await twoMailboxes();
    await r.cmd("s1", "SELECT Box");
    expect(await r.cmd("st", "UID STORE 1 +FLAGS (\\Flagged $Label1 \\Deleted)")).toContain("st OK");
    expect(await r.cmd("sr", "UID SEARCH KEYWORD $Label1")).toContain("* SEARCH 1\r\n");
    expect(await r.cmd("sr2", 'UID SEARCH SUBJECT "box one"')).toContain("* SEARCH 1\r\n");
    expect(await r.cmd("sr3", 'UID SEARCH SUBJECT "inbox one"')).toContain("* SEARCH\r\n");
    const ex = await r.cmd("ex", "EXPUNGE");
    expect(ex).toContain("* 1 EXPUNGE");
    expect(ex).toContain("ex OK");

    await r.cmd("s2", "SELECT INBOX");
    const f = await r.cmd("f", "UID FETCH 1 (UID FLAGS BODY.PEEK[HEADER.FIELDS (SUBJECT)])");
    expect(f).toContain("UID 1 FLAGS ()");
    expect(f).toContain("Subject: inbox one");
    expect(await r.cmd("sr4", "UID SEARCH KEYWORD $Label1")).toContain("* SEARCH\r\n");
    expect(await r.cmd("st2", "STATUS Box (MESSAGES)")).toContain("(MESSAGES 1)");
    // POP3 serves INBOX: both of its messages are there.
    const pop = await Pop3Client.connect(inst.ports.pop3!);
    expect(await pop.line()).toStartWith("+OK");
    expect(await pop.login(box.address, box.password)).toStartWith("+OK");
    expect(await pop.cmd("STAT")).toMatch(/^\+OK 2 /);
    const top = await pop.multi("TOP 1 0");
    expect(top.body.toString()).toContain("Subject: inbox one");
    await pop.cmd("QUIT");
    pop.close();
    r.close();
  });

  test("a session on INBOX is not told of Box's flag change or expunge of the same UID (IDLE, then NOOP)", async () => {
    const { box, r } = await twoMailboxes();
    const watcher = await session(box);
    await watcher.cmd("s", "SELECT INBOX");
    watcher.write("i IDLE\r\n");
    await watcher.until("+");
    await r.cmd("s1", "SELECT Box");
    await r.cmd("st", "UID STORE 1 +FLAGS.SILENT (\\Deleted)");
    expect(await r.cmd("ex", "EXPUNGE")).toContain("* 1 EXPUNGE");
    // Then a real change of INBOX: the idling session hears of it, and of nothing before it.
    await sendRawMail(inst, box.address, mail("inbox three"));
    const heard = await watcher.until("* 3 EXISTS");
    expect(heard).not.toContain("EXPUNGE");
    // Box's STORE of \Deleted on its UID 1 is not INBOX's UID 1 either.
    expect(heard).not.toContain("FETCH");
    watcher.write("DONE\r\n");
    await watcher.until("i OK");
    const f = await watcher.cmd("f", "UID FETCH 1:* (UID)");
    expect(f).toContain("UID 1)");
    expect(f).toContain("UID 3)");
    // And a flag change in INBOX is announced to INBOX's session only with INBOX's message.
    await r.cmd("s2", "SELECT INBOX");
    await r.cmd("st2", "UID STORE 2 +FLAGS.SILENT (\\Seen)");
    expect(await watcher.cmd("n", "NOOP")).toContain("* 2 FETCH (UID 2 FLAGS (\\Seen))");
    watcher.close();
    r.close();
  });

  test("imaptest's move: MOVE into the selected mailbox itself gets the UIDNEXT it announced", async () => {
    const box = await newBox(inst);
    const r = await session(box);
    await r.cmd("c", "CREATE M");
    for (const i of [1, 2, 3]) await append(r, `a${i}`, "M", mail(`m${i}`));
    await r.cmd("c2", "CREATE M2");
    const dest1 = uidNextOf(await r.cmd("s0", "SELECT M2"));
    const sel = await r.cmd("s1", "SELECT M");
    const validity = /UIDVALIDITY (\d+)/.exec(sel)![1];
    const uidnext1 = uidNextOf(sel);
    const mv1 = await r.cmd("m1", "MOVE 1 M2");
    expect(mv1).toMatch(new RegExp(`COPYUID \\d+ 1 ${dest1}\\]`));
    expect(mv1).toContain("* 1 EXPUNGE");
    const dest2 = uidNextOf(await r.cmd("s2", "SELECT M2"));
    expect(dest2).toBe(dest1 + 1);
    expect(uidNextOf(await r.cmd("s3", "SELECT M"))).toBe(uidnext1);
    expect(await r.cmd("m2", "UID MOVE 2 M2")).toMatch(new RegExp(`COPYUID \\d+ 2 ${dest2}\\]`));
    const self = await r.cmd("m3", "MOVE 1 M");
    expect(self).toContain(`* OK [COPYUID ${validity} 3 ${uidnext1}]`);
    expect(self).toContain("* 1 EXPUNGE");
    expect(self).toContain("* 1 EXISTS");
    expect(self).toContain("m3 OK");
    r.close();
  });

  test("a mailbox deleted and created again gets a new UIDVALIDITY even within the same second", async () => {
    const box = await newBox(inst);
    const r = await session(box);
    await r.cmd("c", "CREATE X");
    await append(r, "a", "X", mail("x"));
    const before = await r.cmd("st", "STATUS X (UIDVALIDITY UIDNEXT)");
    await r.cmd("d", "DELETE X");
    await r.cmd("c2", "CREATE X");
    await append(r, "a2", "X", mail("x"));
    const after = await r.cmd("st2", "STATUS X (UIDVALIDITY UIDNEXT)");
    const v = (s: string) => /UIDVALIDITY (\d+)/.exec(s)![1];
    expect(uidNextOf(after)).toBe(uidNextOf(before));
    expect(v(after)).not.toBe(v(before));
    r.close();
  });
});

sqliteOnlyDescribe(
  "rewrites an inboxd.db back to the version before 0029; PostgreSQL's 0029 is held by test/storage/schema-parity.test.ts",
)("migration 0029 on a database of the previous version", () => {
  test("drops UNIQUE (inbox_id, uid), keeps every row, rowid, attachment and index entry", async () => {
    const own = await startInboxd();
    let again: Instance | null = null;
    try {
      const box = await newBox(own);
      const withAttachment = [
        "From: a@example.com",
        "To: b@example.com",
        "Subject: migrated zebra",
        "MIME-Version: 1.0",
        'Content-Type: multipart/mixed; boundary="b"',
        "",
        "--b",
        "Content-Type: text/plain",
        "",
        "the quokka body",
        "--b",
        'Content-Type: application/octet-stream; name="x.bin"',
        'Content-Disposition: attachment; filename="x.bin"',
        "",
        "AAAA",
        "--b--",
        "",
      ].join("\r\n");
      await sendRawMail(own, box.address, withAttachment);
      await sendRawMail(own, box.address, mail("second"));
      const r = await RawImap.open(own.ports.imap!);
      await r.login(box);
      await r.cmd("c", "CREATE Old");
      await r.cmd("s", "SELECT INBOX");
      await r.cmd("cp", "UID COPY 1 Old");
      r.close();
      await own.stop();
      // Back to the previous version's schema: the table constraint, no per-mailbox indexes, 0029 not applied.
      const before = withDatabaseFile(own.dataDir, (db) => {
        undoUidsPerMailbox(db, () => {
          // As the previous version numbered it: the copy took UID 3 from the inbox's one counter.
          db.exec("UPDATE messages SET uid = 3 WHERE mailbox_id IS NOT NULL");
          db.exec("UPDATE inboxes SET uid_next = 4");
          // and a SELECT of Old raised its \Recent mark to that counter (here: far above).
          db.exec("INSERT INTO imap_recent (inbox_id, mailbox, last_uid) SELECT inbox_id, id, 100 FROM imap_mailboxes WHERE name = 'Old'");
        });
        return {
          rows: db.query("SELECT rowid AS r, id, uid, mailbox_id FROM messages ORDER BY rowid").all(),
          attachments: (db.query("SELECT COUNT(*) AS n FROM attachments").get() as { n: number }).n,
          constraint: (db.query("SELECT sql FROM sqlite_master WHERE name = 'messages'").get() as { sql: string }).sql.includes(
            "UNIQUE (inbox_id, uid)",
          ),
        };
      });
      expect(before.constraint).toBe(true);
      expect(before.rows.length).toBe(3);
      expect(before.attachments).toBe(2);

      again = await own.restart();
      const after = withDatabaseFile(
        own.dataDir,
        (db) => ({
          rows: db.query("SELECT rowid AS r, id, uid, mailbox_id FROM messages ORDER BY rowid").all(),
          attachments: (db.query("SELECT COUNT(*) AS n FROM attachments").get() as { n: number }).n,
          sql: (db.query("SELECT sql FROM sqlite_master WHERE name = 'messages'").get() as { sql: string }).sql,
          names: (db.query("SELECT name FROM sqlite_master WHERE tbl_name = 'messages' ORDER BY name").all() as { name: string }[]).map(
            (n) => n.name,
          ),
          fk: db.query("PRAGMA foreign_key_check").all(),
        }),
        { readonly: true },
      );
      expect(after.rows).toEqual(before.rows);
      expect(after.attachments).toBe(2);
      expect(after.sql).not.toContain("UNIQUE");
      expect(after.fk).toEqual([]);
      for (const n of [
        "messages_uid_inbox",
        "messages_uid_mailbox",
        "messages_mailbox",
        "messages_modseq",
        "messages_ai",
        "messages_ad",
        "search_queue_ad",
        "messages_modseq_net",
      ]) {
        expect(after.names).toContain(n);
      }
      // The full-text index still finds the migrated message and its copy in Old (it keys on rowid).
      const found = await json(again.api(`/v1/inboxes/${box.id}/messages?q=quokka`));
      expect(found.status).toBe(200);
      expect(found.body.data.map((m: any) => m.subject)).toEqual(["migrated zebra", "migrated zebra"]);
      // And the mailboxes count their own UIDs now, each above what it holds: Old from 4, INBOX from 4.
      const r2 = await RawImap.open(again.ports.imap!);
      await r2.login(box);
      expect(await r2.cmd("st", "STATUS Old (MESSAGES UIDNEXT)")).toContain("(MESSAGES 1 UIDNEXT 4)");
      expect(await append(r2, "a", "INBOX", mail("after"))).toMatch(/a OK \[APPENDUID \d+ 4\]/);
      expect(await append(r2, "a2", "Old", mail("after"))).toMatch(/a2 OK \[APPENDUID \d+ 4\]/);
      // Old's \Recent mark came down to its own counter: the new message is recent.
      expect(await r2.cmd("s", "SELECT Old")).toContain("* 1 RECENT");
      expect(await r2.cmd("f", "UID FETCH 1:* (UID BODY.PEEK[HEADER.FIELDS (SUBJECT)])")).toContain("Subject: migrated zebra");
      r2.close();
    } finally {
      if (again) await again.stop();
      else await own.stop().catch(() => {});
      own.cleanup();
    }
  });
});
