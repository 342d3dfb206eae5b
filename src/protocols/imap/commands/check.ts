// CHECK (RFC 3501 §6.4.1): every change is already durable; CHECK re-reads the whole mailbox
// (NOOP only looks at what the bus reported).
import { SELECTED, type CommandDef } from "./types";

export default {
  names: ["CHECK"],
  states: SELECTED,
  async run(s) {
    s.markDirty(true);
    return "OK CHECK completed";
  },
} satisfies CommandDef;
