// The search index lives off the ingest commit (storage/sqlite/search-index.ts): a worker writes
// inboxd-search.db after the message's commit. What a user must not notice, through real SMTP and
// HTTP: a search right after the 250 finds the message; a deleted message stops matching; a lost
// or deleted search database is rebuilt from the messages; kill -9 with entries still queued
// leaves them indexed after the restart.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { json, startInboxd, type Instance } from "../support/harness";
import { createInbox, transport } from "../support/mail";
import { withDatabaseFile } from "../support/sqlite-file";
import { sqliteOnly } from "../support/test-database";

let inst: Instance;
let inbox: { id: string; address: string };
beforeAll(async () => {
  inst = await startInboxd();
  inbox = await createInbox(inst, { name: "search-index" });
});
afterAll(async () => {
  await inst.stop();
  inst.cleanup();
});

async function send(subject: string, text: string): Promise<string> {
  const t = transport(inst);
  try {
    const info = await t.sendMail({ from: "app@example.com", to: inbox.address, subject, text });
    return /stored ([0-9A-Z]{26})/.exec(info.response)![1]!;
  } finally {
    t.close();
  }
}

async function find(q: string): Promise<string[]> {
  const r = await json(inst.api(`/v1/inboxes/${inbox.id}/messages?${new URLSearchParams({ q })}`));
  expect(r.status).toBe(200);
  return (r.body.data as any[]).map((m) => m.id);
}

describe("search index off the commit", () => {
  test("every message is found by a word of its body right after its 250", async () => {
    for (let i = 0; i < 20; i++) {
      const id = await send(`burst ${i}`, `the word zebra${i} appears once`);
      expect(await find(`zebra${i}`)).toEqual([id]);
    }
  });

  test("a search right after a concurrent burst finds every message of it", async () => {
    const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => send(`herd ${i}`, `one of the bison herd, number ${i}`)));
    expect((await find("bison")).sort()).toEqual([...ids].sort());
  });

  test("the project-wide search and the filtered long-poll see a message sent a moment before", async () => {
    const id = await send("wide", "a walrus sighting");
    const wide = await json(inst.api(`/v1/messages?${new URLSearchParams({ q: "walrus" })}`));
    expect(wide.body.data.map((m: any) => m.id)).toEqual([id]);
    const latest = await json(inst.api(`/v1/inboxes/${inbox.id}/messages/latest?${new URLSearchParams({ q: "walrus", wait: "0" })}`));
    expect(latest.status).toBe(200);
    expect(latest.body.data.id).toBe(id);
  });

  test("a deleted message no longer matches; a new message with the same words does", async () => {
    const old = await send("gone", "the marmot left");
    expect((await inst.api(`/v1/messages/${old}`, { method: "DELETE" })).status).toBe(204);
    expect(await find("marmot")).toEqual([]);
    const fresh = await send("back", "the marmot came back");
    expect(await find("marmot")).toEqual([fresh]);
  });

  sqliteOnly("deletes inboxd-search.db; PostgreSQL's index is a column of messages")(
    "a deleted search database is rebuilt from the messages at start",
    async () => {
      const id = await send("rebuild", "an ocelot in the archive");
      await inst.stop();
      const file = join(inst.dataDir, "inboxd-search.db");
      expect(existsSync(file)).toBe(true);
      for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
      inst = await inst.restart();
      expect(await find("ocelot")).toEqual([id]);
      expect(await find("marmot")).toHaveLength(1);
    },
  );

  test("CJK text is found by any run of its characters: words, subject:, phrases, negation, the filtered long-poll", async () => {
    const ja = await send("日本語の件名テスト", "ご注文ありがとうございます。注文番号は12345です。メールをご確認ください。");
    const ko = await send("환영합니다", "회원가입을 축하드립니다");
    const zh = await send("订单确认", "您的订单已发货，请查收。");
    for (const [q, ids] of [
      ["件名", [ja]],
      ["日本語", [ja]],
      ["subject:件名テスト", [ja]],
      ['"注文番号は12345"', [ja]],
      ["メール", [ja]],
      ["回員", []],
      ["件名 -注文", []],
      ["회원가입", [ko]],
      ["已发货", [zh]],
      ["订单", [zh]],
      ["subject:发货", []],
    ] as const) {
      expect([q, await find(q)]).toEqual([q, [...ids]]);
    }
    const latest = await json(inst.api(`/v1/inboxes/${inbox.id}/messages/latest?${new URLSearchParams({ q: "축하", wait: "0" })}`));
    expect([latest.status, latest.body.data?.id]).toEqual([200, ko]);
    // IMAP's substring keys take the same index (protocols/imap/search-text.ts): checked in test/protocols/imap.
  });

  sqliteOnly("edits inboxd-search.db; PostgreSQL's index is a column of messages")(
    "an index made in an older word format is rebuilt from the messages at start",
    async () => {
      const id = await send("古い索引", "旧形式の索引から再構築する");
      await inst.stop();
      // As an index from before the format was recorded: empty of this message, yet marked up to date.
      withDatabaseFile(
        inst.dataDir,
        (db) => db.exec("INSERT INTO messages_fts (messages_fts) VALUES ('delete-all'); DROP TABLE index_format"),
        {
          file: "inboxd-search.db",
        },
      );
      inst = await inst.restart();
      expect(await find("再構築")).toEqual([id]);
      expect(await find("marmot")).toHaveLength(1);
    },
  );

  test("messages acknowledged just before kill -9 are searchable after the restart", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await send(`crash ${i}`, `a quokka numbered q${i}`));
    await inst.kill();
    inst = await inst.restart();
    expect((await find("quokka")).sort()).toEqual([...ids].sort());
  });
});
