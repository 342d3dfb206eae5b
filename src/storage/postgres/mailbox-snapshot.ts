// IMAP views read at one instant (issue 19), the PostgreSQL half of ../sqlite/mailbox-snapshot.ts:
// a REPEATABLE READ, READ ONLY transaction on a pooled connection reserved for the view's fill, so
// the counts SELECT announces and every page of the view describe the same committed state,
// whatever any node commits meanwhile. A filled prefix of the view is then final, and a command
// naming low sequence numbers need not wait for the rest (without a snapshot it waits for the
// whole view: at a million messages, seconds after SELECT).
//
// The snapshot is taken by the transaction's first statement, the counts. It holds back VACUUM's
// horizon only while the fill runs (well under a second at a million messages).
import type { MailboxPage, MailboxSnapshot } from "../mail";
import type { PgConnection, PgReserved } from "./connection";
import { postgresImapFolderRepositories } from "./imap-folders";
import { PgMessages } from "./messages";

/**
 * Snapshots open at once, each holding one of the pool's connections: beyond, a SELECT gets none
 * and its view is read as without a snapshot (filled whole before use), so a burst of SELECTs
 * never starves the pool the other statements use.
 */
export const maxPgSnapshots = (poolSize: number) => Math.max(1, Math.floor(poolSize / 3));

export class PgMailboxSnapshots {
  /** Snapshots taken or being taken: each ends with the function kept here. */
  private readonly open = new Set<() => Promise<void>>();
  /** Endings under way (their ROLLBACK), for closeAll. */
  private readonly ending = new Set<Promise<void>>();

  constructor(
    private readonly c: PgConnection,
    private readonly max: number,
  ) {}

  async take(inboxId: string, folderId: string | null): Promise<MailboxSnapshot | null> {
    if (this.open.size >= this.max) return null;
    // Counted before the await: SELECTs racing here cannot all pass the check.
    let conn: PgReserved | null = null;
    let ended: Promise<void> | null = null;
    const end = (): Promise<void> => {
      if (!ended) {
        // Room for the next snapshot at once: its reserve() waits for this connection if the pool has no other.
        this.open.delete(end);
        const c = conn;
        ended = c
          ? c
              .run("ROLLBACK")
              .then(
                () => {},
                () => {}, // a broken connection: the pool replaces it
              )
              .finally(() => c.release())
          : Promise.resolve();
        const e = ended;
        this.ending.add(e);
        void e.finally(() => this.ending.delete(e));
      }
      return ended;
    };
    this.open.add(end);
    try {
      conn = await this.c.reserve();
      if (ended) {
        // closeAll ran while the connection was being reserved.
        conn.release();
        return null;
      }
      await conn.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const counts = await postgresImapFolderRepositories(conn).imapFolders.counts(inboxId, folderId);
      const messages = new PgMessages(conn);
      return {
        counts,
        page: (afterUid: number, limit: number): Promise<MailboxPage> => {
          if (ended) return Promise.reject(new Error("mailbox snapshot: read after close"));
          return messages.mailboxPage(inboxId, afterUid, limit, folderId);
        },
        close: () => void end(),
      };
    } catch (e) {
      await end();
      throw e;
    }
  }

  /** Ends every open snapshot (the storage closes): the pool can then close. */
  async closeAll(): Promise<void> {
    for (const end of [...this.open]) void end();
    await Promise.all([...this.ending]);
  }
}
