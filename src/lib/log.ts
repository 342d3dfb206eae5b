// The operational log: one line per event, with a level, on stdout (pino).
//
// INBOXD_LOG_FORMAT=text (the default, on a TTY or not: `docker logs` and CI logs are read by people)
// writes `2026-01-02T03:04:05.678Z INFO  smtp transaction from=a@b to=c@d size=312 code=250 …`;
// json writes pino's records ({"level":30,"time":…,"msg":"smtp transaction",…}) for a log collector.
// Secrets never reach a line: callers log no passwords, keys or tokens, and the fields below are
// censored anyway should one slip into a record.
import pino, { type Logger } from "pino";

export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "silent";
export const LOG_LEVELS: readonly LogLevel[] = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];
export type LogFormat = "text" | "json";

/**
 * Field names whose values are never written. Top-level fields only: callers log flat records, and
 * wildcard paths (`*.password`) cost ~7 µs per line, a tenth of an SMTP transaction's main-thread time.
 */
const REDACT = ["password", "pass", "secret", "token", "authorization", "api_key", "apiKey", "key"];

const LEVEL_NAMES: Record<number, string> = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL" };

/** A value as it stands in a text line: bare when it has no blank, quote or `=`, JSON-quoted otherwise; a list comma-separated. */
function textValue(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x !== "object")) return v.length === 0 ? '""' : v.map(textValue).join(",");
  if (typeof v === "object") return JSON.stringify(v);
  const s = String(v);
  return s !== "" && /^[^\s"=]+$/.test(s) ? s : JSON.stringify(s);
}

/** pino record (JSON text) → one readable line. An error shows as its code and message (json keeps the stack). */
export function textLine(record: string): string {
  const r = JSON.parse(record) as Record<string, unknown>;
  const { level, time, msg, ...fields } = r;
  const head = `${new Date(Number(time)).toISOString()} ${(LEVEL_NAMES[Number(level)] ?? String(level)).padEnd(5)} ${String(msg ?? "")}`;
  const rest = Object.entries(fields).map(([k, v]) => `${k}=${textValue(k === "err" && v && typeof v === "object" ? errText(v) : v)}`);
  return `${[head, ...rest].join(" ")}\n`;
}

const REDACTED = new Set(REDACT);

/** A field value the text line shows as textLine would after pino's JSON: a primitive or a list of them. */
function plain(v: unknown): boolean {
  const t = typeof v;
  if (t === "string" || t === "boolean" || v === null || v === undefined) return true;
  if (t === "number") return Number.isFinite(v);
  return Array.isArray(v) && v.every((x) => typeof x === "string" || (typeof x === "number" && Number.isFinite(x)));
}

/**
 * Text format without the JSON round trip (pino's record, parsed back by textLine): a line of flat
 * fields is written as it is. Per SMTP transaction this was ~15-25 µs of the event loop
 * (docs/benchmarks.md, 2026-11-24). Anything else (an error, a nested value, format arguments)
 * takes pino's path, so both produce the same line.
 */
function textFastPath(dest: { write(s: string): unknown }) {
  return function (this: Logger, args: unknown[], method: (...a: unknown[]) => void, level: number): void {
    const [first, second] = args;
    let fields: Record<string, unknown> | null = null;
    let msg: string;
    if (args.length === 1 && typeof first === "string") msg = first;
    else if (
      args.length === 2 &&
      typeof second === "string" &&
      first !== null &&
      typeof first === "object" &&
      Object.getPrototypeOf(first) === Object.prototype
    ) {
      fields = first as Record<string, unknown>;
      msg = second;
      for (const k in fields) if (k === "err" || !plain(fields[k])) return method.apply(this, args);
    } else return method.apply(this, args);
    if (msg.includes("%")) return method.apply(this, args);
    let line = `${new Date().toISOString()} ${(LEVEL_NAMES[level] ?? String(level)).padEnd(5)} ${msg}`;
    if (fields)
      for (const k in fields) {
        const v = fields[k];
        if (v !== undefined) line += ` ${k}=${REDACTED.has(k) ? "[redacted]" : textValue(v)}`;
      }
    dest.write(`${line}\n`);
  };
}

function errText(e: object): string {
  const o = e as { message?: string; code?: string; stack?: string };
  return [o.code, o.message].filter(Boolean).join(" ") || JSON.stringify(e);
}

/** Where the process's logger writes (the last one createLogger made). */
let destination: ReturnType<typeof pino.destination> | null = null;

export function createLogger(level: LogLevel, format: LogFormat, fd = 1): Logger {
  // Asynchronous writes: lines logged while a write is in flight leave together (one write(2) for
  // many under load instead of one each, ~9 µs a line on the main thread). Flushed at exit.
  const dest = pino.destination({ dest: fd, sync: false });
  destination = dest;
  process.once("exit", () => {
    try {
      dest.flushSync();
    } catch {
      // nothing left to write, or stdout already gone
    }
  });
  const stream = format === "json" ? dest : { write: (s: string) => void dest.write(textLine(s)) };
  return pino(
    {
      level,
      base: undefined,
      ...(format === "text" ? { hooks: { logMethod: textFastPath(dest) } } : {}),
      redact: { paths: REDACT, censor: "[redacted]" },
      serializers: { err: pino.stdSerializers.err },
    },
    stream,
  );
}

/**
 * The process's logger. Start-up configures it once (configureLog); until then it logs at info in
 * text. Importers see the configured one (an ES module's `let` export is a live binding).
 */
export let log: Logger = createLogger("info", "text");

export function configureLog(level: LogLevel, format: LogFormat): Logger {
  log = createLogger(level, format);
  return log;
}

/** The host of a URL (webhook endpoints are logged by host: their path or query may carry a token). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "invalid-url";
  }
}

/**
 * Ends the log once its last lines are written (`inboxd serve`, after the shutdown, before the
 * process exits): the flush at exit could not write a line whose asynchronous write was still
 * queued, and "stopped" went missing now and then. Nothing may be logged after it. Bounded: it
 * never holds the exit for longer than `timeoutMs`.
 */
export function drainLog(timeoutMs = 2000): Promise<void> {
  const d = destination;
  if (!d) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    d.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
    d.end();
  });
}
