// `inboxd serve`: opens the data directory, bootstraps, starts every listener and the schedulers,
// prints `listening <proto> <host>:<port>` for each, and shuts down cleanly on SIGTERM/SIGINT.
// Those start-up lines (`listening …`, `ready`) are bare lines on stdout in the text log format,
// whatever the level, because scripts and the test harness wait for them; in json they are records.
import { egressPolicies } from "./runtime/egress";
import { accessSync, constants, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { type Config, listenerPorts } from "./runtime/config";
import type { AppContext } from "./runtime/context";
import { openStorage } from "./storage/open";
import { lockDataDir } from "./storage/lock";
import { makeDataDirPrivate } from "./storage/private-files";
import { ClusterBus } from "./runtime/cluster-bus";
import { secretKeyMismatch } from "./runtime/secret-check";
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

/**
 * The environment refused what a setting asks for (a port in use, an address this host does not
 * have, a data directory it cannot write): one line naming the setting, no stack trace.
 */
export class StartupError extends Error {}

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
  const dataDir = usableDataDir(config.dataDir);
  const tightened = makeDataDirPrivate(dataDir);
  if (tightened.length > 0) logger.warn(`data directory was open to other users; tightened ${tightened.join(", ")}`);
  const unlock = lockDataDir(dataDir);
  try {
    // Before anything is written (a first start prints credentials once): a busy port or an address
    // this host lacks stops start-up here, not after the bootstrap.
    await probePorts(config);
  } catch (e) {
    unlock();
    throw e;
  }
  try {
    // The certificate (made at first start: an RSA key on the thread pool) while the storage opens.
    const tls = loadTls({ ...config, dataDir });
    tls.catch(() => {}); // awaited below; a start-up that fails before then reports its own error
    const storage = await openStorage({ dataDir, databaseUrl: config.databaseUrl }).catch((e) => {
      throw config.databaseUrl ? new StartupError(`INBOXD_DATABASE_URL: cannot open the database (${e?.message ?? e})`) : e;
    });
    // Temp files of messages being received when the last process died (never committed, so
    // never acknowledged): only now, under the data directory's lock, is none of them live.
    storage.blobs.removeTemp();
    const metrics = new Metrics();
    const sealer = Sealer.fromDataDir(dataDir, config.secretKey);
    const mismatch = await secretKeyMismatch(storage, sealer);
    if (mismatch) {
      await storage.close();
      throw new StartupError(mismatch);
    }
    const workerId = newId();
    const bus = await ClusterBus.open(storage.signals, workerId);
    const ctx: AppContext = {
      config: { ...config, dataDir },
      storage,
      bus,
      sealer,
      tls: await tls,
      metrics,
      egress: egressPolicies(config),
      workerId,
      ports: { http: config.httpPort, smtp: config.smtpPort, imap: config.imapPort, pop3: config.pop3Port },
    };
    const services = buildServices(ctx);
    metrics.setSources({ storage: () => storage.stats(), longPollWaiters: () => services.latest.waiting() + services.search.waiting() });
    await bootstrap(ctx, services, log);

    const listeners: Listener[] = [];
    // Mail listeners first, so the inbox resource can report their real ports.
    const stopAll = () => Promise.allSettled(listeners.map((l) => l.stop()));
    for (const factory of protocolListeners) {
      const l = await factory(ctx, services).catch(async (e) => {
        await stopAll();
        throw listenError(e, config, null);
      });
      if (l) listeners.push(l);
    }
    const { app, markReady } = buildHttpApp(ctx, services);
    try {
      app.listen({
        hostname: config.host,
        port: config.httpPort,
        idleTimeout: 120,
        maxRequestBodySize: requestBodyLimit(config.smtpMaxBytes),
        // Elysia turns SO_REUSEPORT on: a second inboxd would then share the port and answer some of
        // the first one's requests. One server per port; a busy port stops start-up.
        reusePort: false,
      });
    } catch (e) {
      await stopAll();
      throw listenError(e, config, "INBOXD_HTTP_PORT");
    }
    const httpPort = app.server!.port!;
    ctx.ports.http = httpPort;
    listeners.unshift({ proto: "http", port: httpPort, stop: async () => void (await app.stop(true)) });
    for (const l of listeners) log(`listening ${l.proto} ${config.host}:${l.port}`);
    if (config.signinLink === "on") await printSigninLink(ctx, services, log);
    markReady();
    log("ready");

    const scheduler = new Scheduler(ctx, services, jobs);
    scheduler.start();

    let stopping: Promise<void> | null = null;
    const stop = () =>
      (stopping ??= (async () => {
        logger.info("shutting down: closing listeners, finishing work in progress");
        await services.runExecutor.stop();
        await services.analyses.auth.stop();
        await scheduler.stop();
        await Promise.allSettled(listeners.map((l) => l.stop()));
        // After the listeners (a delivery they finish may still wake it), before the storage closes.
        await services.webhookDispatcher.stop();
        await bus.close();
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

/** The data directory, created if needed, or a StartupError naming INBOXD_DATA_DIR when it cannot be written. */
export function usableDataDir(dir: string): string {
  const dataDir = resolve(dir);
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    accessSync(dataDir, constants.W_OK | constants.X_OK);
  } catch (e: any) {
    const denied = e?.code === "EACCES" || e?.code === "EPERM" || e?.code === "EROFS";
    const why = denied
      ? `${e.code === "EROFS" ? "read-only file system" : "permission denied"}; give the user running inboxd (uid ${process.getuid?.() ?? "?"}) write access or choose another directory`
      : e?.code === "ENOTDIR" || e?.code === "EEXIST"
        ? "a file is in the way; choose a directory"
        : `${e?.code ?? String(e?.message ?? e)}; choose another directory`;
    throw new StartupError(`INBOXD_DATA_DIR: cannot write to ${dataDir} (${why})`);
  }
  return dataDir;
}

/** Binds and releases every configured port (0 and off are skipped); a failure is a StartupError naming the setting. */
async function probePorts(config: Config): Promise<void> {
  const probe = (port: number, setting: string | null) =>
    new Promise<void>((resolve, reject) => {
      const server = createServer();
      server.once("error", (e) => reject(listenError(e, config, setting)));
      server.listen({ port, host: config.host, exclusive: true }, () => server.close(() => resolve()));
    });
  await probe(0, null); // the address itself
  for (const { env, port } of listenerPorts(config)) await probe(port, env);
}

/** A listener's error as one line naming the setting: the port's (in use, privileged) or INBOXD_HOST (no such address). */
function listenError(e: any, config: Config, portSetting: string | null): Error {
  const code: string | undefined = e?.code;
  const ports = listenerPorts(config);
  const byPort = portSetting ?? (typeof e?.port === "number" ? ports.find((p) => p.port === e.port)?.env : undefined);
  const port = ports.find((p) => p.env === byPort)?.port ?? e?.port;
  if (code === "EADDRINUSE") {
    return new StartupError(
      `${byPort ?? "a port setting"}: port ${port} on ${config.host} is in use (another inboxd or mail server?); stop it or choose another port`,
    );
  }
  if (code === "EACCES" && byPort) {
    return new StartupError(`${byPort}: port ${port} needs privileges this user lacks; choose a port above 1023`);
  }
  if (code === "EADDRNOTAVAIL" || code === "EINVAL" || code === "ENOTFOUND" || code === undefined) {
    return new StartupError(
      `INBOXD_HOST: cannot listen on ${config.host} (${code ?? String(e?.message ?? e)}); use an address of this host, 127.0.0.1 or 0.0.0.0`,
    );
  }
  return e;
}

/** Prints a one-time web UI sign-in link for the owner (INBOXD_SIGNIN_LINK=off turns it off). */
async function printSigninLink(ctx: AppContext, services: Services, log: (line: string) => void): Promise<void> {
  const user = await services.identity.signinUser(ctx.config.adminEmail);
  if (!user) return;
  const { token } = await services.identity.issueSignin(user.id);
  log(`signin: ${uiBase(ctx)}/#signin=${token} (signs ${user.email} in to the web UI; single use, valid 15 minutes)`);
}

function uiBase(ctx: AppContext): string {
  if (ctx.config.publicUrl) return ctx.config.publicUrl;
  const host = ctx.config.host;
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  return `http://${shown}:${ctx.ports.http}`;
}

/** Bun's cap on a request body: 64 MiB, or more when imports (message/rfc822 or base64 in JSON) may be larger. */
function requestBodyLimit(smtpMaxBytes: number): number {
  return Math.max(64 * 1024 * 1024, Math.ceil((smtpMaxBytes * 4) / 3) + 1024 * 1024);
}
