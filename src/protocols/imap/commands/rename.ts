// RENAME (RFC 3501 §6.3.5): the mailbox and those under it; RENAME INBOX moves INBOX's messages
// to a new mailbox and leaves INBOX empty.
import { folderReply, mailboxName } from "../folders";
import { AUTHED, type CommandDef } from "./types";

export default {
  names: ["RENAME"],
  states: AUTHED,
  async run(s, c) {
    if (c.args.length !== 2) return "BAD RENAME takes the old and the new mailbox name";
    const from = mailboxName(c.args[0]);
    const to = mailboxName(c.args[1]);
    return folderReply("OK RENAME completed", async () => {
      await s.services.folders.rename(s.inbox!, from, to);
      // RENAME INBOX emptied the selected INBOX: the full refresh announces the EXPUNGEs.
      if (s.mailbox && s.mailbox.folderId === null && from.toUpperCase() === "INBOX") s.markDirty(true);
    });
  },
} satisfies CommandDef;
