// Mailbox-changing commands of RFC 3501 that make no sense for a single, service-fed INBOX:
// answered with NO so that clients (which try e.g. CREATE "Trash") carry on.
import { AUTHED, type CommandDef } from "./types";

export default {
  names: ["CREATE", "DELETE", "RENAME", "APPEND", "COPY", "UID COPY", "MOVE", "UID MOVE"],
  states: AUTHED,
  async run(_s, c) {
    return `NO [CANNOT] ${c.name} is not supported: the only mailbox is INBOX, filled by SMTP`;
  },
} satisfies CommandDef;
