// CLOSE (RFC 3501 §6.4.2): silently expunges \Deleted messages (unless read-only) and deselects.
import { expungeDeleted } from "./expunge";
import { SELECTED, type CommandDef } from "./types";

export default {
  names: ["CLOSE"],
  states: SELECTED,
  async run(s) {
    if (!s.mailbox!.readOnly) await expungeDeleted(s, null, false);
    s.mailbox = null;
    s.state = "authenticated";
    return "OK CLOSE completed";
  },
} satisfies CommandDef;
