#!/usr/bin/env bun
// The inboxd executable. One table of commands: each declares its flags (anything else is refused,
// exit 2), whether it takes the settings as flags (--smtp-port <-> INBOXD_SMTP_PORT, from the table in
// runtime/config.ts), and its positional arguments. `--help` prints to stdout, exits 0 and starts nothing.
// Failures the user can fix (a bad setting, a busy port, a locked data directory) are one line, no stack.
import { ConfigError, type Config, flagOf, loadConfig, SETTINGS } from "./runtime/config";
import { DataDirLocked } from "./storage/lock";
import { type FlagSpec, flagLines, parseArgs, type Parsed, settingLines, UsageError } from "./cli/args";
import { CliFailure } from "./cli/failure";
import { sendmailArgs } from "./cli/sendmail-args";
import { DomainError } from "./lib/errors";

interface Command {
  name: string;
  synopsis: string;
  summary: string;
  flags: Record<string, FlagSpec>;
  /** Takes every setting as a flag (`--data-dir`, `--smtp-port`, …). */
  settings: boolean;
  args: { min: number; max: number; usage: string };
  /** More help text after the flags. */
  notes?: string;
  /** Rewrites the arguments before they are parsed (sendmail's own option spellings). */
  rewrite?: (argv: string[]) => string[];
  run(p: Parsed, config: () => Config): Promise<number>;
}

const NO_ARGS = { min: 0, max: 0, usage: "" };

