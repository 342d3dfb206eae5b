#!/usr/bin/env bun
// The inboxd executable: `serve`, `user add`, `mcp`.
import { loadConfig, ConfigError, type Config } from "./runtime/config";
import { DataDirLocked } from "./storage/lock";
import { parseFlags } from "./cli/flags";

const USAGE = `usage:
  inboxd serve                      run HTTP, SMTP, IMAP and POP3 listeners (configured by INBOXD_* variables)
  inboxd user add --email E --password P --role owner|admin|member [--team NAME] [--name N]
  inboxd mcp --url URL --key KEY    stdio MCP server forwarding to a running inboxd
  inboxd health                     exit 0 when the local HTTP listener answers /readyz with 200 (container health checks)
  inboxd version`;

async function main(argv: string[]): Promise<number> {
  const [cmd, sub, ...rest] = argv;
  if (cmd === "version" || cmd === "--version") {
    console.log("inboxd 0.1.0");
    return 0;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`inboxd: ${e.message}`);
      return 2;
    }
    throw e;
  }
  if (cmd === "serve" || cmd === undefined) {
    const { startServer } = await import("./server");
    // Signals are handled from the very start: a SIGTERM that arrives while listeners are still
    // opening waits for start-up to finish, then shuts down cleanly.
    let signalled: ((sig: string) => void) | null = null;
    const received = new Promise<string>((resolve) => (signalled = resolve));
    process.once("SIGTERM", () => signalled!("SIGTERM"));
    process.once("SIGINT", () => signalled!("SIGINT"));
    let server: Awaited<ReturnType<typeof startServer>>;
    try {
      server = await startServer(config);
    } catch (e) {
      if (e instanceof ConfigError || e instanceof DataDirLocked) {
        console.error(`inboxd: ${e.message}`);
        return 2;
      }
      if ((e as any)?.code === "EADDRINUSE") {
        console.error(`inboxd: ${(e as Error).message}`);
        return 2;
      }
      throw e;
    }
    const sig = await received;
    console.log(`inboxd: ${sig} received, shutting down`);
    await server.stop().catch((e) => console.error("inboxd: error during shutdown", e));
    return 0;
  }
  if (cmd === "health") {
    const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
    try {
      const r = await fetch(`http://${host}:${config.httpPort}/readyz`, { signal: AbortSignal.timeout(2000) });
      return r.ok ? 0 : 1;
    } catch {
      return 1;
    }
  }
  if (cmd === "user" && sub === "add") {
    const { userAdd } = await import("./cli/user-add");
    return userAdd(config, parseFlags(rest));
  }
  if (cmd === "mcp") {
    const mod = await import("./cli/mcp-stdio").catch(() => null);
    if (!mod) {
      console.error("inboxd: the mcp command is not available in this build");
      return 2;
    }
    return mod.mcpStdio(parseFlags([sub ?? "", ...rest]));
  }
  console.error(USAGE);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    console.error("inboxd: fatal:", e);
    process.exit(1);
  },
);
