// The PostgreSQL engine, round 1 of issue 20: the connection, the schema and the repositories
// ported so far. It is deliberately not a Storage yet (src/storage/index.ts): a half engine must
// not be selectable by the server, so nothing in src/ outside this folder opens it; the
// conformance tests do (test/storage/). docs/scaling.md lists what remains.
import type { AutomationRepositories } from "../automation";
import type { DomainsRepositories } from "../domains";
import type { EventsRepositories } from "../events";
import type { ImapFolderRepositories } from "../imap-folders";
import type { MailRepositories } from "../mail";
import type { TenancyRepositories } from "../tenancy";
import { PgConnection, type PgClient, type PgConnectionOptions } from "./connection";
import { postgresAutomationRepositories } from "./automation";
import { postgresDomainsRepositories } from "./domains";
import { postgresEventsRepositories } from "./events";
import { postgresImapFolderRepositories } from "./imap-folders";
import { postgresInboxRepositories } from "./inboxes";
import { postgresTenancyRepositories } from "./tenancy";

/** The repositories the PostgreSQL engine implements so far. */
export interface PostgresPortedRepositories
  extends TenancyRepositories,
    DomainsRepositories,
    EventsRepositories,
    AutomationRepositories,
    ImapFolderRepositories,
    Pick<MailRepositories, "inboxes" | "inboxWatches" | "inboxChaos"> {}

export interface PostgresTransaction extends PostgresPortedRepositories {
  /** As Transaction.savepoint: if fn throws, only its writes are undone and the transaction goes on. */
  savepoint<T>(fn: (tx: PostgresTransaction) => Promise<T>): Promise<T>;
}

export interface PostgresRepositories extends PostgresPortedRepositories {
  /** As Storage.transaction: resolves with fn's result once the COMMIT is durable. */
  transaction<T>(fn: (tx: PostgresTransaction) => Promise<T>): Promise<T>;
  /** As Storage.check. */
  check(write: boolean): Promise<void>;
  close(): Promise<void>;
}

function repositories(c: PgClient): PostgresPortedRepositories {
  return {
    ...postgresTenancyRepositories(c),
    ...postgresDomainsRepositories(c),
    ...postgresEventsRepositories(c),
    ...postgresAutomationRepositories(c),
    ...postgresInboxRepositories(c),
    ...postgresImapFolderRepositories(c),
  };
}

/** Connects to `url` (postgres://…), migrates, and hands out the ported repositories. */
export async function openPostgresRepositories(url: string, options: PgConnectionOptions = {}): Promise<PostgresRepositories> {
  const c = await PgConnection.open(url, options);
  return {
    ...repositories(c),
    transaction: (fn) =>
      c.transaction((pg) => {
        const bind = (client: typeof pg): PostgresTransaction => ({
          ...repositories(client),
          savepoint: (inner) => client.savepoint((sp) => inner(bind(sp))),
        });
        return fn(bind(pg));
      }),
    check: async (write) => {
      if (write) await c.transaction(async (tx) => tx.run("SELECT 1"));
      else await c.run("SELECT 1");
    },
    close: () => c.close(),
  };
}

export { PgConnection } from "./connection";
