// DELETE (RFC 3501 §6.3.4): the mailbox and its messages; never INBOX.
import { folderReply, mailboxName } from "../folders";
import { AUTHED, type CommandDef } from "./types";

export default {
  names: ["DELETE"],
  states: AUTHED,
  async run(s, c) {
    if (c.args.length !== 1) return "BAD DELETE takes one mailbox name";
    const name = mailboxName(c.args[0]);
    return folderReply("OK DELETE completed", () => s.services.folders.remove(s.inbox!, name));
  },
} satisfies CommandDef;
