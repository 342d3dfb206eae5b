// What a command handler is: the session states that allow it, and a function that does the
// work (writing untagged responses through the session) and returns the tagged reply's text.
import type { Command } from "../parser/tokens";
import type { Session } from "../session";

export type SessionState = "not-authenticated" | "authenticated" | "selected";

export const ANY: SessionState[] = ["not-authenticated", "authenticated", "selected"];
export const AUTHED: SessionState[] = ["authenticated", "selected"];
export const SELECTED: SessionState[] = ["selected"];

export interface CommandDef {
  /** Names it answers to, e.g. ["FETCH", "UID FETCH"]. */
  names: string[];
  states: SessionState[];
  /** Returns e.g. "OK FETCH completed" (the tag is added by the session). */
  run(s: Session, c: Command): Promise<string>;
}

/** What Session.readLine hands a command that takes refused lines, for a line the framer refused (too long). */
export const REFUSED_LINE = Buffer.alloc(0);
