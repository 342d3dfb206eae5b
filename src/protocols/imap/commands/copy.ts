// COPY and UID COPY (RFC 3501 §6.4.7) with UIDPLUS's COPYUID (RFC 4315); MOVE builds on copyTo.
import { atomOf } from "../parser/tokens";
import { parseSequenceSet } from "../parser/sequence";
import type { Command } from "../parser/tokens";
import type { Session } from "../session";
import type { Msg } from "../mailbox";
import { FolderError } from "../../../mail/imap-folders";
import { folderReply, mailboxName } from "../folders";
import { SELECTED, type CommandDef } from "./types";

/** A UID list as a compact set ("3:5,9"), in the given order (COPYUID pairs source and target by position). */
export function uidSet(uids: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < uids.length; ) {
    let j = i;
    while (j + 1 < uids.length && uids[j + 1] === uids[j]! + 1) j++;
    out.push(j > i ? `${uids[i]}:${uids[j]}` : `${uids[i]}`);
    i = j + 1;
  }
  return out.join(",");
}

export interface CopyResult {
  /** The COPYUID response code, or "" when nothing was copied. */
  code: string;
  /** The source messages copied. */
  moved: Msg[];
}

/** Copies the messages the command names into its target mailbox (throws FolderError). */
export async function copyTo(s: Session, c: Command, checkRoom: boolean): Promise<CopyResult> {
  const set = parseSequenceSet(atomOf(c.args[0], "sequence set"));
  const target = await s.services.folders.find(s.inbox!, mailboxName(c.args[1]));
  if (!target) throw new FolderError("TRYCREATE", "No such mailbox (CREATE it first)");
  const msgs = s
    .mailbox!.select(set, c.uid)
    .filter((t) => !t.msg.gone)
    .map((t) => t.msg);
  if (msgs.length === 0) return { code: "", moved: [] };
  // The copies count against the quotas like new mail: room for all of them, or none is made.
  const bytes = msgs.reduce((n, m) => n + m.size, 0);
  if (checkRoom && (await s.services.ingest.checkRoom(s.inbox!, bytes))) throw new QuotaError();
  const copied = await s.services.folders.copy(
    s.inbox!,
    s.mailbox!.folderId,
    msgs.map((m) => m.uid),
    target,
  );
  if (copied.length === 0) return { code: "", moved: [] };
  const done = new Set(copied.map((x) => x.sourceUid));
  return {
    code: `[COPYUID ${target.uidValidity} ${uidSet(copied.map((x) => x.sourceUid))} ${uidSet(copied.map((x) => x.uid))}]`,
    moved: msgs.filter((m) => done.has(m.uid)),
  };
}

export class QuotaError extends Error {}

export default {
  names: ["COPY", "UID COPY"],
  states: SELECTED,
  async run(s, c) {
    if (c.args.length !== 2) return `BAD ${c.name} takes a sequence set and a mailbox name`;
    let ok = "";
    const reply = await folderReply("", async () => {
      try {
        const r = await copyTo(s, c, true);
        ok = `OK ${r.code ? `${r.code} ` : ""}${c.name} completed`;
      } catch (e) {
        if (!(e instanceof QuotaError)) throw e;
        ok = "NO [OVERQUOTA] The storage quota is full";
      }
    });
    return ok || reply;
  },
} satisfies CommandDef;
