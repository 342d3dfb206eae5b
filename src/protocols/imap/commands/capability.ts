// CAPABILITY (RFC 3501 §6.1.1).
import { ANY, type CommandDef } from "./types";

export default {
  names: ["CAPABILITY"],
  states: ANY,
  async run(s, c) {
    if (c.args.length) return "BAD CAPABILITY takes no arguments";
    await s.write(`* CAPABILITY ${s.capabilities().join(" ")}\r\n`);
    return "OK CAPABILITY completed";
  },
} satisfies CommandDef;
