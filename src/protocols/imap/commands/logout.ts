// LOGOUT (RFC 3501 §6.1.3): BYE, then the tagged OK, then the connection ends.
import { ANY, type CommandDef } from "./types";

export default {
  names: ["LOGOUT"],
  states: ANY,
  async run(s) {
    await s.write("* BYE inboxd logging out\r\n");
    s.state = "logout";
    return "OK LOGOUT completed";
  },
} satisfies CommandDef;