const COMMANDS: Command[] = [
  {
    name: "serve",
    synopsis: "inboxd serve [--SETTING VALUE ...]",
    summary: "run the HTTP, SMTP, IMAP and POP3 listeners (the default command)",
    flags: {},
    settings: true,
    args: NO_ARGS,
    notes:
      "Each setting is also an environment variable; a flag wins over the variable. Give secrets (marked [secret])\n" +
      "through the environment: a command line is visible to every user of the host (ps).",
    run: async (_p, config) => serve(config()),
  },
  {
    name: "user add",
    synopsis: "inboxd user add --email E --password P --role owner|admin|member [--team NAME] [--name N]",
    summary: "add a user (a new team with one project when NAME is new); works while the server runs",
    flags: {
      email: { value: "E", help: "the user's email (log-in name)" },
      password: { value: "P", help: "at least 8 characters" },
      role: { value: "ROLE", help: "owner, admin or member" },
      team: { value: "NAME", help: "the team to join or create (default: the bootstrap team)" },
      name: { value: "N", help: "display name (default: the email's local part)" },
    },
    settings: true,
    args: NO_ARGS,
    run: async (p, config) => (await import("./cli/user-add")).userAdd(config(), p.flags),
  },
  {
    name: "user list",
    synopsis: "inboxd user list [--json]",
    summary: "list every user: email, role, team, id, created; works while the server runs",
    flags: { json: { help: "print a JSON array instead of a table" } },
    settings: true,
    args: NO_ARGS,
    run: async (p, config) => (await import("./cli/user")).userList(config(), p.flags.json === "true"),
  },
  {
    name: "user passwd",
    synopsis: "inboxd user passwd --email E [--password P]",
    summary: "set a user's password (generated and printed once without --password); logs out their device sessions",
    flags: {
      email: { value: "E", help: "the user whose password changes" },
      password: { value: "P", help: "the new password, at least 8 characters (default: generated, printed once)" },
    },
    settings: true,
    args: NO_ARGS,
    run: async (p, config) => {
      if (!p.flags.email) throw new UsageError("--email is required");
      // A bad value is a usage error (exit 2), as in `user add`, before the data directory is opened.
      if (p.flags.password !== undefined && p.flags.password.length < 8) throw new UsageError("--password must be at least 8 characters");
      return (await import("./cli/user")).userPasswd(config(), p.flags.email, p.flags.password);
    },
  },
  {
    name: "dump",
    synopsis: "inboxd dump DIR",
    summary: "write every message as DIR/<inbox address>/<message id>.eml plus DIR/index.json (stopped server)",
    flags: {},
    settings: true,
    args: { min: 1, max: 1, usage: "DIR" },
    notes: "DIR must be new or empty. The .eml files hold the bytes as received (what /raw returns).",
    run: async (p, config) => (await import("./cli/dump")).dump(config(), p.positionals[0]!),
  },
  {
    name: "import",
    synopsis: "inboxd import --inbox ADDRESS FILE|DIR ...",
    summary: "store .eml and mbox files in an existing inbox, as if received (stopped server)",
    flags: { inbox: { value: "ADDRESS", help: "address of the inbox that receives the messages (it must exist)" } },
    settings: true,
    args: { min: 1, max: Number.POSITIVE_INFINITY, usage: "FILE|DIR ..." },
    notes:
      "A directory is searched recursively for *.eml and *.mbox files, imported in file-name order (a dump imports\n" +
      'back in its original order). A file starting with a "From " line is read as mbox. Quotas and parsing apply.',
    run: async (p, config) => {
      if (!p.flags.inbox) throw new UsageError("--inbox is required");
      return (await import("./cli/import-mail")).importMail(config(), p.flags.inbox, p.positionals);
    },
  },
  {
    name: "sendmail",
    synopsis: "inboxd sendmail [-t] [-f FROM] [--smtp-host H] [--smtp-port N] [RCPT ...] < message.eml",
    summary: "deliver a message read on stdin over SMTP to inboxd, like `sendmail -t`",
    flags: {
      "read-headers": { help: "take recipients from To, Cc and Bcc (also when RCPT arguments are given)", aliases: ["-t"] },
      from: { value: "FROM", help: "envelope sender (default: the From header's address)", aliases: ["-f"] },
      "full-name": { value: "NAME", help: "the sender's name, for the From header added to a message without one", aliases: ["-F"] },
      "smtp-host": { value: "H", help: "SMTP server (default 127.0.0.1); the port is --smtp-port / INBOXD_SMTP_PORT" },
      "ignore-dots": { help: 'accepted for sendmail compatibility; a lone "." line never ends the input', aliases: ["-i", "-oi"] },
    },
    settings: true,
    args: { min: 0, max: Number.POSITIVE_INFINITY, usage: "RCPT ..." },
    notes:
      "Without RCPT arguments the recipients come from the To, Cc and Bcc headers. The Bcc header is never sent.\n" +
      "A message without From, Date or Message-ID gets them, as sendmail adds them. sendmail's spellings work too:\n" +
      "-fFROM and -rFROM, letters run together (-ti); -B TYPE, -N, -R, -V, -o OPTION, -bm, -v are accepted and\n" +
      "ignored (they concern a real MTA's queue and logs).",
    rewrite: (argv) => sendmailArgs(argv),
    run: async (p, config) =>
      (await import("./cli/sendmail")).sendmail(config(), {
        readHeaders: p.flags["read-headers"] === "true",
        from: p.flags.from,
        fullName: p.flags["full-name"],
        smtpHost: p.flags["smtp-host"] ?? "127.0.0.1",
        recipients: p.positionals,
      }),
  },
  {
    name: "mcp",
    synopsis: "inboxd mcp --url URL --key KEY [--agent ID]",
    summary: "stdio MCP server forwarding to a running inboxd",
    flags: {
      url: { value: "URL", help: "base URL of the inboxd HTTP API (default $INBOXD_URL)" },
      key: { value: "KEY", help: "API key (default $INBOXD_API_KEY; prefer the variable)" },
      agent: { value: "ID", help: "agent id to act as" },
    },
    settings: false,
    args: NO_ARGS,
    run: async (p) => {
      const mod = await import("./cli/mcp-stdio").catch(() => null);
      if (!mod) throw new CliFailure("the mcp command is not available in this build");
      return mod.mcpStdio(p.flags);
    },
  },
  {
    name: "health",
    synopsis: "inboxd health [--http-port N]",
    summary: "exit 0 when the local HTTP listener answers /readyz with 200 (for container health checks)",
    flags: {},
    settings: true,
    args: NO_ARGS,
    run: async (_p, config) => health(config()),
  },
  {
    name: "version",
    synopsis: "inboxd version",
    summary: "print the version, the commit it was built from and the Bun version (also --version)",
    flags: {},
    settings: false,
    args: NO_ARGS,
    run: async () => {
      console.log((await import("./cli/version")).versionLine());
      return 0;
    },
  },
  {
    name: "help",
    synopsis: "inboxd help [COMMAND]",
    summary: "print help for inboxd or one command (also COMMAND --help)",
    flags: {},
    settings: false,
    args: { min: 0, max: 2, usage: "[COMMAND]" },
    run: async (p) => {
      const found = p.positionals.length ? find(p.positionals) : null;
      if (found?.rest.length) throw new UsageError(`unexpected argument "${found.rest[0]}"`);
      const cmd = found?.cmd;
      const group = p.positionals.length === 1 ? groupHelp(p.positionals[0]!) : null;
      if (p.positionals.length && !cmd && !group) throw new UsageError(`unknown command "${p.positionals.join(" ")}"`);
      console.log(cmd ? commandHelp(cmd) : (group ?? overview()));
      return 0;
    },
  },
];

