// Starts inboxd inside the test process (startServer, not a child process): for tests that must
// reach into the running server (hold a mailbox view between its pages, time its event loop).
// Everything else starts a real process through harness.ts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/runtime/config";
import { startServer, type RunningServer } from "../../src/server";
import { BOOTSTRAP_KEY, testEnv } from "./harness";
import { databaseEnv } from "./test-database";

export interface InProcess {
  server: RunningServer;
  url: string;
  dataDir: string;
  /** The bootstrap project's id. */
  project: string;
  /** fetch against this server with the bootstrap key. */
  api(path: string, init?: RequestInit): Promise<Response>;
  /** Stops the server and removes its data directory. */
  stop(): Promise<void>;
}

export async function startInProcess(env: Record<string, string> = {}): Promise<InProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), "inboxd-inproc-"));
  // The self-hosted plan (INBOXD_PLAN ""), not the contract's free plan the process tests use.
  const config = loadConfig(testEnv(dataDir, { ...(await databaseEnv(dataDir)), INBOXD_PLAN: "", INBOXD_LOG_LEVEL: "error", ...env }));
  const server = await startServer(config, () => {});
  const url = `http://127.0.0.1:${server.ctx.ports.http}`;
  const api = (path: string, init: RequestInit = {}) =>
    fetch(url + path, { ...init, headers: { authorization: `Bearer ${BOOTSTRAP_KEY}`, ...(init.headers ?? {}) } });
  const project = (await (await api("/v1/usage")).json()).data.project.id;
  return {
    server,
    url,
    dataDir,
    project,
    api,
    async stop() {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
