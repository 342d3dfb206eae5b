// SUBSCRIBE / UNSUBSCRIBE (RFC 3501 §6.3.6-7): a flag on the mailbox; INBOX is always subscribed.
import { folderReply, mailboxName } from "../folders";
import { AUTHED, type CommandDef } from "./types";

export default {
  names: ["SUBSCRIBE", "UNSUBSCRIBE"],
  states: AUTHED,
  async run(s, c) {
    if (c.args.length !== 1) return `BAD ${c.name} takes one mailbox name`;
    const name = mailboxName(c.args[0]);
    return folderReply(`OK ${c.name} completed`, () => s.services.folders.subscribe(s.inbox!, name, c.name === "SUBSCRIBE"));
  },
} satisfies CommandDef;
