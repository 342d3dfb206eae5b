// CHECK (RFC 3501 §6.4.1): every change is already durable, so only the mailbox is re-read.
import { SELECTED, type CommandDef } from "./types";

export default {
  names: ["CHECK"],
  states: SELECTED,
  async run(s) {
    s.markDirty();
    return "OK CHECK completed";
  },
} satisfies CommandDef;
