// QUIT (RFC 5321 §4.1.1.10): 221, then the connection closes.
import type { CommandDef } from "./types";
import { ANY } from "./types";

export default {
  verbs: ["QUIT"],
  states: ANY,
  run(s) {
    s.reply("221 2.0.0 Bye");
    s.close();
  },
} satisfies CommandDef;
