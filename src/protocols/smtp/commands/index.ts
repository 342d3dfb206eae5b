// The command table: one file per command, looked up by verb.
import type { CommandDef } from "./types";
import helo from "./helo";
import mail from "./mail";
import rcpt from "./rcpt";
import data from "./data";
import bdat from "./bdat";
import rset from "./rset";
import noop from "./noop";
import quit from "./quit";
import starttls from "./starttls";
import auth from "./auth";

export type { CommandDef, SmtpState } from "./types";

const all: CommandDef[] = [helo, mail, rcpt, data, bdat, rset, noop, quit, starttls, auth];

export const commands = new Map<string, CommandDef>();
for (const def of all) for (const v of def.verbs) commands.set(v, def);
