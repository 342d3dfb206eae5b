// The services of a server without its listeners, for commands that work on a data directory
// (`inboxd dump`, `inboxd import`): the same rules as the server (ingest, quotas, parsing), no ports.
import { egressPolicies } from "../runtime/egress";
import type { Config } from "../runtime/config";
import type { AppContext } from "../runtime/context";
import { existingDataDir, openExisting } from "./data-dir";
import type { Storage } from "../storage";
import { DataDirLocked, lockDataDir } from "../storage/lock";
import { LocalBus } from "../lib/bus";
import { Sealer } from "../lib/crypto";
import { newId } from "../lib/ids";
import { Metrics } from "../lib/metrics";
import { buildServices, type Services } from "../services";
import { CliFailure } from "./failure";

/**
 * Runs `fn` with the services of the data directory. `exclusive` commands take the server's lock,
 * so they refuse while a server runs on the directory (and a server refuses to start meanwhile).
 */
export async function withDataDir<T>(
  config: Config,
  command: string,
  exclusive: boolean,
  fn: (ctx: AppContext, services: Services) => Promise<T>,
): Promise<T> {
  const dataDir = existingDataDir(config);
  let unlock = () => {};
  if (exclusive) {
    try {
      unlock = lockDataDir(dataDir);
    } catch (e) {
      if (e instanceof DataDirLocked) {
        throw new CliFailure(`inboxd ${command} works on the data directory of a stopped server: ${e.message}; stop the server first`);
      }
      throw e;
    }
  }
  let storage: Storage;
  try {
    storage = await openExisting(config, dataDir);
  } catch (e) {
    unlock();
    throw e;
  }
  try {
    // Parsing stays on this thread (no workers to start and stop for a one-shot command).
    const ctx: AppContext = {
      config: { ...config, dataDir, parseWorkers: 0 },
      storage,
      bus: new LocalBus(),
      sealer: Sealer.fromDataDir(dataDir, config.secretKey),
      tls: { cert: "", key: "" },
      egress: egressPolicies(config),
      workerId: newId(),
      ports: { http: config.httpPort, smtp: config.smtpPort, imap: config.imapPort, pop3: config.pop3Port },
      metrics: new Metrics(),
    };
    return await fn(ctx, buildServices(ctx));
  } finally {
    await storage.close();
    unlock();
  }
}
