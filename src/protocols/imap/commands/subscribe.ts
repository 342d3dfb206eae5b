// SUBSCRIBE / UNSUBSCRIBE (RFC 3501 §6.3.6-7): INBOX is permanently subscribed; clients that
// manage subscriptions get an OK for it and NONEXISTENT for anything else.
import { astring } from "../parser/tokens";
import { AUTHED, type CommandDef } from "./types";

export default {
  names: ["SUBSCRIBE", "UNSUBSCRIBE"],
  states: AUTHED,
  async run(_s, c) {
    const name = astring(c.args[0], "mailbox");
    if (name.toUpperCase() !== "INBOX") return "NO [NONEXISTENT] Only INBOX exists";
    return `OK ${c.name} completed`;
  },
} satisfies CommandDef;
