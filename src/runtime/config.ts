// Every setting comes from one table, SETTINGS (Mailpit-style): each row is an environment variable,
// and the command line derives its flag from the name (INBOXD_SMTP_PORT <-> --smtp-port), so a setting
// added here is a flag and a help line at once. Values are validated once at start; a bad value
// stops start-up with one line naming the variable.
import { isIP } from "node:net";
import { availableParallelism } from "node:os";
import { LOG_LEVELS, type LogFormat, type LogLevel } from "../lib/log";
import type { LoginLimits } from "../lib/login-throttle";
import { classifyAddress } from "../lib/egress";
import { type EgressAllowEntry, parseAllowEntry } from "../lib/egress-policy";
import { parseProxySource, type ProxySourceRange } from "../lib/proxy-sources";

export type PlanSlug = "self-hosted" | "free" | "starter" | "pro" | "business";

export interface Config {
  dataDir: string;
  /** postgres://… puts every table (and blob) on PostgreSQL; null: SQLite in dataDir (src/storage/open.ts). */
  databaseUrl: string | null;
  host: string;
  httpPort: number;
  smtpPort: number;
  imapPort: number;
  pop3Port: number;
  /** Optional plain ports offering STARTTLS/STLS; null = off. */
  imapPlainPort: number | null;
  pop3PlainPort: number | null;
  /** POP3 autologout after this many idle seconds (RFC 1939 asks for at least 600). */
  pop3IdleSeconds: number;
  /** Open POP3 connections in total, and logged-in sessions per inbox. */
  pop3MaxConnections: number;
  pop3MaxPerInbox: number;
  /** IMAP autologout after this much inactivity (RFC 3501 §5.4: at least 30 minutes). */
  imapIdleSeconds: number;
  imapMaxConnections: number;
  imapMaxPerInbox: number;
  /** Test only: an IMAP view's fill waits after this many entries until a command needs more (0: off). */
  imapViewFillHold: number;
  publicHost: string;
  mailDomain: string;
  bootstrapKey: string | null;
  adminEmail: string;
  adminPassword: string | null;
  /** The bootstrap owner's password as a PHC hash (argon2id/argon2i/argon2d or bcrypt), instead of adminPassword. */
  adminPasswordHash: string | null;
  tlsCert: string | null;
  tlsKey: string | null;
  runWaitCap: number;
  plan: PlanSlug;
  /** Sustained requests per second per principal, and bucket size. */
  rateLimitRps: number;
  rateLimitBurst: number;
  smtpMaxBytes: number;
  /** SMTP AUTH: any credentials accepted (any), or an inbox's address and password required before MAIL (require). */
  smtpAuth: "any" | "require";
  /** SMTP/LMTP connections are closed (421) after this many idle seconds. */
  smtpIdleSeconds: number;
  /** Open SMTP and LMTP connections in total; beyond it a new one gets 421. */
  smtpMaxConnections: number;
  /** Per-client fairness (docs/security.md, "Per-client fairness"). */
  /** SMTP connections one client address may hold at once (LMTP is not counted: its clients are MTAs). */
  smtpMaxPerAddress: number;
  /** Balancers whose mail connections open with a PROXY header (INBOXD_PROXY_PROTOCOL_FROM; src/protocols/proxy/). */
  proxyProtocolFrom: readonly ProxySourceRange[];
  /** IMAP/POP3 connections not yet logged in that one client address may hold at once. */
  imapPreauthPerAddress: number;
  pop3PreauthPerAddress: number;
  /** Seconds from connect until IMAP/POP3 log-in must have succeeded, else the connection is closed. */
  imapPreauthSeconds: number;
  pop3PreauthSeconds: number;
  /** Log-in back-off (lib/login-throttle.ts): failure allowances, first lock and the longest. */
  loginFailuresPerAccountAddress: number;
  loginFailuresPerAddress: number;
  loginFailuresPerAccount: number;
  loginBackoffMs: number;
  loginBackoffMaxSeconds: number;
  /** Optional LMTP port (RFC 2033); null = off. */
  lmtpPort: number | null;
  secretKey: string | null;
  approvalTtlSeconds: number;
  agentSessionTtlSeconds: number;
  domainVerify: "on" | "off";
  /** Mail to an address no inbox has goes to the catch-all inbox (on) or is refused with 550 (off). */
  catchAll: "on" | "off";
  authCheck: "on" | "off";
  /** One message's SPF/DKIM/DMARC/ARC check at most, then temperror and a new check thread (INBOXD_AUTH_CHECK_TIMEOUT_MS). */
  authCheckTimeoutMs: number;
  /** Resolvers for domain verification, each "ip" or "ip:port" ("[v6]:port"); empty = the system's. */
  dnsServers: string[];
  /** SpamAssassin's spamd for GET /v1/messages/{id}/analysis/spam (null: 503 analysis_unavailable). */
  spamd: { host: string; port: number } | null;
  /** The link analysis may reach loopback, private and link-local addresses (INBOXD_ALLOW_INTERNAL_HTTP). */
  allowInternalHttp: "on" | "off";
  /** Outbound requests for tenants may reach loopback, private, link-local, ULA and metadata addresses (docs/security.md). */
  egressPrivate: "allow" | "deny";
  /** Targets outbound requests may always reach: CIDRs and host:port (INBOXD_EGRESS_ALLOW). */
  egressAllow: EgressAllowEntry[];
  /** Each request of the link analysis, until the answer's headers (INBOXD_LINK_CHECK_TIMEOUT_MS). */
  linkCheckTimeoutMs: number;
  /** How often the scheduler re-checks a pending domain's DNS records. */
  domainCheckSeconds: number;
  /**
   * Compile every HTTP route before listening (INBOXD_HTTP_PRECOMPILE): otherwise each route is
   * compiled on its first request, holding the event loop 20-150 ms then (issue 19). Tests turn it off.
   */
  httpPrecompile: "on" | "off";
  /** How often expiry and retention sweep (INBOXD_SWEEP_INTERVAL_MS; tests shorten it). */
  sweepIntervalMs: number;
  /** Worker threads that parse received mail (INBOXD_PARSE_WORKERS; 0 = in the main thread). */
  parseWorkers: number;
  /** Messages smaller than this many bytes are parsed on the main thread (INBOXD_PARSE_INLINE_BELOW). */
  parseInlineBelow: number;
  /** Bytes of received mail in flight at once (arriving, parsing, committing); beyond it SMTP 452, import 503 (docs/security.md). */
  inflightBytes: number;
  /** Bytes of mail handed to the parse threads at once; more waits its turn (INBOXD_PARSE_BYTES). */
  parseBytes: number;
  /** Base URL put into webhook payloads (attachment download links); default http://PUBLIC_HOST:HTTP_PORT. */
  publicUrl: string | null;
  /** Webhook delivery: per-try timeout, first retry delay (later ones grow 4x), sends in flight. */
  webhookTimeoutMs: number;
  webhookBackoffBaseMs: number;
  webhookConcurrency: number;
  /** Tries in flight to one webhook at once (deliveries are not ordered; receivers order by `sequence`). */
  webhookEndpointConcurrency: number;
  /** Tries per delivery, the first included (default 10: about 28 h with the default base). */
  webhookMaxAttempts: number;
  /** Comment line sent on idle SSE streams so proxies and clients keep them open. */
  sseHeartbeatMs: number;
  /** A device session ends after this many seconds without use (sliding) … */
  deviceIdleSeconds: number;
  /** … and this many seconds after log-in whatever the use (absolute). */
  deviceMaxSeconds: number;
  /** Long-lived sessions (SSE, MCP, long-polls) re-check their credential this often, milliseconds. */
  sessionRecheckMs: number;
  /** How long a request may trust an API key or device session read before, milliseconds (tenancy/auth.ts). */
  credentialCacheMs: number;
  /** Operational log: least level written, and text (one readable line per event) or json (docs/operations.md). */
  logLevel: LogLevel;
  logFormat: LogFormat;
  /** Print a one-time web UI sign-in link for the owner at start-up (INBOXD_SIGNIN_LINK). */
  signinLink: "on" | "off";
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function port(env: Env, name: string, def: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return def;
  if (!/^\d+$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(`${name} must be a port number 0..65535, got "${raw}"`);
  }
  return Number(raw);
}

function optionalPort(env: Env, name: string): number | null {
  const raw = env[name];
  if (raw === undefined || raw === "" || raw === "off") return null;
  return port(env, name, 0);
}

function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return def;
  if (!/^-?\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer ${min}..${max}, got "${raw}"`);
  }
  return Number(raw);
}

function oneOf<T extends string>(env: Env, name: string, def: T, values: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined || raw === "") return def;
  if (!values.includes(raw as T)) {
    throw new ConfigError(`${name} must be one of ${values.join(", ")}, got "${raw}"`);
  }
  return raw as T;
}

/** A DNS name (labels of letters, digits and inner hyphens, 63 characters at most, 253 in all). */
function isDnsName(s: string): boolean {
  return s.length <= 253 && s.split(".").every((l) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(l));
}

/** A DNS name, or an IP address (IPv6 with or without brackets) where `ip` allows one. */
function hostName(env: Env, name: string, def: string, ip = true): string {
  const raw = env[name];
  if (raw === undefined || raw === "") return def;
  // Dotted digits are an IPv4 address or nothing (999.1.1.1 is no name); IPv6 may come in brackets.
  const dottedDigits = /^[\d.]+$/.test(raw);
  const ok = (!dottedDigits && isDnsName(raw)) || (ip && (isIP(raw) === 4 || isIP(raw.replace(/^\[(.*)\]$/, "$1")) === 6));
  if (!ok) throw new ConfigError(`${name} is not a valid ${ip ? "host name or IP address" : "domain name"}, got "${raw}"`);
  return raw.toLowerCase();
}

/** An absolute http(s) URL without query or fragment; its trailing slashes dropped. */
function baseUrl(env: Env, name: string): string | null {
  const raw = str(env, name);
  if (raw === null) return null;
  let u: URL | null = null;
  try {
    u = new URL(raw);
  } catch {}
  if (!u || (u.protocol !== "http:" && u.protocol !== "https:") || u.search || u.hash || !/^https?:\/\//i.test(raw)) {
    throw new ConfigError(`${name} must be an absolute http(s) URL such as https://inboxd.lab.example, got "${raw}"`);
  }
  return raw.replace(/\/+$/, "");
}

