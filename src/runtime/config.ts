// Every setting comes from the environment (Mailpit-style), validated once at start.
// A bad value stops start-up with one line naming the variable.
import { isIP } from "node:net";
import { availableParallelism } from "node:os";
import { LOG_LEVELS, type LogFormat, type LogLevel } from "../lib/log";

export type PlanSlug = "self-hosted" | "free" | "starter" | "pro" | "business";

export interface Config {
  dataDir: string;
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
  publicHost: string;
  mailDomain: string;
  bootstrapKey: string | null;
  adminEmail: string;
  adminPassword: string | null;
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
  /** Optional LMTP port (RFC 2033); null = off. */
  lmtpPort: number | null;
  secretKey: string | null;
  approvalTtlSeconds: number;
  agentSessionTtlSeconds: number;
  domainVerify: "on" | "off";
  /** Mail to an address no inbox has goes to the catch-all inbox (on) or is refused with 550 (off). */
  catchAll: "on" | "off";
  /** Resolvers for domain verification, each "ip" or "ip:port" ("[v6]:port"); empty = the system's. */
  dnsServers: string[];
  /** How often the scheduler re-checks a pending domain's DNS records. */
  domainCheckSeconds: number;
  /** How often expiry and retention sweep (INBOXD_SWEEP_INTERVAL_MS; tests shorten it). */
  sweepIntervalMs: number;
  /** Worker threads that parse received mail (INBOXD_PARSE_WORKERS; 0 = in the main thread). */
  parseWorkers: number;
  /** Messages smaller than this many bytes are parsed on the main thread (INBOXD_PARSE_INLINE_BELOW). */
  parseInlineBelow: number;
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
  /** Operational log: least level written, and text (one readable line per event) or json (docs/operations.md). */
  logLevel: LogLevel;
  logFormat: LogFormat;
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

function hostName(env: Env, name: string, def: string): string {
  const raw = env[name];
  if (raw === undefined || raw === "") return def;
  if (!/^[A-Za-z0-9.\-:[\]]+$/.test(raw)) throw new ConfigError(`${name} is not a valid host, got "${raw}"`);
  return raw.toLowerCase();
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

export function loadConfig(env: Env = process.env): Config {
  const bootstrapKey = str(env, "INBOXD_BOOTSTRAP_KEY");
  if (bootstrapKey !== null && bootstrapKey.length < 16) {
    throw new ConfigError("INBOXD_BOOTSTRAP_KEY must be at least 16 characters");
  }
  const adminEmail = str(env, "INBOXD_ADMIN_EMAIL") ?? "admin@localhost";
  if (!/^[^@\s]+@[^@\s]+$/.test(adminEmail)) {
    throw new ConfigError(`INBOXD_ADMIN_EMAIL is not an email address, got "${adminEmail}"`);
  }
  const adminPassword = str(env, "INBOXD_ADMIN_PASSWORD");
  if (adminPassword !== null && adminPassword.length < 8) {
    throw new ConfigError("INBOXD_ADMIN_PASSWORD must be at least 8 characters");
  }
  const tlsCert = str(env, "INBOXD_TLS_CERT");
  const tlsKey = str(env, "INBOXD_TLS_KEY");
  if ((tlsCert === null) !== (tlsKey === null)) {
    throw new ConfigError("INBOXD_TLS_CERT and INBOXD_TLS_KEY must be set together");
  }
  const secretKey = str(env, "INBOXD_SECRET_KEY");
  if (secretKey !== null && !/^[0-9a-fA-F]{64}$/.test(secretKey)) {
    throw new ConfigError("INBOXD_SECRET_KEY must be 64 hex characters (32 bytes)");
  }
  const dns = str(env, "INBOXD_DNS_SERVERS");
  const dnsServers = dns
    ? dns
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
  for (const s of dnsServers) {
    if (!isDnsServer(s)) {
      throw new ConfigError(`INBOXD_DNS_SERVERS has an invalid server "${s}" (IPv4, IPv6, 1.2.3.4:53 or [::1]:53)`);
    }
  }
  return {
    dataDir: str(env, "INBOXD_DATA_DIR") ?? "./data",
    host: hostName(env, "INBOXD_HOST", "127.0.0.1"),
    httpPort: port(env, "INBOXD_HTTP_PORT", 8025),
    // 1025 as Mailpit and MailDev, so apps configured for them work unchanged.
    smtpPort: port(env, "INBOXD_SMTP_PORT", 1025),
    imapPort: port(env, "INBOXD_IMAP_PORT", 9993),
    pop3Port: port(env, "INBOXD_POP3_PORT", 9995),
    imapPlainPort: optionalPort(env, "INBOXD_IMAP_PLAIN_PORT"),
    pop3PlainPort: optionalPort(env, "INBOXD_POP3_PLAIN_PORT"),
    pop3IdleSeconds: int(env, "INBOXD_POP3_IDLE_TIMEOUT", 600, 1, 86400),
    pop3MaxConnections: int(env, "INBOXD_POP3_MAX_CONNECTIONS", 1000, 1, 1_000_000),
    pop3MaxPerInbox: int(env, "INBOXD_POP3_MAX_PER_INBOX", 10, 1, 10_000),
    imapIdleSeconds: int(env, "INBOXD_IMAP_IDLE_TIMEOUT", 1800, 1, 86400),
    imapMaxConnections: int(env, "INBOXD_IMAP_MAX_CONNECTIONS", 1000, 1, 1_000_000),
    imapMaxPerInbox: int(env, "INBOXD_IMAP_MAX_PER_INBOX", 20, 1, 10_000),
    publicHost: hostName(env, "INBOXD_PUBLIC_HOST", "localhost"),
    mailDomain: hostName(env, "INBOXD_MAIL_DOMAIN", "inboxd.test"),
    bootstrapKey,
    adminEmail: adminEmail.toLowerCase(),
    adminPassword,
    tlsCert,
    tlsKey,
    runWaitCap: int(env, "INBOXD_RUN_WAIT_CAP", 60, 0, 3600),
    // The contract's plans stay available; the default suits one team on its own machine (docs/plans.md).
    plan: oneOf(env, "INBOXD_PLAN", "self-hosted", ["self-hosted", "free", "starter", "pro", "business"] as const),
    rateLimitRps: int(env, "INBOXD_RATE_LIMIT_RPS", 100, 1, 1_000_000),
    rateLimitBurst: int(env, "INBOXD_RATE_LIMIT_BURST", 1000, 1, 10_000_000),
    smtpMaxBytes: int(env, "INBOXD_SMTP_MAX_BYTES", 25 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    smtpAuth: oneOf(env, "INBOXD_SMTP_AUTH", "any", ["any", "require"] as const),
    // RFC 5321 §4.5.3.2.7: a server should wait at least 5 minutes for the next command.
    smtpIdleSeconds: int(env, "INBOXD_SMTP_IDLE_TIMEOUT", 300, 1, 86400),
    smtpMaxConnections: int(env, "INBOXD_SMTP_MAX_CONNECTIONS", 1000, 1, 1_000_000),
    lmtpPort: optionalPort(env, "INBOXD_LMTP_PORT"),
    secretKey,
    approvalTtlSeconds: int(env, "INBOXD_APPROVAL_TTL", 86400, 1, 365 * 86400),
    agentSessionTtlSeconds: int(env, "INBOXD_AGENT_SESSION_TTL", 3600, 1, 30 * 86400),
    domainVerify: oneOf(env, "INBOXD_DOMAIN_VERIFY", "on", ["on", "off"] as const),
    catchAll: oneOf(env, "INBOXD_CATCH_ALL", "on", ["on", "off"] as const),
    dnsServers,
    domainCheckSeconds: int(env, "INBOXD_DOMAIN_CHECK_INTERVAL", 300, 1, 86400),
    sweepIntervalMs: int(env, "INBOXD_SWEEP_INTERVAL_MS", 5000, 50, 3_600_000),
    // Parse threads take mail at or above parseInlineBelow (docs/smtp.md, Tuning).
    parseWorkers: int(env, "INBOXD_PARSE_WORKERS", Math.max(1, Math.min(4, availableParallelism() - 1)), 0, 32),
    // On two cores the hand-off to a worker costs more than it frees for ordinary mail (docs/smtp.md).
    parseInlineBelow: int(env, "INBOXD_PARSE_INLINE_BELOW", availableParallelism() <= 2 ? 64 * 1024 : 0, 0, 1024 * 1024 * 1024),
    publicUrl: str(env, "INBOXD_PUBLIC_URL")?.replace(/\/+$/, "") ?? null,
    webhookTimeoutMs: int(env, "INBOXD_WEBHOOK_TIMEOUT_MS", 10_000, 10, 300_000),
    webhookBackoffBaseMs: int(env, "INBOXD_WEBHOOK_BACKOFF_BASE_MS", 5_000, 1, 3_600_000),
    webhookConcurrency: int(env, "INBOXD_WEBHOOK_CONCURRENCY", 32, 1, 10_000),
    webhookEndpointConcurrency: int(env, "INBOXD_WEBHOOK_ENDPOINT_CONCURRENCY", 8, 1, 1_000),
    webhookMaxAttempts: int(env, "INBOXD_WEBHOOK_MAX_ATTEMPTS", 10, 1, 50),
    sseHeartbeatMs: int(env, "INBOXD_SSE_HEARTBEAT_MS", 15_000, 10, 3_600_000),
    logLevel: oneOf(env, "INBOXD_LOG_LEVEL", "info", LOG_LEVELS),
    logFormat: oneOf(env, "INBOXD_LOG_FORMAT", "text", ["text", "json"] as const),
  };
}
