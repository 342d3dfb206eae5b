// MOVE and UID MOVE (RFC 6851): COPY, then the sources leave through the one removal path, with
// the COPYUID as an untagged OK before their EXPUNGEs (RFC 6851 §4.3).
import { folderReply } from "../folders";
import { copyTo } from "./copy";
import { SELECTED, type CommandDef } from "./types";

export default {
  names: ["MOVE", "UID MOVE"],
  states: SELECTED,
  async run(s, c) {
    if (c.args.length !== 2) return `BAD ${c.name} takes a sequence set and a mailbox name`;
    const mb = s.mailbox!;
    if (mb.readOnly) return "NO [READ-ONLY] The mailbox is open read-only (EXAMINE)";
    return folderReply(`OK ${c.name} completed`, async () => {
      // A move adds nothing to the storage used once done: no quota check.
      const { code, moved } = await copyTo(s, c, false);
      if (moved.length === 0) return;
      await s.write(`* OK ${code} Moved\r\n`);
      await mb.withDetails(moved);
      await s.services.removal.deleteMessages(
        s.inbox!.projectId,
        moved.filter((m) => mb.detailsOf(m.uid)).map((m) => m.id),
      );
      for (const m of moved) m.gone = true;
      for (const l of mb.dropGone()) await s.write(`${l}\r\n`);
    });
  },
} satisfies CommandDef;
