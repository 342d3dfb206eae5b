// EXPUNGE and UID EXPUNGE (RFC 3501 §6.4.3, RFC 4315 §2.1): messages marked \Deleted are removed
// through the same service as the REST delete, so every channel sees them go.
import { atomOf } from "../parser/tokens";
import { parseSequenceSet, type SeqRange } from "../parser/sequence";
import type { Session } from "../session";
import { SELECTED, type CommandDef } from "./types";

/** Deletes this session's \Deleted messages (restricted to a UID set if given); returns EXPUNGE lines. */
export async function expungeDeleted(s: Session, uids: SeqRange[] | null, announce = true): Promise<string[]> {
  const mb = s.mailbox!;
  // Flags set by other sessions or by REST count too: bring the view up to date first
  // (CLOSE does so silently: it answers with no untagged responses).
  if (announce) await s.pushUpdates(true);
  else await mb.refresh(true);
  const doomed = mb.deleted(uids);
  if (doomed.length === 0) return [];
  await mb.withDetails(doomed);
  await s.services.removal.deleteMessages(
    s.inbox!.projectId,
    doomed.filter((m) => mb.detailsOf(m.uid)).map((m) => m.id),
  );
  for (const m of doomed) m.gone = true;
  return mb.dropGone();
}

export default {
  names: ["EXPUNGE", "UID EXPUNGE"],
  states: SELECTED,
  async run(s, c) {
    if (s.mailbox!.readOnly) return "NO [READ-ONLY] The mailbox is open read-only (EXAMINE)";
    const uids = c.uid ? parseSequenceSet(atomOf(c.args[0], "UID set")) : null;
    if (!c.uid && c.args.length) return "BAD EXPUNGE takes no arguments";
    const lines = await expungeDeleted(s, uids);
    for (const l of lines) await s.write(l + "\r\n");
    return `OK ${c.name} completed`;
  },
} satisfies CommandDef;
