// The embedded engine: one SQLite database (WAL) plus the file-system blob store, with blobs up to
// INLINE_MAX bytes kept in the database itself (blobs-tiered.ts).
import { join } from "node:path";
import type { Repositories, Storage, Transaction } from "..";
import { FsBlobStore } from "../blobs/fs";
import { TieredBlobStore } from "./blobs-tiered";
import { openDatabase } from "./database";
import { gated, SqliteConnection } from "./connection";
import { sqliteTenancyRepositories } from "./tenancy";
import { sqliteMailRepositories } from "./mail";
import { sqliteImapFolderRepositories } from "./imap-folders";
import { sqliteDomainsRepositories } from "./domains";
import { sqliteEventsRepositories } from "./events";
import { sqliteAutomationRepositories } from "./automation";
import { SearchIndex } from "./search-index";
import { MailboxSnapshots } from "./mailbox-snapshot";

function repositories(c: SqliteConnection): Repositories {
  return {
    ...sqliteTenancyRepositories(c),
    ...sqliteMailRepositories(c),
    ...sqliteImapFolderRepositories(c),
    ...sqliteDomainsRepositories(c),
    ...sqliteEventsRepositories(c),
    ...sqliteAutomationRepositories(c),
  };
}

export function openSqliteStorage(dataDir: string): Storage {
  const sqlite = openDatabase(join(dataDir, "inboxd.db"));
  const c = new SqliteConnection(sqlite);
  const search = new SearchIndex(c, join(dataDir, "inboxd-search.db"));
  c.search = search;
  const direct = repositories(c);
  const snapshots = new MailboxSnapshots(join(dataDir, "inboxd.db"));
  const blobs = new TieredBlobStore(new FsBlobStore(join(dataDir, "blobs")), c);
  const tx: Transaction = {
    ...direct,
    savepoint: (fn) => c.savepoint(() => fn(tx)),
    putInlineBlob: async (key, bytes) => blobs.putInline(key, bytes),
    // A transaction's body awaits nothing but its own statements: by the next turn it has committed.
    afterCommit: (fn) => void setImmediate(fn),
    // One writer: no lock to hold for less time, the event is written where it is made.
    appendEvent: async (e) => void (await direct.eventLog.append(e)),
  };
  const outside = Object.fromEntries(Object.entries(direct).map(([name, repo]) => [name, gated(repo as object, c)]));
  return {
    ...(outside as unknown as Repositories),
    blobs,
    transaction: (fn, opts) => c.transaction(() => fn(tx), opts?.flushInline === true),
    deleteMessages: async (projectId, ids) => {
      const off = c.wal.deleteOffThread(projectId, ids);
      if (!off) return c.transaction(() => tx.messages.deleteInProject(projectId, ids));
      const r = await off;
      // The triggers queued the index deletions on the other connection: tell the index.
      c.search.enqueued(r.seq);
      for (const hook of c.afterCommit) hook();
      return { removed: r.removed, blobKeys: r.blobKeys };
    },
    releaseBlob: async (key) => {
      if (await (outside as unknown as Repositories).blobRefs.isReferenced(key)) return false;
      await blobs.delete(key);
      return true;
    },
    sweepBlobs: async () => 0,
    searchable: () => search.searchable(),
    check: async (write) => {
      if (write) await c.transaction(async () => undefined);
      else await c.whenIdle(() => c.get("SELECT 1"));
    },
    stats: () =>
      c.whenIdle(() => ({
        messages: c.get<{ n: number }>("SELECT COUNT(*) AS n FROM messages")!.n,
        databaseBytes:
          c.get<{ page_count: number }>("PRAGMA page_count")!.page_count * c.get<{ page_size: number }>("PRAGMA page_size")!.page_size,
        webhookPending: c.get<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'")!.n,
      })),
    // One process per data directory (storage/lock.ts): no signals to other nodes.
    claimSecretVerifier: (candidate) =>
      c.transaction(async () => {
        c.run(
          "INSERT OR IGNORE INTO instance_meta (name, value, created_at) VALUES ('secret_verifier', ?, ?)",
          candidate,
          new Date().toISOString(),
        );
        return c.get<{ value: string }>("SELECT value FROM instance_meta WHERE name = 'secret_verifier'")!.value;
      }),
    mailboxSnapshot: (inboxId, folderId) => snapshots.open(inboxId, folderId),
    close: async () => {
      snapshots.close();
      await search.close();
      await c.wal.close();
      sqlite.close();
    },
  };
}
