// PostgreSQL implementation of the event log (src/storage/events.ts, EventLogRepository); the
// webhook, delivery and alert repositories follow in the next round (docs/scaling.md).
//
// The log's contract is that seq is commit order within a project: a stream that has read up to
// seq N never gets an event below N later. SQLite has it for free (one writer). Here an identity
// column hands out numbers at INSERT, and transactions commit in any order, so a later number
// could become visible first and the earlier one be skipped for ever. append therefore takes a
// per-project advisory lock held until its transaction ends: appends to one project commit in seq
// order (appends to different projects do not wait for each other).
import type { EventLogRepository, EventRecord, EventsRepositories, StoredEvent } from "../events";
import type { PgClient } from "./connection";
import { num, type Row } from "./rows";

/** First key of the two-key advisory locks of the event log (the second is the project's hash). */
const EVENT_LOG_LOCK = 0x65766e74; // "evnt"

const stored = (r: Row): StoredEvent => ({ seq: num(r.seq), id: r.id, type: r.type, data: r.data, occurred_at: r.occurred_at });

class PgEventLog implements EventLogRepository {
  constructor(private readonly c: PgClient) {}

  async append(e: EventRecord): Promise<number> {
    // One statement, so the lock is taken before the identity is drawn even in autocommit.
    const r = await this.c.row<{ seq: string }>(
      `WITH lock AS (SELECT pg_advisory_xact_lock($9, hashtext($2)))
       INSERT INTO events (id, project_id, type, inbox_id, user_id, data, occurred_at, message_id)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8 FROM lock RETURNING seq`,
      e.id,
      e.projectId,
      e.type,
      e.inboxId,
      e.userId,
      e.data,
      e.occurredAt,
      e.messageId ?? null,
      EVENT_LOG_LOCK,
    );
    return num(r!.seq);
  }

  async lastSeq(projectId: string): Promise<number> {
    const r = await this.c.row<{ s: string | null }>("SELECT MAX(seq) AS s FROM events WHERE project_id = $1", projectId);
    return num(r?.s ?? 0);
  }

  async after(projectId: string, seq: number, userId: string | null, limit: number): Promise<StoredEvent[]> {
    const rows = await this.c.rows<Row>(
      `SELECT seq, id, type, data, occurred_at FROM events
         WHERE project_id = $1 AND seq > $2 AND (user_id IS NULL OR user_id = $3) ORDER BY seq LIMIT $4`,
      projectId,
      seq,
      userId ?? "",
      limit,
    );
    return rows.map(stored);
  }

  async byId(id: string): Promise<StoredEvent | null> {
    const r = await this.c.row<Row>("SELECT seq, id, type, data, occurred_at FROM events WHERE id = $1", id);
    return r ? stored(r) : null;
  }

  async prune(before: string, limit: number): Promise<number> {
    return this.c.run("DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE occurred_at < $1 LIMIT $2)", before, limit);
  }
}

export function postgresEventLogRepository(c: PgClient): Pick<EventsRepositories, "eventLog"> {
  return { eventLog: new PgEventLog(c) };
}
