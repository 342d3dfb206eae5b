// A real `inboxd serve` process on PostgreSQL (INBOXD_DATABASE_URL, src/storage/open.ts), driven
// through its listeners as a user would: mail in over SMTP, out over REST, IMAP and POP3; then the
// CLI (`inboxd user add`) writes to the same database while the server runs, and a restart on a new
// data directory finds everything again (the database is the data, the directory is per node).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { json, login, ROOT, startInboxd, type Instance } from "../support/harness";
import { imapflow, newBox, send } from "../support/imap";
import { Pop3Client } from "../support/pop3-client";
import { type PostgresServer, postgresBinDir, postgresMissing, postgresRequired, startPostgres } from "../support/postgres";
import { inboxdCommand } from "../support/command";

// Nodes of one database share the key that seals stored secrets (inbox passwords).
const SECRET_KEY = "ab".repeat(32);
const available = !!postgresBinDir() || postgresRequired;
if (!available) test.skip(postgresMissing, () => {});

describe.skipIf(!available)("inboxd serve on PostgreSQL", () => {
  let pg: PostgresServer;
  let url: string;
  let inst: Instance;

  beforeAll(async () => {
    pg = await startPostgres();
    url = await pg.newDatabase();
    inst = await startInboxd({ INBOXD_DATABASE_URL: url, INBOXD_SECRET_KEY: SECRET_KEY });
  });
  afterAll(async () => {
    await inst?.stop();
    inst?.cleanup();
    await pg?.stop();
  });

  test("SMTP in; REST, IMAP and POP3 out; nothing of the SQLite engine in the data directory", async () => {
    const box = await newBox(inst);
    await send(inst, box.address, { subject: "Hello PostgreSQL", text: "stored in a shared database" });

    const list = await json(inst.api(`/v1/inboxes/${box.id}/messages`));
    expect(list.status).toBe(200);
    expect(list.body.data.map((m: any) => m.subject)).toEqual(["Hello PostgreSQL"]);
    const id = list.body.data[0].id;
    const raw = await inst.api(`/v1/messages/${id}/raw`);
    expect(raw.status).toBe(200);
    expect(await raw.text()).toContain("stored in a shared database");
    const found = await json(inst.api(`/v1/inboxes/${box.id}/messages?q=${encodeURIComponent("shared")}`));
    expect(found.body.data.map((m: any) => m.id)).toEqual([id]);

    const imap = imapflow(inst, box);
    await imap.connect();
    try {
      const lock = await imap.getMailboxLock("INBOX");
      try {
        const msgs = [];
        for await (const m of imap.fetch("1:*", { envelope: true, source: true, uid: true })) msgs.push(m);
        expect(msgs.map((m) => m.envelope?.subject)).toEqual(["Hello PostgreSQL"]);
        expect(msgs[0]!.uid).toBe(1);
        expect(msgs[0]!.source!.toString()).toContain("stored in a shared database");
      } finally {
        lock.release();
      }
    } finally {
      await imap.logout();
    }

    const pop = await Pop3Client.connect(inst.ports.pop3!);
    try {
      expect(await pop.line()).toStartWith("+OK");
      expect(await pop.login(box.address, box.password)).toStartWith("+OK logged in");
      expect(await pop.cmd("STAT")).toMatch(/^\+OK 1 \d+/);
      const retr = await pop.multi("RETR 1");
      expect(retr.status).toStartWith("+OK");
      expect(retr.body.toString()).toContain("Subject: Hello PostgreSQL");
      await pop.cmd("QUIT");
    } finally {
      pop.close();
    }

    expect(existsSync(join(inst.dataDir, "inboxd.db"))).toBe(false);
    expect(existsSync(join(inst.dataDir, "blobs"))).toBe(false);
    const metrics = await (await inst.api("/metrics")).text();
    expect(metrics).toMatch(/inboxd_database_size_bytes \d{4,}/);
  });

  test("`inboxd user add` writes to the server's database while it runs; a restart on another directory finds it all", async () => {
    const p = Bun.spawn(
      [...inboxdCommand(), "user", "add", "--email", "pg@example.com", "--password", "pg-password-1", "--role", "member"],
      { cwd: ROOT, env: { ...process.env, INBOXD_DATA_DIR: inst.dataDir, INBOXD_DATABASE_URL: url }, stdout: "pipe", stderr: "pipe" },
    );
    const out = await new Response(p.stdout).text();
    expect(await p.exited).toBe(0);
    expect(out).toContain("pg@example.com");
    expect(await login(inst, "pg@example.com", "pg-password-1")).toBeString();

    const before = await json(inst.api("/v1/inboxes"));
    await inst.stop();
    const dir = mkdtempSync(join(tmpdir(), "inboxd-pg-node-"));
    inst = await startInboxd({ INBOXD_DATABASE_URL: url, INBOXD_SECRET_KEY: SECRET_KEY }, dir);
    const after = await json(inst.api("/v1/inboxes"));
    expect(after.body.data.map((i: any) => i.id)).toEqual(before.body.data.map((i: any) => i.id));
    expect(await login(inst, "pg@example.com", "pg-password-1")).toBeString();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("INBOXD_DATABASE_URL refused", () => {
  test("another scheme stops start-up naming the setting, without echoing the value", async () => {
    const err = await startInboxd({ INBOXD_DATABASE_URL: "mysql://root:hunter2@db/inboxd" }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect(String(err)).toContain("INBOXD_DATABASE_URL must be a postgres:// URL");
    expect(String(err)).not.toContain("hunter2");
  });

  test("a database that does not answer stops start-up with one line naming the setting", async () => {
    const err = await startInboxd({ INBOXD_DATABASE_URL: "postgres://inboxd:hunter2@127.0.0.1:1/none" }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect(String(err)).toContain("INBOXD_DATABASE_URL: cannot open the database");
    expect(String(err)).not.toContain("hunter2");
    expect(String(err)).not.toMatch(/^\s+at /m);
  });
});
