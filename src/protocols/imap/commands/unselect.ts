// UNSELECT (RFC 3691): deselects without expunging.
import { SELECTED, type CommandDef } from "./types";

export default {
  names: ["UNSELECT"],
  states: SELECTED,
  async run(s) {
    s.mailbox = null;
    s.state = "authenticated";
    return "OK UNSELECT completed";
  },
} satisfies CommandDef;
