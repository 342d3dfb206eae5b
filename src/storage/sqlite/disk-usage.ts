// Where the bytes of a data directory's databases go, for bench/storage-size.ts: SQLite's dbstat
// per table (its indexes counted with it) and the raw bytes the messages stand for. Read-only.
import { Database } from "bun:sqlite";

export interface TableUsage {
  table: string;
  bytes: number;
  unused: number;
}

/** Bytes in pages per table of the database file, largest first. */
export function tableSizes(dbPath: string): TableUsage[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db
      .query(
        `SELECT COALESCE(s.tbl_name, d.name) AS "table", SUM(d.pgsize) AS bytes, SUM(d.unused) AS unused
           FROM dbstat d LEFT JOIN sqlite_schema s ON s.name = d.name GROUP BY 1 ORDER BY 2 DESC`,
      )
      .all() as TableUsage[];
  } finally {
    db.close();
  }
}

/** How many messages the database holds and the sum of their raw sizes. */
export function storedMessages(dbPath: string): { count: number; rawBytes: number } {
  const db = new Database(dbPath, { readonly: true });
  try {
    const r = db.query("SELECT COUNT(*) AS n, COALESCE(SUM(size_bytes), 0) AS raw FROM messages").get() as { n: number; raw: number };
    return { count: r.n, rawBytes: r.raw };
  } finally {
    db.close();
  }
}
