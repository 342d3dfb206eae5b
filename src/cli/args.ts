// Strict command-line parsing: every flag a command takes is declared, anything else is refused
// with a message naming it (exit 2). The settings of src/runtime/config.ts are flags too:
// INBOXD_SMTP_PORT <-> --smtp-port (flagOf), a flag winning over the environment, as Mailpit does.
import { flagOf, SETTINGS } from "../runtime/config";

export class UsageError extends Error {}

export interface FlagSpec {
  /** Placeholder of the value (`--email E`); absent for a switch. */
  value?: string;
  help: string;
  /** Single-letter or sendmail-style spellings (`-f`, `-oi`). */
  aliases?: string[];
}

export interface Parsed {
  /** Own flags by name (switches are "true"). */
  flags: Record<string, string>;
  /** Settings given as flags, as environment entries (INBOXD_SMTP_PORT: "2525"). */
  settings: Record<string, string>;
  positionals: string[];
  help: boolean;
  version: boolean;
}

const SETTING_BY_FLAG = new Map(SETTINGS.map((s) => [flagOf(s.env), s.env]));

export function parseArgs(argv: string[], own: Record<string, FlagSpec>, acceptsSettings: boolean): Parsed {
  const out: Parsed = { flags: {}, settings: {}, positionals: [], help: false, version: false };
  const aliases = new Map<string, string>();
  for (const [name, spec] of Object.entries(own)) for (const a of spec.aliases ?? []) aliases.set(a, name);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      out.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (a === "--help" || a === "-h") {
      out.help = true;
      continue;
    }
    if (a === "--version") {
      out.version = true;
      continue;
    }
    if (!a.startsWith("-") || a === "-") {
      out.positionals.push(a);
      continue;
    }
    const eq = a.startsWith("--") ? a.indexOf("=") : -1;
    const spelled = eq > 0 ? a.slice(0, eq) : a;
    const name = aliases.get(spelled) ?? (spelled.startsWith("--") ? spelled.slice(2) : null);
    const spec = name !== null ? own[name] : undefined;
    const settingEnv = name !== null && acceptsSettings && !spec ? SETTING_BY_FLAG.get(name) : undefined;
    if (!spec && !settingEnv) throw new UsageError(`unknown flag ${spelled}`);
    const takesValue = settingEnv !== undefined || spec?.value !== undefined;
    let value: string;
    if (!takesValue) {
      if (eq > 0) throw new UsageError(`${spelled} takes no value`);
      value = "true";
    } else if (eq > 0) {
      value = a.slice(eq + 1);
    } else {
      const next = argv[i + 1];
      if (next === undefined) throw new UsageError(`${spelled} needs a value`);
      value = next;
      i++;
    }
    if (settingEnv) out.settings[settingEnv] = value;
    else out.flags[name!] = value;
  }
  return out;
}

/** The help lines of a command's own flags. */
export function flagLines(own: Record<string, FlagSpec>): string[] {
  return Object.entries(own).map(([name, spec]) => {
    const spelled = [`--${name}`, ...(spec.aliases ?? [])].join(", ") + (spec.value ? ` ${spec.value}` : "");
    return `  ${spelled.padEnd(30)} ${spec.help}`;
  });
}

/** The help lines of every setting: flag, variable, meaning. */
export function settingLines(): string[] {
  return SETTINGS.map(
    (s) => `  --${flagOf(s.env)} VALUE`.padEnd(40) + ` ${s.env}: ${s.help}${s.secret ? " [secret: prefer the variable]" : ""}`,
  );
}
