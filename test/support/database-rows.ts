// The database of a test instance as an outside inspector sees it, whichever engine the suite runs
// on (test-database.ts): SQLite's inboxd.db through sqlite-file.ts, or the instance's PostgreSQL
// database as a second client. Statements are written once with `?` placeholders (numbered for
// PostgreSQL here); int8 results come back as numbers on both. For tests that check data at rest
// or change a row behind the server's back (move time, drop a row).
import { SQL } from "bun";
import { withDatabaseFile } from "./sqlite-file";
import { knownDatabaseEnv } from "./test-database";

type Params = unknown[];

export interface DatabaseRows {
  all<T = Record<string, any>>(sql: string, params?: Params): Promise<T[]>;
  get<T = Record<string, any>>(sql: string, params?: Params): Promise<T | null>;
  run(sql: string, params?: Params): Promise<void>;
}

const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

const plain = (row: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v]));

/** Runs fn against the database of the instance that ran on dataDir, then closes the connection. */
export async function withDatabase<T>(dataDir: string, fn: (db: DatabaseRows) => Promise<T>): Promise<T> {
  const url = knownDatabaseEnv(dataDir).INBOXD_DATABASE_URL;
  if (!url) {
    const rows: DatabaseRows = {
      all: async (sql, params = []) => withDatabaseFile(dataDir, (db) => db.query(sql).all(...(params as any[])) as any[]),
      get: async (sql, params = []) => withDatabaseFile(dataDir, (db) => (db.query(sql).get(...(params as any[])) as any) ?? null),
      run: async (sql, params = []) => void withDatabaseFile(dataDir, (db) => db.run(sql, params as any[])),
    };
    return fn(rows);
  }
  const pg = new SQL(url, { max: 1, bigint: true });
  try {
    const all = async (sql: string, params: Params = []) => ((await pg.unsafe(numbered(sql), params as any[])) as any[]).map(plain);
    return await fn({
      all: all as DatabaseRows["all"],
      get: (async (sql: string, params: Params = []) => (await all(sql, params))[0] ?? null) as DatabaseRows["get"],
      run: async (sql, params = []) => void (await pg.unsafe(numbered(sql), params as any[])),
    });
  } finally {
    await pg.close();
  }
}
