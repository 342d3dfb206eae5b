// One schema, two engines: after migrating, PostgreSQL (src/storage/postgres/migrations) holds
// every table, column, index and trigger SQLite (src/storage/sqlite/migrations) holds, and nothing
// else but the differences declared below, each with its reason. A migration written for one
// engine only fails here. Also: several nodes migrating one database at once apply each migration
// once (the advisory lock).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { PgConnection } from "../../src/storage/postgres";
import { postgresMigrations } from "../../src/storage/postgres/migrations";
import { openSqliteStorage } from "../../src/storage/sqlite";
import { migrations as sqliteMigrations } from "../../src/storage/sqlite/migrations";
import {
  type Catalogue,
  type PostgresServer,
  postgresBinDir,
  postgresCatalogue,
  postgresRequired,
  startPostgres,
} from "../support/postgres";
import { needs } from "../support/components";
import { withDatabaseFile } from "../support/sqlite-file";

/** SQLite mechanisms PostgreSQL does otherwise (docs/scaling.md). */
const SQLITE_ONLY = {
  // FTS5 lives in a second file fed by this queue after the commit; PostgreSQL indexes
  // messages.search_vector (GIN) in the same transaction.
  tables: ["search_queue", "sqlite_sequence"],
  // search_queue_ad feeds that queue; messages_ad_events is folded into messages_ad's function.
  triggers: ["search_queue_ad", "messages_ad_events"],
};
const POSTGRES_ONLY = {
  // blobs_inline.touched_at (0034): what makes freeing a blob safe across nodes; SQLite's one
  // process pins the blobs of its deliveries in flight instead.
  columns: { messages: ["search_vector"], blobs_inline: ["touched_at"] } as Record<string, string[]>,
  indexes: ["messages_search"],
  // Large blobs' bytes in ~1 MiB rows (migration 0032); SQLite keeps large blobs as files.
  tables: ["blob_chunks"],
};

function sqliteCatalogue(dataDir: string): Catalogue {
  return withDatabaseFile(
    dataDir,
    (db) => {
      const named = (type: string) =>
        (db.query("SELECT name FROM sqlite_master WHERE type = ? AND sql IS NOT NULL ORDER BY name").all(type) as { name: string }[]).map(
          (r) => r.name,
        );
      const tables: Record<string, string[]> = {};
      for (const t of named("table")) {
        tables[t] = (db.query(`PRAGMA table_info("${t}")`).all() as { name: string }[]).map((c) => c.name).sort();
      }
      return { tables, indexes: named("index"), triggers: named("trigger") };
    },
    { readonly: true },
  );
}

// Not a database test: from the baseline on, both indexes list the same migrations (one
// two-dialect file each), so a version applied on one engine exists on the other.
test("after the baseline, both engines list the same migrations, version for version", () => {
  const after = (ms: { version: number; name: string }[]) => ms.filter((m) => m.version > 25).map((m) => [m.version, m.name]);
  expect(after(postgresMigrations)).toEqual(after(sqliteMigrations));
  expect(postgresMigrations[0]!.version).toBe(25);
  for (const m of postgresMigrations) expect(m.sql.trim().length).toBeGreaterThan(0);
});

// The SQLite runner records versions only: a released migration whose text changed would never run
// where the old text ran. Turning 0026-0028 into two-dialect files kept their SQLite text, byte for
// byte; these digests (sha256 of the released text) keep it so.
test("the SQLite text of released two-dialect migrations is the released text", () => {
  const released: Record<number, string> = {
    26: "b0637b03db243d79fac1eda13e5a01da66a3e02a38f0fd6ad376162e0806d475",
    27: "75755d83d2f33f0564f5d6ef8585136fbd5444e66d79f12ec2a178ddc0365ddc",
    28: "ed38eae2802e68eacb91aaa631165061ce47898b43b105cfe6938cae84dc76ca",
  };
  for (const [version, digest] of Object.entries(released)) {
    const m = sqliteMigrations.find((x) => x.version === Number(version))!;
    // A table rebuild (0029) is a function; 0026-0028 are text.
    const text = typeof m.sql === "string" ? m.sql : "";
    expect({ version, digest: new Bun.CryptoHasher("sha256").update(text).digest("hex") }).toEqual({ version, digest });
  }
});

const bin = postgresBinDir();
needs("postgres", bin !== null, "apt-get install postgresql");

describe.skipIf(!bin && !postgresRequired)("schema parity, SQLite and PostgreSQL", () => {
  let pg: PostgresServer;
  let dataDir: string;
  let lite: Catalogue;
  let post: Catalogue;

  beforeAll(async () => {
    pg = await startPostgres();
    const c = await PgConnection.open(pg.url);
    await c.close();
    post = await postgresCatalogue(pg.url);
    dataDir = mkdtempSync(join(tmpdir(), "inboxd-parity-"));
    await openSqliteStorage(dataDir).close();
    lite = sqliteCatalogue(dataDir);
  });

  afterAll(async () => {
    await pg?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test("the same tables", () => {
    const expected = Object.keys(lite.tables)
      .filter((t) => !SQLITE_ONLY.tables.includes(t))
      .sort();
    expect(
      Object.keys(post.tables)
        .filter((t) => !POSTGRES_ONLY.tables.includes(t))
        .sort(),
    ).toEqual(expected);
    for (const t of POSTGRES_ONLY.tables) expect(Object.keys(post.tables)).toContain(t);
    expect(expected.length).toBeGreaterThan(30);
  });

  test("every table has the same columns", () => {
    for (const [t, cols] of Object.entries(post.tables)) {
      if (POSTGRES_ONLY.tables.includes(t)) continue;
      const extra = POSTGRES_ONLY.columns[t] ?? [];
      expect({ t, cols: cols.filter((c) => !extra.includes(c)) }).toEqual({ t, cols: lite.tables[t] });
    }
  });

  test("the same named indexes", () => {
    expect(post.indexes.filter((i) => !POSTGRES_ONLY.indexes.includes(i))).toEqual(lite.indexes);
  });

  test("the same triggers, but for the SQLite-only ones", () => {
    expect(post.triggers).toEqual(lite.triggers.filter((t) => !SQLITE_ONLY.triggers.includes(t)));
  });

  test("several nodes starting at once on an empty database apply each migration once", async () => {
    const url = await pg.newDatabase();
    const nodes = await Promise.all([1, 2, 3, 4].map(() => PgConnection.open(url, { max: 2 })));
    const again = await Promise.all(nodes.map((n) => n.migrate()));
    expect(again).toEqual([[], [], [], []]);
    await Promise.all(nodes.map((n) => n.close()));
    const sql = new SQL(url, { max: 1 });
    const rows = (await sql.unsafe("SELECT version, COUNT(*)::int AS n FROM schema_migrations GROUP BY version ORDER BY version")) as {
      version: number;
      n: number;
    }[];
    await sql.close();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    expect(rows.at(-1)!.version).toBe(sqliteMigrations.at(-1)!.version);
  });
});
