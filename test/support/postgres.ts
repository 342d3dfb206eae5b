// A real PostgreSQL server for a test file, started from Debian's binaries (the `postgresql`
// package: /usr/lib/postgresql/<major>/bin/initdb and postgres). One server per test file (a copy
// of one initdb'd template), one fresh database in it; stop() in afterAll, and a watchdog stops
// it anyway once the test process is gone, even after a SIGKILL (watchdog.ts). fsync stays
// on: the durability the storage promises is the one these tests exercise.
//
// initdb and postgres refuse to run as root, so when the test runs as root both run as the
// `postgres` system user (the package creates it) through setpriv (which execs, so our signals reach postgres itself).
//
// No binaries: postgresBinDir() is null and the caller skips with postgresMissing's message,
// unless the run requires PostgreSQL (components.ts), where the caller's test fails.
import { chownSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { freePort, waitForPort } from "./net";
import { isRequired } from "./components";
import { stopWhenOrphaned } from "./watchdog";

const ROOT = "/usr/lib/postgresql";

/** The newest installed PostgreSQL's bin directory, or null when none is installed. */
export function postgresBinDir(): string | null {
  if (!existsSync(ROOT)) return null;
  const majors = readdirSync(ROOT)
    .filter((d) => existsSync(join(ROOT, d, "bin", "postgres")) && existsSync(join(ROOT, d, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return majors.length ? join(ROOT, majors[0]!, "bin") : null;
}

export const postgresRequired = isRequired("postgres");
export const postgresMissing = `PostgreSQL binaries not found under ${ROOT}/<major>/bin (apt-get install postgresql): the PostgreSQL half is skipped`;

export interface PostgresServer {
  /** postgres://… of the fresh database made for this test file. */
  url: string;
  port: number;
  /** Another fresh database on the same server (its URL): empty, or a copy of `template` (a database of this server). */
  newDatabase(template?: string): Promise<string>;
  /** Stops the server and removes its files (a watchdog does it too if this process ends first: watchdog.ts). */
  stop(): Promise<void>;
}

/** Who runs initdb and postgres: ourselves, or the postgres system user when we are root. */
function asServerUser(): { prefix: string[]; uid: number | null; gid: number | null } {
  if (process.getuid?.() !== 0) return { prefix: [], uid: null, gid: null };
  const id = (flag: string) => Number(Bun.spawnSync(["id", flag, "postgres"]).stdout.toString().trim());
  const uid = id("-u");
  if (!Number.isInteger(uid) || uid === 0) throw new Error("running as root and no `postgres` system user to run PostgreSQL as");
  return { prefix: ["setpriv", `--reuid=${uid}`, `--regid=${id("-g")}`, "--init-groups"], uid, gid: id("-g") };
}

/**
 * A cluster initdb made once per machine and PostgreSQL major (initdb takes seconds, a copy of its
 * ~40 MB a tenth of one): every server copies it. Made beside its final name and renamed into
 * place, so test processes running at once never see half of one.
 */
function clusterTemplate(bin: string, user: ReturnType<typeof asServerUser>): string {
  const major = bin.split("/").at(-2);
  const template = join(tmpdir(), `inboxd-pg-template-${major}-${user.uid ?? process.getuid?.()}`);
  if (existsSync(join(template, "data", "PG_VERSION"))) return join(template, "data");
  const making = mkdtempSync(`${template}.making-`);
  if (user.uid !== null) chownSync(making, user.uid, user.gid!);
  const init = Bun.spawnSync(
    // --no-sync: the template is only ever copied; the servers themselves run with fsync on.
    [
      ...user.prefix,
      join(bin, "initdb"),
      "-D",
      join(making, "data"),
      "-U",
      "inboxd",
      "-A",
      "trust",
      "-E",
      "UTF8",
      "--no-locale",
      "--no-sync",
    ],
    { stderr: "pipe", stdout: "pipe" },
  );
  if (init.exitCode !== 0) throw new Error(`initdb failed: ${init.stderr.toString()}`);
  try {
    renameSync(making, template);
  } catch {
    rmSync(making, { recursive: true, force: true }); // another process made it first
  }
  return join(template, "data");
}

export async function startPostgres(options: { maxConnections?: number } = {}): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(postgresMissing);
  const user = asServerUser();
  const dir = mkdtempSync(join(tmpdir(), "inboxd-pg-"));
  const data = join(dir, "data");
  if (user.uid !== null) chownSync(dir, user.uid, user.gid!);
  // cp -a keeps the owner (the postgres user when we are root) and the 0700 mode postgres insists on.
  const copy = Bun.spawnSync(["cp", "-a", clusterTemplate(bin, user), data], { stderr: "pipe" });
  if (copy.exitCode !== 0) throw new Error(`copying the PostgreSQL cluster template failed: ${copy.stderr.toString()}`);
  const port = await freePort();
  const server = Bun.spawn(
    [
      ...user.prefix,
      join(bin, "postgres"),
      "-D",
      data,
      "-p",
      String(port),
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      `unix_socket_directories=${dir}`,
      "-c",
      "fsync=on",
      "-c",
      "synchronous_commit=on",
      "-c",
      `max_connections=${options.maxConnections ?? 50}`,
    ],
    { stdout: "ignore", stderr: "pipe" },
  );
  // Its lifetime bound to this process's (watchdog.ts). SIGQUIT: immediate shutdown, no checkpoint for a
  // cluster about to be deleted. The removal is retried: a backend that outlives a killed postmaster can
  // still create files under base/ while rm runs, and a pass's shared cluster of some GB was found left
  // that way (with SIGINT, whose shutdown checkpoint of such a cluster can outlast the 10 s).
  stopWhenOrphaned(server.pid, { signal: "QUIT", dir, keepDirWhileTestLives: false });
  try {
    await waitForPort(port, 30_000);
  } catch (e) {
    server.kill();
    throw new Error(`postgres did not start: ${e}`);
  }
  const base = `postgres://inboxd@127.0.0.1:${port}`;
  const admin = new SQL(`${base}/postgres`, { max: 1 });
  const newDatabase = async (template?: string) => {
    const name = `inboxd_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
    if (template !== undefined && !/^\w+$/.test(template)) throw new Error(`not a database name: ${template}`);
    await admin.unsafe(`CREATE DATABASE ${name}${template === undefined ? "" : ` TEMPLATE ${template}`}`);
    return `${base}/${name}`;
  };
  // The server accepts TCP a moment before it accepts logins: retry the first statement briefly.
  let url = "";
  for (let attempt = 0; ; attempt++) {
    try {
      url = await newDatabase();
      break;
    } catch (e) {
      if (attempt > 50) throw e;
      await Bun.sleep(100);
    }
  }
  return {
    url,
    port,
    newDatabase,
    stop: async () => {
      await admin.close();
      // Immediate shutdown: the cluster is thrown away, so its shutdown checkpoint would be wasted writes.
      server.kill("SIGQUIT");
      await server.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What a database holds, as an outside inspector (psql's \d) sees it: for the schema parity test. */
export interface Catalogue {
  /** table -> its column names, sorted. */
  tables: Record<string, string[]>;
  /** Named indexes (not those PostgreSQL makes for PRIMARY KEY / UNIQUE constraints). */
  indexes: string[];
  triggers: string[];
}

export async function postgresCatalogue(url: string): Promise<Catalogue> {
  const sql = new SQL(url, { max: 1 });
  try {
    const cols = (await sql.unsafe(
      "SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2",
    )) as { t: string; c: string }[];
    const tables: Record<string, string[]> = {};
    for (const r of cols) (tables[r.t] ??= []).push(r.c);
    const indexes = (
      (await sql.unsafe(
        `SELECT i.relname AS name FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_namespace n ON n.oid = i.relnamespace
         WHERE n.nspname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid) ORDER BY 1`,
      )) as { name: string }[]
    ).map((r) => r.name);
    const triggers = (
      (await sql.unsafe("SELECT DISTINCT trigger_name AS name FROM information_schema.triggers ORDER BY 1")) as { name: string }[]
    ).map((r) => r.name);
    return { tables, indexes, triggers };
  } finally {
    await sql.close();
  }
}
