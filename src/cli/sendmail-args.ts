// The option spellings of the sendmail command line that programs use (PHP's mail(), cron, mailx,
// Postfix's and Sendmail's own conventions), rewritten to our flags before the strict parser sees
// them: a value attached to its letter (`-fbounce@x`, `-FCron`), letters run together (`-ti`), and
// options that only concern a real MTA's queue or logging, accepted and ignored as Mailpit does.
import { UsageError } from "./args";

/** Letters that take a value, attached or as the next argument; null: accepted and ignored. */
const WITH_VALUE: Record<string, string | null> = {
  f: "--from",
  r: "--from", // the old name of -f
  F: "--full-name",
  B: null, // body type (7BIT, 8BITMIME)
  N: null, // DSN notify
  R: null, // DSN return
  V: null, // envelope id
  X: null, // log file
  C: null, // configuration file
  L: null, // syslog label
  O: null, // option=value
  p: null, // protocol
  q: null, // queue interval
};
/** Switches, alone or run together. */
const SWITCHES: Record<string, string | null> = { t: "--read-headers", i: "--ignore-dots", v: null, m: null, n: null, U: null, G: null };

export function sendmailArgs(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      out.push(...argv.slice(i));
      break;
    }
    if (!a.startsWith("-") || a.startsWith("--") || a === "-") {
      out.push(a);
      continue;
    }
    const letter = a[1]!;
    // -o<letter>[value]: a configuration option; -oi is -i, the rest concern a real MTA.
    if (letter === "o") {
      if (a === "-oi") out.push("--ignore-dots");
      continue;
    }
    // -b<mode>: only the default mode, deliver a message read on stdin (-bm), is ours.
    if (letter === "b") {
      if (a !== "-bm") throw new UsageError(`${a}: only -bm (deliver the message on stdin) is supported`);
      continue;
    }
    if (letter in WITH_VALUE) {
      const value = a.length > 2 ? a.slice(2) : argv[++i];
      if (value === undefined) throw new UsageError(`${a} needs a value`);
      const flag = WITH_VALUE[letter];
      if (flag) out.push(flag, value);
      continue;
    }
    const letters = [...a.slice(1)];
    if (letters.every((l) => l in SWITCHES)) {
      for (const l of letters) {
        const flag = SWITCHES[l];
        if (flag) out.push(flag);
      }
      continue;
    }
    // Anything else reaches the strict parser, which names it.
    out.push(a);
  }
  return out;
}
