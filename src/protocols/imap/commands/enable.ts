// ENABLE (RFC 5161): no extension here needs enabling, so none is reported as enabled.
import { AUTHED, type CommandDef } from "./types";

export default {
  names: ["ENABLE"],
  states: AUTHED,
  async run(s, c) {
    if (c.args.length === 0) return "BAD ENABLE needs at least one capability";
    if (c.args.some((a) => a.t !== "atom")) return "BAD ENABLE takes capability names";
    await s.write("* ENABLED\r\n");
    return "OK ENABLE completed";
  },
} satisfies CommandDef;