function find(argv: string[]): { cmd: Command; rest: string[] } | null {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(" ");
    const cmd = COMMANDS.find((c) => c.name === name);
    if (cmd && argv.slice(0, words).every((w) => !w.startsWith("-"))) return { cmd, rest: argv.slice(words) };
  }
  return null;
}

/** `inboxd user --help`: the commands of a group. */
function groupHelp(group: string): string | null {
  const members = COMMANDS.filter((c) => c.name.startsWith(`${group} `));
  if (!members.length) return null;
  return [
    "usage:",
    ...members.map((c) => `  inboxd ${c.name.padEnd(12)} ${c.summary}`),
    "",
    `Run \`inboxd ${group} COMMAND --help\` for its flags.`,
  ].join("\n");
}

function overview(): string {
  return [
    "inboxd: a self-hosted inbox for testing email (REST API, web UI, SMTP, IMAP, POP3)",
    "",
    "usage:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`),
    "",
    "`inboxd` alone is `inboxd serve`. Run `inboxd COMMAND --help` for a command's flags; `inboxd serve --help`",
    "lists every setting (each a flag and an INBOXD_* environment variable). Docs: docs/cli.md, docs/configuration.md.",
  ].join("\n");
}

function commandHelp(c: Command): string {
  const lines = [`usage: ${c.synopsis}`, "", c.summary];
  const own = flagLines(c.flags);
  if (own.length) lines.push("", "flags:", ...own);
  if (c.name === "serve") lines.push("", "settings:", ...settingLines());
  else if (c.settings) lines.push("", "Every setting of `inboxd serve --help` is accepted too (e.g. --data-dir DIR).");
  if (c.notes) lines.push("", c.notes);
  return lines.join("\n");
}

/** A ConfigError names the variable; when the value came from a flag, name the flag too. */
function explainConfigError(e: ConfigError, p: Parsed): string {
  for (const s of SETTINGS) {
    if (s.env in p.settings && e.message.includes(s.env)) return e.message.replace(s.env, `--${flagOf(s.env)} (${s.env})`);
  }
  return e.message;
}

