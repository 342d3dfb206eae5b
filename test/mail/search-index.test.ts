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

  test("messages acknowledged just before kill -9 are searchable after the restart", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await send(`crash ${i}`, `a quokka numbered q${i}`));
    await inst.kill();
    inst = await inst.restart();
    expect((await find("quokka")).sort()).toEqual([...ids].sort());
  });
});
