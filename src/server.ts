// `inboxd serve`: opens the data directory, bootstraps, starts every listener and the schedulers,
// prints `listening <proto> <host>:<port>` for each, and shuts down cleanly on SIGTERM/SIGINT.
// Those start-up lines (`listening …`, `ready`) are bare lines on stdout in the text log format,
// whatever the level, because scripts and the test harness wait for them; in json they are records.
import { accessSync, constants, mkdirSync } from "node:fs";
import { resolve } from "node:path";
import type { Config } from "./runtime/config";
import type { AppContext } from "./runtime/context";
import { openSqliteStorage } from "./storage/sqlite";
import { lockDataDir } from "./storage/lock";
import { LocalBus } from "./lib/bus";
import { Sealer } from "./lib/crypto";
import { loadTls } from "./tls";
import { buildServices, type Services } from "./services";
import { bootstrap } from "./bootstrap";
import { buildHttpApp } from "./http/app";
import { Scheduler } from "./scheduler";
import { jobs } from "./scheduler/jobs";
import { protocolListeners } from "./protocols/index";
import type { Listener } from "./protocols/listener";
import { newId } from "./lib/ids";
import { configureLog } from "./lib/log";
import { Metrics } from "./lib/metrics";
import { ConfigError } from "./runtime/config";

export interface RunningServer {
  ctx: AppContext;
  services: Services;
  listeners: Listener[];
  scheduler: Scheduler;
  stop(): Promise<void>;
}

export async function startServer(config: Config, say?: (line: string) => void): Promise<RunningServer> {
  const logger = configureLog(config.logLevel, config.logFormat);
  const log = say ?? (config.logFormat === "json" ? (line: string) => logger.info(line) : console.log);
  const dataDir = resolve(config.dataDir);
  openDataDir(dataDir);
  const unlock = lockDataDir(dataDir);
  try {
    const storage = openSqliteStorage(dataDir);
    const metrics = new Metrics();
    const ctx: AppContext = {
      config: { ...config, dataDir },
      storage,
      bus: new LocalBus(),
      sealer: Sealer.fromDataDir(dataDir, config.secretKey),
      tls: await loadTls({ ...config, dataDir }),
      metrics,
      workerId: newId(),
      ports: { http: config.httpPort, smtp: config.smtpPort, imap: config.imapPort, pop3: config.pop3Port },
    };
    const services = buildServices(ctx);
    metrics.setSources({ storage: () => storage.stats(), longPollWaiters: () => services.latest.waiting() + services.search.waiting() });
    await bootstrap(ctx, services, log);

    const listeners: Listener[] = [];
    // Mail listeners first, so the inbox resource can report their real ports.
    for (const factory of protocolListeners) {
      const l = await factory(ctx, services);
      if (l) listeners.push(l);
    }
    const { app, markReady } = buildHttpApp(ctx, services);
    app.listen({
      hostname: config.host,
      port: config.httpPort,
      idleTimeout: 120,
      maxRequestBodySize: requestBodyLimit(config.smtpMaxBytes),
    });
    const httpPort = app.server!.port!;
    ctx.ports.http = httpPort;
    listeners.unshift({ proto: "http", port: httpPort, stop: async () => void (await app.stop(true)) });
    for (const l of listeners) log(`listening ${l.proto} ${config.host}:${l.port}`);
    markReady();
    log("ready");

    const scheduler = new Scheduler(ctx, services, jobs);
    scheduler.start();

    let stopping: Promise<void> | null = null;
    const stop = () =>
      (stopping ??= (async () => {
        logger.info("shutting down: closing listeners, finishing work in progress");
        await services.runExecutor.stop();
        await scheduler.stop();
        await Promise.allSettled(listeners.map((l) => l.stop()));
        await storage.close();
        unlock();
        logger.info("stopped");
      })());
    return { ctx, services, listeners, scheduler, stop };
  } catch (e) {
    unlock();
    throw e;
  }
}

/**
 * Creates the data directory if needed and proves it writable, so that an unwritable one (a
 * root-owned bind mount, a read-only volume) stops start-up with one line naming the setting.
 */
function openDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true });
    accessSync(dataDir, constants.W_OK | constants.X_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException)?.code;
    if (code === "EACCES" || code === "EPERM" || code === "EROFS" || code === "ENOTDIR" || code === "EEXIST") {
      const uid = typeof process.getuid === "function" ? ` by uid ${process.getuid()}` : "";
      throw new ConfigError(
        `INBOXD_DATA_DIR ${dataDir} is not a writable directory${uid} (${code}); make it writable (chown) or point INBOXD_DATA_DIR elsewhere`,
      );
    }
    throw e;
  }
}

/** Bun's cap on a request body: 64 MiB, or more when imports (message/rfc822 or base64 in JSON) may be larger. */
function requestBodyLimit(smtpMaxBytes: number): number {
  return Math.max(64 * 1024 * 1024, Math.ceil((smtpMaxBytes * 4) / 3) + 1024 * 1024);
}
