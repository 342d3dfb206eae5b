// NOOP (RFC 3501 §6.1.2): the way a client polls; reports what changed since the last reply.
import { ANY, type CommandDef } from "./types";

export default {
  names: ["NOOP"],
  states: ANY,
  async run(s) {
    s.markDirty();
    return "OK NOOP completed";
  },
} satisfies CommandDef;
