// The PostgreSQL engine (issue 20, docs/scaling.md): one database shared by every node, blobs in
// it too (blobs.ts). openPostgresStorage hands out the whole Storage (src/storage/index.ts): the
// server opens it when INBOXD_DATABASE_URL is set (../open.ts), the conformance tests directly
// (test/storage/).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Repositories, Storage, Transaction } from "..";
import type { EventRecord, NewDelivery } from "../events";
import { postgresAutomationRepositories } from "./automation";
import { releasePgBlob, sweepPgOrphanBlobs } from "./blob-release";
import { PgBlobStore, putPgBlob } from "./blobs";
import { DEFAULT_POOL, PgConnection, type PgClient, type PgConnectionOptions, type PgTransaction } from "./connection";
import { postgresDomainsRepositories } from "./domains";
import { appendPgEvents, enqueuePgDeliveries, PgWebhookDeliveries, postgresEventsRepositories } from "./events";
import { postgresImapFolderRepositories } from "./imap-folders";
import { postgresMailRepositories } from "./mail";
import { maxPgSnapshots, PgMailboxSnapshots } from "./mailbox-snapshot";
import { deletePgMessageRows } from "./message-rows";
import { num } from "./rows";
import { claimPgSecretVerifier, postgresSignals } from "./signals";
import { postgresTenancyRepositories } from "./tenancy";

export interface PostgresStorageOptions extends PgConnectionOptions {
  /** Where this node spools large incoming messages (default: a new directory under the OS temp dir, removed at close). */
  spoolDir?: string;
}

/**
 * Ingest group commits open at once per node (Storage.ingestGroups): each statement is a round
 * trip, so one group at a time leaves the node waiting on the network. Four of the pool's ten
 * connections; groups into one inbox still take turns on its row (UIDs in commit order).
 */
const INGEST_GROUPS = 4;

function repositories(c: PgClient): Repositories {
  return {
    ...postgresTenancyRepositories(c),
    ...postgresMailRepositories(c),
    ...postgresImapFolderRepositories(c),
    ...postgresDomainsRepositories(c),
    ...postgresEventsRepositories(c),
    ...postgresAutomationRepositories(c),
  };
}

/** Connects to `url` (postgres://…), migrates (once, whatever the number of nodes starting), and opens the Storage. */
export async function openPostgresStorage(url: string, options: PostgresStorageOptions = {}): Promise<Storage> {
  const c = await PgConnection.open(url, options);
  const snapshots = new PgMailboxSnapshots(c, maxPgSnapshots(options.max ?? DEFAULT_POOL));
  // Without a data directory (tools, tests) the spool is a temporary directory of our own, removed at close.
  const ownSpool = options.spoolDir === undefined ? mkdtempSync(join(tmpdir(), "inboxd-pg-spool-")) : null;
  const blobs = new PgBlobStore(c, options.spoolDir ?? ownSpool!);
  /**
   * `events` and `deliveries`: what appendEvent and the webhook fan-out collected in this scope, kept by
   * the enclosing scope only if this one succeeds; both are written right before COMMIT.
   */
  const bind = (tx: PgTransaction, committed: Array<() => void>, events: EventRecord[], deliveries: NewDelivery[]): Transaction => ({
    ...repositories(tx),
    webhookDeliveries: new PgWebhookDeliveries(tx, deliveries),
    savepoint: async (fn) => {
      const mine: EventRecord[] = [];
      const mineOut: NewDelivery[] = [];
      const out = await tx.savepoint((sp) => fn(bind(sp, committed, mine, mineOut)));
      events.push(...mine);
      deliveries.push(...mineOut);
      return out;
    },
    putInlineBlob: (key, bytes) => putPgBlob(tx, key, bytes),
    afterCommit: (fn) => void committed.push(fn),
    appendEvent: async (e) => void events.push(e),
  });
  return {
    ...repositories(c),
    blobs,
    ingestGroups: INGEST_GROUPS,
    transaction: async (fn) => {
      const committed: Array<() => void> = [];
      try {
        return await c.transaction(async (tx) => {
          // A try PostgreSQL rolled back (a deadlock's victim) is run again: its wake-ups go with it.
          committed.length = 0;
          const events: EventRecord[] = [];
          const deliveries: NewDelivery[] = [];
          const out = await fn(bind(tx, committed, events, deliveries));
          // Last, right before COMMIT: the event log's per-project locks, then the webhooks' rows (in id
          // order, enqueuePgDeliveries), are held for the commit only.
          await appendPgEvents(tx, events);
          await enqueuePgDeliveries(tx, deliveries);
          return out;
        });
      } finally {
        // Wake-ups only once COMMIT returned: a reader woken earlier would not see the rows yet.
        for (const wake of committed) wake();
      }
    },
    mailboxSnapshot: (inboxId, folderId) => snapshots.take(inboxId, folderId),
    deleteMessages: (projectId, ids) => c.transaction((tx) => deletePgMessageRows(tx, projectId, ids)),
    releaseBlob: (key) => releasePgBlob(c, key),
    sweepBlobs: () => sweepPgOrphanBlobs(c),
    // Indexed in the transaction that stores the message (search-vector.ts): nothing to wait for.
    searchable: async () => {},
    check: async (write) => {
      if (write) await c.transaction(async (tx) => tx.run("SELECT 1"));
      else await c.run("SELECT 1");
    },
    stats: async () => {
      const r = await c.row<{ messages: string; bytes: string; pending: string }>(
        `SELECT (SELECT COUNT(*) FROM messages) AS messages, pg_database_size(current_database()) AS bytes,
                (SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending') AS pending`,
      );
      return { messages: num(r!.messages), databaseBytes: num(r!.bytes), webhookPending: num(r!.pending) };
    },
    signals: postgresSignals(c),
    claimSecretVerifier: (candidate) => claimPgSecretVerifier(c, candidate),
    close: async () => {
      await snapshots.closeAll();
      await c.close();
      if (ownSpool) rmSync(ownSpool, { recursive: true, force: true });
    },
  };
}

export { PgConnection } from "./connection";