/** Whether a bind address is loopback only (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "");
  return h === "localhost" || classifyAddress(h) === "loopback";
}
/** An IP address with an optional port: what node:dns Resolver.setServers accepts. */
function isDnsServer(s: string): boolean {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|(\d{1,3}(?:\.\d{1,3}){3}))(?::(\d{1,5}))?$/.exec(s);
  if (m) {
    const ip = m[1] ?? m[2]!;
    const okPort = m[3] === undefined || (Number(m[3]) >= 1 && Number(m[3]) <= 65535);
    return okPort && (m[1] !== undefined ? isIP(ip) === 6 : isIP(ip) === 4);
  }
  return isIP(s) === 6;
}

function str(env: Env, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw === "" ? null : raw;
}

/** One row of the settings table: where a Config field comes from, how it is read, what it means. */
export interface Setting<K extends keyof Config = keyof Config> {
  /** The Config field it fills. */
  key: K;
  /** The environment variable; the flag is derived from it (flagOf). */
  env: string;
  /** One line for `inboxd serve --help` and docs/configuration.md. */
  help: string;
  /** Reads and validates the value (throws ConfigError naming `name`). */
  read: (env: Env, name: string) => unknown;
  /** Never echoed: help shows no value, logs never print it (pass secrets by environment, not flags, in CI). */
  secret?: boolean;
}

