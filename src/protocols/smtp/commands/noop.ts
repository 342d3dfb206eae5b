// NOOP, HELP and VRFY (RFC 5321 §4.1.1.6-4.1.1.10): harmless in every state. VRFY does not tell
// which addresses exist (252: try RCPT).
import type { CommandDef } from "./types";
import { ANY } from "./types";

export default {
  verbs: ["NOOP", "HELP", "VRFY"],
  states: ANY,
  run(s, c) {
    if (c.verb === "HELP") return s.reply("214 2.0.0 See https://www.rfc-editor.org/rfc/rfc5321 for details");
    if (c.verb === "VRFY") return s.reply("252 2.5.2 Cannot VRFY user; try RCPT to attempt delivery");
    s.reply("250 2.0.0 OK");
  },
} satisfies CommandDef;
