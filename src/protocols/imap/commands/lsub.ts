// LSUB (RFC 3501 §6.3.9): LIST of the subscribed mailboxes (INBOX always is).
import { listing } from "./list";
import { AUTHED, type CommandDef } from "./types";

export default {
  names: ["LSUB"],
  states: AUTHED,
  run: (s, c) => listing(s, c, "LSUB"),
} satisfies CommandDef;