const setting = <K extends keyof Config>(
  key: K,
  env: string,
  help: string,
  read: (env: Env, name: string) => Config[K],
  opts: { secret?: boolean } = {},
): Setting<K> => ({ key, env, help, read, ...opts });

const list = (env: Env, name: string): string[] => {
  const raw = str(env, name);
  return raw
    ? raw
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
};

function minLength(env: Env, name: string, min: number): string | null {
  const raw = str(env, name);
  if (raw !== null && raw.length < min) throw new ConfigError(`${name} must be at least ${min} characters`);
  return raw;
}

/**
 * Every setting, in the order `inboxd serve --help` lists them. To add one: add the field to
 * Config, then one row here (tsc fails until both exist); its flag, help line and validation
 * follow from the row. Checks across settings go in crossCheck below.
 */
/** The hashes Bun.password.verify reads: argon2 in PHC form, bcrypt in modular crypt form. */
const PASSWORD_HASH = /^(\$argon2(id|i|d)\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+|\$2[aby]\$\d\d\$[./A-Za-z0-9]{53})$/;

export const SETTINGS = [
  setting(
    "dataDir",
    "INBOXD_DATA_DIR",
    "SQLite file, blob directory, generated TLS key and certificate; on PostgreSQL the per-node part (default ./data)",
    (e, n) => str(e, n) ?? "./data",
  ),
  setting(
    "databaseUrl",
    "INBOXD_DATABASE_URL",
    "postgres://user:password@host:port/db puts every table on PostgreSQL (default: SQLite in the data directory)",
    (e, n) => {
      const v = str(e, n);
      if (v !== null && !/^postgres(ql)?:\/\/./.test(v)) throw new ConfigError(`${n} must be a postgres:// URL, got another scheme`);
      return v;
    },
    // It usually carries a password.
    { secret: true },
  ),
  setting("host", "INBOXD_HOST", "address every listener binds (default 127.0.0.1)", (e, n) => hostName(e, n, "127.0.0.1")),
  setting("httpPort", "INBOXD_HTTP_PORT", "REST API, web UI, /metrics (default 8025; 0 picks a free port)", (e, n) => port(e, n, 8025)),
  // 1025 as Mailpit and MailDev, so apps configured for them work unchanged.
  setting("smtpPort", "INBOXD_SMTP_PORT", "inbound SMTP, STARTTLS offered (default 1025)", (e, n) => port(e, n, 1025)),
  setting("imapPort", "INBOXD_IMAP_PORT", "IMAP over implicit TLS (default 9993)", (e, n) => port(e, n, 9993)),
  setting("pop3Port", "INBOXD_POP3_PORT", "POP3 over implicit TLS (default 9995)", (e, n) => port(e, n, 9995)),
  setting("imapPlainPort", "INBOXD_IMAP_PLAIN_PORT", "plain IMAP port offering STARTTLS (default off)", optionalPort),
  setting("pop3PlainPort", "INBOXD_POP3_PLAIN_PORT", "plain POP3 port offering STLS (default off)", optionalPort),
  setting("lmtpPort", "INBOXD_LMTP_PORT", "LMTP port, RFC 2033 (default off)", optionalPort),
  setting(
    "publicHost",
    "INBOXD_PUBLIC_HOST",
    "host name in inboxes' imap/pop3 blocks and the generated certificate (default localhost)",
    (e, n) => hostName(e, n, "localhost"),
  ),
  setting(
    "publicUrl",
    "INBOXD_PUBLIC_URL",
    "base URL in webhook payloads and the sign-in link (default http://PUBLIC_HOST:HTTP_PORT)",
    baseUrl,
  ),
  setting("mailDomain", "INBOXD_MAIL_DOMAIN", "the shared mail domain (default inboxd.test)", (e, n) =>
    hostName(e, n, "inboxd.test", false),
  ),
  setting(
    "bootstrapKey",
    "INBOXD_BOOTSTRAP_KEY",
    "secret of the bootstrap API key, at least 16 characters (default generated)",
    (e, n) => minLength(e, n, 16),
    {
      secret: true,
    },
  ),
  setting("adminEmail", "INBOXD_ADMIN_EMAIL", "email of the bootstrap owner (default admin@localhost)", (e, n) => {
    const v = str(e, n) ?? "admin@localhost";
    if (!/^[^@\s]+@[^@\s]+$/.test(v)) throw new ConfigError(`${n} is not an email address, got "${v}"`);
    return v.toLowerCase();
  }),
  setting(
    "adminPassword",
    "INBOXD_ADMIN_PASSWORD",
    "password of the bootstrap owner, at least 8 characters (default generated)",
    (e, n) => minLength(e, n, 8),
    {
      secret: true,
    },
  ),
  setting(
    "adminPasswordHash",
    "INBOXD_ADMIN_PASSWORD_HASH",
    "the bootstrap owner's password as an argon2id or bcrypt hash (PHC string), instead of INBOXD_ADMIN_PASSWORD",
    (e, n) => {
      const v = str(e, n);
      if (v !== null && !PASSWORD_HASH.test(v)) {
        throw new ConfigError(`${n} must be an argon2 ($argon2id$v=19$m=…) or bcrypt ($2b$…) hash`);
      }
      return v;
    },
    { secret: true },
  ),
  setting("signinLink", "INBOXD_SIGNIN_LINK", "print a one-time web UI sign-in link at start-up: on or off (default on)", (e, n) =>
    oneOf(e, n, "on", ["on", "off"] as const),
  ),
  setting("tlsCert", "INBOXD_TLS_CERT", "PEM certificate for IMAP, POP3 and STARTTLS (default generated self-signed)", str),
  setting("tlsKey", "INBOXD_TLS_KEY", "PEM key of INBOXD_TLS_CERT", str),
  setting(
    "secretKey",
    "INBOXD_SECRET_KEY",
    "64 hex characters sealing stored secrets; shared by nodes of one database",
    (e, n) => {
      const v = str(e, n);
      if (v !== null && !/^[0-9a-fA-F]{64}$/.test(v)) throw new ConfigError(`${n} must be 64 hex characters (32 bytes)`);
      return v;
    },
    { secret: true },
  ),
  setting("runWaitCap", "INBOXD_RUN_WAIT_CAP", "cap of `wait` on run launch, seconds (default 60)", (e, n) => int(e, n, 60, 0, 3600)),
  // The contract's plans stay available; the default suits one team on its own machine (docs/plans.md).
  setting("plan", "INBOXD_PLAN", "plan of bootstrapped teams: self-hosted, free, starter, pro, business (default self-hosted)", (e, n) =>
    oneOf(e, n, "self-hosted", ["self-hosted", "free", "starter", "pro", "business"] as const),
  ),
  setting("rateLimitRps", "INBOXD_RATE_LIMIT_RPS", "sustained requests per second per principal (default 100)", (e, n) =>
    int(e, n, 100, 1, 1_000_000),
  ),
  setting("rateLimitBurst", "INBOXD_RATE_LIMIT_BURST", "rate-limit bucket size (default 1000)", (e, n) => int(e, n, 1000, 1, 10_000_000)),
  setting("smtpMaxBytes", "INBOXD_SMTP_MAX_BYTES", "largest message accepted, bytes (default 26214400)", (e, n) =>
    int(e, n, 25 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
  ),
  setting("smtpAuth", "INBOXD_SMTP_AUTH", "SMTP AUTH: any or require (default any)", (e, n) =>
    oneOf(e, n, "any", ["any", "require"] as const),
  ),
  // RFC 5321 §4.5.3.2.7: a server should wait at least 5 minutes for the next command.
  setting("smtpIdleSeconds", "INBOXD_SMTP_IDLE_TIMEOUT", "SMTP/LMTP idle timeout, seconds (default 300)", (e, n) =>
    int(e, n, 300, 1, 86400),
  ),
  setting("smtpMaxConnections", "INBOXD_SMTP_MAX_CONNECTIONS", "open SMTP and LMTP connections (default 1000)", (e, n) =>
    int(e, n, 1000, 1, 1_000_000),
  ),
  setting("pop3IdleSeconds", "INBOXD_POP3_IDLE_TIMEOUT", "POP3 autologout, seconds (default 600)", (e, n) => int(e, n, 600, 1, 86400)),
  setting("pop3MaxConnections", "INBOXD_POP3_MAX_CONNECTIONS", "open POP3 connections (default 1000)", (e, n) =>
    int(e, n, 1000, 1, 1_000_000),
  ),
  setting("pop3MaxPerInbox", "INBOXD_POP3_MAX_PER_INBOX", "POP3 sessions per inbox (default 10)", (e, n) => int(e, n, 10, 1, 10_000)),
  setting("imapIdleSeconds", "INBOXD_IMAP_IDLE_TIMEOUT", "IMAP autologout, seconds (default 1800)", (e, n) => int(e, n, 1800, 1, 86400)),
  setting("imapMaxConnections", "INBOXD_IMAP_MAX_CONNECTIONS", "open IMAP connections (default 1000)", (e, n) =>
    int(e, n, 1000, 1, 1_000_000),
  ),
  setting("imapMaxPerInbox", "INBOXD_IMAP_MAX_PER_INBOX", "IMAP sessions per inbox (default 20)", (e, n) => int(e, n, 20, 1, 10_000)),
  setting(
    "imapViewFillHold",
    "INBOXD_IMAP_VIEW_FILL_HOLD",
    "tests only: a SELECT's view stops filling after this many messages until a command needs more (default 0: off)",
    (e, n) => int(e, n, 0, 0, 1_000_000_000),
  ),
  // Per-client fairness: a tenth of the global connection caps per address, so one client (or NAT)
  // can hold at most a tenth of the slots; IMAP/POP3 count only connections not logged in yet, so a
  // CI host's many logged-in sessions are bounded by the global caps alone.
  // Behind HAProxy (send-proxy-v2) the mail listeners learn the client's address from the
  // balancer's header; only the listed addresses are believed (src/lib/proxy-sources.ts).
  setting(
    "proxyProtocolFrom",
    "INBOXD_PROXY_PROTOCOL_FROM",
    "balancers whose SMTP, LMTP, IMAP and POP3 connections must start with a PROXY protocol header (v1 or v2), comma-separated CIDRs or addresses (default none)",
    (e, n) =>
      list(e, n).map((v) => {
        const range = parseProxySource(v);
        if (!range) throw new ConfigError(`${n} has an invalid entry "${v}" (a CIDR such as 10.0.0.0/8, or an address)`);
        return range;
      }),
  ),
  setting("smtpMaxPerAddress", "INBOXD_SMTP_MAX_PER_ADDRESS", "open SMTP connections from one client address (default 100)", (e, n) =>
    int(e, n, 100, 1, 1_000_000),
  ),
  setting(
    "imapPreauthPerAddress",
    "INBOXD_IMAP_PREAUTH_PER_ADDRESS",
    "IMAP connections not logged in yet from one client address (default 100)",
    (e, n) => int(e, n, 100, 1, 1_000_000),
  ),
  setting(
    "pop3PreauthPerAddress",
    "INBOXD_POP3_PREAUTH_PER_ADDRESS",
    "POP3 connections not logged in yet from one client address (default 100)",
    (e, n) => int(e, n, 100, 1, 1_000_000),
  ),
  setting("imapPreauthSeconds", "INBOXD_IMAP_PREAUTH_TIMEOUT", "seconds from connect to IMAP log-in (default 60)", (e, n) =>
    int(e, n, 60, 1, 86400),
  ),
  setting("pop3PreauthSeconds", "INBOXD_POP3_PREAUTH_TIMEOUT", "seconds from connect to POP3 log-in (default 60)", (e, n) =>
    int(e, n, 60, 1, 86400),
  ),
  setting(
    "loginFailuresPerAccountAddress",
    "INBOXD_LOGIN_FAILURES_PER_ACCOUNT_ADDRESS",
    "failed log-ins of one account from one address before back-off (default 10)",
    (e, n) => int(e, n, 10, 1, 1_000_000),
  ),
  setting(
    "loginFailuresPerAddress",
    "INBOXD_LOGIN_FAILURES_PER_ADDRESS",
    "failed log-ins from one address, any account, before back-off (default 100)",
    (e, n) => int(e, n, 100, 1, 1_000_000),
  ),
  setting(
    "loginFailuresPerAccount",
    "INBOXD_LOGIN_FAILURES_PER_ACCOUNT",
    "failed log-ins of one account, any address, before back-off (default 100)",
    (e, n) => int(e, n, 100, 1, 1_000_000),
  ),
  setting("loginBackoffMs", "INBOXD_LOGIN_BACKOFF_MS", "first log-in lock, milliseconds; doubles per failure (default 1000)", (e, n) =>
    int(e, n, 1000, 1, 3_600_000),
  ),
  setting("loginBackoffMaxSeconds", "INBOXD_LOGIN_BACKOFF_MAX", "longest log-in lock and failure memory, seconds (default 900)", (e, n) =>
    int(e, n, 900, 1, 86400),
  ),
  setting("approvalTtlSeconds", "INBOXD_APPROVAL_TTL", "approval lifetime, seconds (default 86400)", (e, n) =>
    int(e, n, 86400, 1, 365 * 86400),
  ),
  setting("agentSessionTtlSeconds", "INBOXD_AGENT_SESSION_TTL", "agent session lifetime, seconds (default 3600)", (e, n) =>
    int(e, n, 3600, 1, 30 * 86400),
  ),
  setting("domainVerify", "INBOXD_DOMAIN_VERIFY", "check custom domains' DNS: on or off (default on)", (e, n) =>
    oneOf(e, n, "on", ["on", "off"] as const),
  ),
  setting("catchAll", "INBOXD_CATCH_ALL", "mail to unknown addresses goes to the catch-all inbox: on or off (default on)", (e, n) =>
    oneOf(e, n, "on", ["on", "off"] as const),
  ),
  setting(
    "authCheck",
    "INBOXD_AUTH_CHECK",
    "check SPF, DKIM, DMARC and ARC of received mail, after the 250: on or off (default on)",
    (e, n) => oneOf(e, n, "on", ["on", "off"] as const),
  ),
  setting(
    "authCheckTimeoutMs",
    "INBOXD_AUTH_CHECK_TIMEOUT_MS",
    "one message's SPF/DKIM/DMARC/ARC check at most, milliseconds, then temperror (default 15000)",
    (e, n) => int(e, n, 15_000, 100, 100_000),
  ),
  setting(
    "dnsServers",
    "INBOXD_DNS_SERVERS",
    "resolvers for domain checks, SPF/DKIM/DMARC and outbound requests, comma-separated ip or ip:port (default the system's)",
    (e, n) => {
      const servers = list(e, n);
      for (const s of servers) {
        if (!isDnsServer(s)) throw new ConfigError(`${n} has an invalid server "${s}" (IPv4, IPv6, 1.2.3.4:53 or [::1]:53)`);
      }
      return servers;
    },
  ),
  setting("spamd", "INBOXD_SPAMD", "SpamAssassin's spamd as host:port for the spam analysis (default none: 503)", (e, n) => {
    const v = str(e, n);
    if (v === null) return null;
    const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s]+)):(\d{1,5})$/.exec(v);
    const port = m ? Number(m[3]) : 0;
    if (!m || port < 1 || port > 65535) throw new ConfigError(`${n} must be host:port (e.g. 127.0.0.1:783), not "${v}"`);
    return { host: (m[1] ?? m[2])!, port };
  }),
  // Off by default: a mail's links are the sender's choice, and a link to 169.254.169.254 or to
  // an admin page on the LAN must not be fetched by the server (docs/analysis.md, "Links").
  setting(
    "allowInternalHttp",
    "INBOXD_ALLOW_INTERNAL_HTTP",
    "link analysis may request loopback, private and link-local addresses: on or off (default off)",
    (e, n) => oneOf(e, n, "off", ["on", "off"] as const),
  ),
  // A laptop instance (every listener on loopback) serves its own user, who tests apps on
  // localhost: allowed. Bound anywhere else, other people's requests reach the server, and the
  // server's network (metadata, admin pages, databases) must not be theirs: denied.
  setting(
    "egressPrivate",
    "INBOXD_EGRESS_PRIVATE",
    "webhooks, scenario steps and link checks may reach loopback, private, link-local, ULA and metadata addresses: allow or deny (default allow when INBOXD_HOST is loopback, else deny)",
    (e, n) => oneOf(e, n, isLoopbackHost(hostName(e, "INBOXD_HOST", "127.0.0.1")) ? "allow" : "deny", ["allow", "deny"] as const),
  ),
  setting(
    "egressAllow",
    "INBOXD_EGRESS_ALLOW",
    "targets outbound requests may always reach, comma-separated CIDRs or host:port (default none)",
    (e, n) =>
      list(e, n).map((v) => {
        const entry = parseAllowEntry(v);
        if (!entry)
          throw new ConfigError(
            `${n} has an invalid entry "${v}" (a CIDR such as 10.0.0.0/8, an address, or host:port such as 127.0.0.1:8080)`,
          );
        return entry;
      }),
  ),
  setting("linkCheckTimeoutMs", "INBOXD_LINK_CHECK_TIMEOUT_MS", "each request of the link analysis, milliseconds (default 5000)", (e, n) =>
    int(e, n, 5000, 100, 120_000),
  ),
  setting("domainCheckSeconds", "INBOXD_DOMAIN_CHECK_INTERVAL", "re-check of pending domains, seconds (default 300)", (e, n) =>
    int(e, n, 300, 1, 86400),
  ),
  setting("httpPrecompile", "INBOXD_HTTP_PRECOMPILE", "compile every HTTP route at start-up: on or off (default on)", (e, n) =>
    oneOf(e, n, "on", ["on", "off"] as const),
  ),
  setting("sweepIntervalMs", "INBOXD_SWEEP_INTERVAL_MS", "expiry and retention sweep, milliseconds (default 5000)", (e, n) =>
    int(e, n, 5000, 50, 3_600_000),
  ),
  // Parse threads take mail at or above parseInlineBelow (docs/smtp.md, Tuning). Two at least where
  // there are two cores: on 2 cores the main thread parses small mail itself and mostly waits
  // during a burst of large mail, which one thread parsed a message at a time (docs/decisions.md).
  setting(
    "parseWorkers",
    "INBOXD_PARSE_WORKERS",
    "mail-parsing threads, 0 = main thread (default cores-1, at least 2, at most 4)",
    (e, n) => int(e, n, Math.min(4, Math.max(Math.min(2, availableParallelism()), availableParallelism() - 1)), 0, 32),
  ),
  // On two cores the hand-off to a worker costs more than it frees for ordinary mail (docs/smtp.md).
  setting("parseInlineBelow", "INBOXD_PARSE_INLINE_BELOW", "messages smaller than this many bytes are parsed on the main thread", (e, n) =>
    int(e, n, availableParallelism() <= 2 ? 64 * 1024 : 0, 0, 1024 * 1024 * 1024),
  ),
  // Received bytes on their way to a commit: what 40 senders of 24 MB mail at once may occupy
  // (docs/security.md, "Bounded memory"). Above the SMTP limit (26 MiB) so one message always fits.
  setting(
    "inflightBytes",
    "INBOXD_INFLIGHT_BYTES",
    "bytes of received mail in flight at once, beyond it SMTP 452 4.3.1 (default 1073741824)",
    (e, n) => int(e, n, 1024 * 1024 * 1024, 1024, 64 * 1024 * 1024 * 1024),
  ),
  // Each parse thread holds about 3x a message while mailparser works on it (docs/security.md).
  setting("parseBytes", "INBOXD_PARSE_BYTES", "bytes of mail being parsed at once, more waits (default 67108864)", (e, n) =>
    int(e, n, 64 * 1024 * 1024, 1024, 16 * 1024 * 1024 * 1024),
  ),
  setting("webhookTimeoutMs", "INBOXD_WEBHOOK_TIMEOUT_MS", "webhook try timeout, milliseconds (default 10000)", (e, n) =>
    int(e, n, 10_000, 10, 300_000),
  ),
  setting("webhookBackoffBaseMs", "INBOXD_WEBHOOK_BACKOFF_BASE_MS", "first webhook retry delay, milliseconds (default 5000)", (e, n) =>
    int(e, n, 5_000, 1, 3_600_000),
  ),
  setting("webhookConcurrency", "INBOXD_WEBHOOK_CONCURRENCY", "webhook sends in flight (default 32)", (e, n) => int(e, n, 32, 1, 10_000)),
  setting("webhookEndpointConcurrency", "INBOXD_WEBHOOK_ENDPOINT_CONCURRENCY", "tries in flight to one webhook (default 8)", (e, n) =>
    int(e, n, 8, 1, 1_000),
  ),
  setting("webhookMaxAttempts", "INBOXD_WEBHOOK_MAX_ATTEMPTS", "tries per webhook delivery (default 10)", (e, n) => int(e, n, 10, 1, 50)),
  setting("sseHeartbeatMs", "INBOXD_SSE_HEARTBEAT_MS", "comment line on idle SSE streams, milliseconds (default 15000)", (e, n) =>
    int(e, n, 15_000, 10, 3_600_000),
  ),
  setting(
    "deviceIdleSeconds",
    "INBOXD_DEVICE_SESSION_IDLE",
    "a device session unused this long ends, seconds (default 604800: 7 days)",
    (e, n) => int(e, n, 7 * 86400, 1, 365 * 86400),
  ),
  setting(
    "deviceMaxSeconds",
    "INBOXD_DEVICE_SESSION_MAX",
    "a device session ends this long after log-in, seconds (default 2592000: 30 days)",
    (e, n) => int(e, n, 30 * 86400, 1, 3650 * 86400),
  ),
  setting(
    "sessionRecheckMs",
    "INBOXD_SESSION_RECHECK_MS",
    "open SSE streams, MCP sessions and long-polls re-read their credential this often, milliseconds (default 30000)",
    (e, n) => int(e, n, 30_000, 50, 3_600_000),
  ),
  // A revocation clears every node's cache at once through the bus; this bounds what a lost
  // wake-up (a node dying between its commit and its NOTIFY) can leave usable.
  setting(
    "credentialCacheMs",
    "INBOXD_CREDENTIAL_CACHE_MS",
    "how long an API key or device session read from the database is trusted without reading it again, milliseconds (default 5000)",
    (e, n) => int(e, n, 5000, 0, 3_600_000),
  ),
  setting("logLevel", "INBOXD_LOG_LEVEL", "least level logged: trace, debug, info, warn, error, fatal or silent (default info)", (e, n) =>
    oneOf(e, n, "info", LOG_LEVELS),
  ),
  setting("logFormat", "INBOXD_LOG_FORMAT", "log lines as text (one readable line per event) or json (default text)", (e, n) =>
    oneOf(e, n, "text", ["text", "json"] as const),
  ),
] as const;

