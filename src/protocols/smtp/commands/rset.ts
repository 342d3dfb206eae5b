// RSET (RFC 5321 §4.1.1.5): drop the transaction, keep the greeting and the log-in.
import type { CommandDef } from "./types";
import { ANY } from "./types";

export default {
  verbs: ["RSET"],
  states: ANY,
  run(s) {
    s.resetTransaction();
    if (s.state !== "fresh") s.state = "greeted";
    s.reply("250 2.0.0 Flushed");
  },
} satisfies CommandDef;
