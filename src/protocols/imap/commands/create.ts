// CREATE (RFC 3501 §6.3.3): the mailbox and the levels above it that are missing.
import { folderReply, mailboxName } from "../folders";
import { AUTHED, type CommandDef } from "./types";

export default {
  names: ["CREATE"],
  states: AUTHED,
  async run(s, c) {
    // CREATE-SPECIAL-USE's "(USE (...))" is not offered: one mailbox name only.
    if (c.args.length !== 1) return "BAD CREATE takes one mailbox name";
    const name = mailboxName(c.args[0]);
    return folderReply("OK CREATE completed", () => s.services.folders.create(s.inbox!, name));
  },
} satisfies CommandDef;
