// EXAMINE (RFC 3501 §6.3.2): SELECT without the right to change anything (\Seen included).
import { openMailbox } from "./select";
import { AUTHED, type CommandDef } from "./types";

export default {
  names: ["EXAMINE"],
  states: AUTHED,
  run: (s, c) => openMailbox(s, c, true),
} satisfies CommandDef;
