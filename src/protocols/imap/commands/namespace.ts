// NAMESPACE (RFC 2342): one personal namespace, no others.
import { AUTHED, type CommandDef } from "./types";

export default {
  names: ["NAMESPACE"],
  states: AUTHED,
  async run(s) {
    await s.write('* NAMESPACE (("" "/")) NIL NIL\r\n');
    return "OK NAMESPACE completed";
  },
} satisfies CommandDef;
