// The storage of an existing data directory for a one-shot command. A directory without inboxd data
// is refused (a mistyped --data-dir must not become a new, unbootstrapped instance), and a database
// that cannot be opened is one line naming the setting, as `inboxd serve` says it.
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import type { Config } from "../runtime/config";
import { openStorage, storageExists } from "../storage/open";
import type { Storage } from "../storage";
import { CliFailure } from "./failure";

export function existingDataDir(config: Config): string {
  const dataDir = resolve(config.dataDir);
  if (!storageExists({ dataDir, databaseUrl: config.databaseUrl })) {
    throw new CliFailure(`INBOXD_DATA_DIR: ${dataDir} holds no inboxd data; start \`inboxd serve\` on it once, or pass --data-dir`);
  }
  // On PostgreSQL the directory holds only this node's lock and spool: a node that never ran here may lack it.
  if (config.databaseUrl) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  return dataDir;
}

export async function openExisting(config: Config, dataDir: string): Promise<Storage> {
  try {
    return await openStorage({ dataDir, databaseUrl: config.databaseUrl });
  } catch (e) {
    if (!config.databaseUrl) throw e;
    throw new CliFailure(`INBOXD_DATABASE_URL: cannot open the database (${(e as Error)?.message ?? e})`);
  }
}