// Every Config field has a row: tsc names the missing ones here.
type Missing = Exclude<keyof Config, (typeof SETTINGS)[number]["key"]>;
const _everyFieldHasASetting: [Missing] extends [never] ? true : Missing = true;
void _everyFieldHasASetting;

/** `INBOXD_SMTP_PORT` -> `smtp-port` (the flag is `--smtp-port`). */
export function flagOf(envName: string): string {
  return envName
    .replace(/^INBOXD_/, "")
    .toLowerCase()
    .replace(/_/g, "-");
}

/** Checks that involve more than one setting. */
function crossCheck(c: Config): void {
  if (c.adminPassword !== null && c.adminPasswordHash !== null) {
    throw new ConfigError("set INBOXD_ADMIN_PASSWORD or INBOXD_ADMIN_PASSWORD_HASH, not both");
  }
  if ((c.tlsCert === null) !== (c.tlsKey === null)) {
    throw new ConfigError("INBOXD_TLS_CERT and INBOXD_TLS_KEY must be set together");
  }
  // Every listener binds INBOXD_HOST: two on one port would fail after the first start's bootstrap, blaming
  // "another server". 0 (a free port each) may repeat.
  const taken = new Map<number, string>();
  for (const { env, port } of listenerPorts(c)) {
    const other = taken.get(port);
    if (other) throw new ConfigError(`${other} and ${env} are both ${port}: each listener needs a port of its own`);
    taken.set(port, env);
  }
}

/** The listeners' fixed ports, with their settings (a port of 0 or off has none). */
export function listenerPorts(c: Config): Array<{ env: string; port: number }> {
  const out: Array<{ env: string; port: number }> = [];
  for (const s of SETTINGS) {
    const port = s.env.endsWith("_PORT") ? c[s.key] : null;
    if (typeof port === "number" && port !== 0) out.push({ env: s.env, port });
  }
  return out;
}

export function loadConfig(env: Env = process.env): Config {
  const out: Record<string, unknown> = {};
  for (const s of SETTINGS) out[s.key] = s.read(env, s.env);
  const config = out as unknown as Config;
  crossCheck(config);
  return config;
}

/** The log-in back-off settings as lib/login-throttle.ts takes them. */
export function loginLimits(c: Config): LoginLimits {
  return {
    perAccountAddress: c.loginFailuresPerAccountAddress,
    perAddress: c.loginFailuresPerAddress,
    perAccount: c.loginFailuresPerAccount,
    backoffMs: c.loginBackoffMs,
    maxBackoffMs: c.loginBackoffMaxSeconds * 1000,
  };
}