async function main(argv: string[]): Promise<number> {
  const found = argv.length === 0 || argv[0]!.startsWith("-") ? null : find(argv);
  const group = !found && argv.length > 0 ? groupHelp(argv[0]!) : null;
  if (group && (argv.length === 1 || argv[1] === "--help" || argv[1] === "-h")) {
    if (argv.length === 1) {
      console.error(group);
      return 2;
    }
    console.log(group);
    return 0;
  }
  if (!found && argv.length > 0 && !argv[0]!.startsWith("-")) {
    const guess = argv[0] === "user" ? ` (user commands: ${["add", "list", "passwd"].join(", ")})` : "";
    console.error(`inboxd: unknown command "${argv.slice(0, argv[0] === "user" ? 2 : 1).join(" ")}"${guess}; run \`inboxd --help\``);
    return 2;
  }
  // `inboxd` alone, or only flags: serve (as Mailpit), except `--help` / `--version` on their own.
  const cmd = found?.cmd ?? COMMANDS[0]!;
  const rest = found?.rest ?? argv;
  let parsed: Parsed;
  try {
    parsed = parseArgs(cmd.rewrite ? cmd.rewrite(rest) : rest, cmd.flags, cmd.settings);
    if (!found && parsed.help) {
      console.log(overview());
      return 0;
    }
    if (parsed.help) {
      console.log(commandHelp(cmd));
      return 0;
    }
    if (parsed.version) {
      console.log((await import("./cli/version")).versionLine());
      return 0;
    }
    const n = parsed.positionals.length;
    if (n < cmd.args.min || n > cmd.args.max) {
      throw new UsageError(
        cmd.args.max === 0
          ? `unexpected argument "${parsed.positionals[0]}"`
          : `expected ${cmd.args.usage}, got ${n} argument${n === 1 ? "" : "s"}`,
      );
    }
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`inboxd ${cmd.name}: ${e.message}; run \`inboxd ${cmd.name} --help\``);
      return 2;
    }
    throw e;
  }
  const p = parsed;
  const config = () => loadConfig({ ...process.env, ...p.settings });
  try {
    return await cmd.run(p, config);
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`inboxd ${cmd.name}: ${e.message}; run \`inboxd ${cmd.name} --help\``);
      return 2;
    }
    if (e instanceof ConfigError) {
      console.error(`inboxd: ${explainConfigError(e, p)}`);
      return 2;
    }
    const { StartupError } = await import("./server");
    if (e instanceof StartupError || e instanceof DataDirLocked || e instanceof CliFailure || e instanceof DomainError) {
      console.error(`inboxd: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

async function serve(config: Config): Promise<number> {
  const { startServer } = await import("./server");
  // Signals are handled from the very start: a SIGTERM that arrives while listeners are still
  // opening waits for start-up to finish, then shuts down cleanly.
  let signalled: ((sig: string) => void) | null = null;
  const received = new Promise<string>((resolve) => (signalled = resolve));
  process.once("SIGTERM", () => signalled!("SIGTERM"));
  process.once("SIGINT", () => signalled!("SIGINT"));
  const server = await startServer(config);
  const sig = await received;
  // Loaded with the server already (the log is its module's).
  const { drainLog, log } = await import("./lib/log");
  // With INBOXD_LOG_FORMAT=json stdout is one JSON record per line, this one included.
  if (config.logFormat === "json") log.info({ signal: sig }, `${sig} received, shutting down`);
  else console.log(`inboxd: ${sig} received, shutting down`);
  await server.stop().catch((e) => log.error({ err: e }, "error during shutdown"));
  await drainLog();
  return 0;
}

/** Silent when ready (a health check runs every second); otherwise one line, which Docker keeps in the health log. */
async function health(config: Config): Promise<number> {
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${config.httpPort}/readyz`;
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
    if (r.ok) return 0;
    console.error(`inboxd: not ready: ${url} answered ${r.status} ${(await r.text().catch(() => "")).slice(0, 200)}`);
    return 1;
  } catch (e) {
    console.error(`inboxd: nothing answers at ${url} (INBOXD_HTTP_PORT / --http-port, INBOXD_HOST): ${(e as Error).message}`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    console.error("inboxd: fatal:", e);
    process.exit(1);
  },
);
