// STORE and UID STORE (RFC 3501 §6.4.6): \Seen, \Flagged and \Deleted go to their columns through
// persistFlags (announced on the bus); \Answered, \Draft and keywords to the extra flags
// (extra-flags.ts), announced too. CONDSTORE (RFC 7162 §3.1.3): `(UNCHANGEDSINCE n)` leaves
// messages changed after n alone and names them in `[MODIFIED …]`; once CONDSTORE is on, the
// FETCH responses carry the new MODSEQ, and a .SILENT STORE still reports it (§3.1.3: the client
// needs the new modseq to keep its cache current).
import { atomOf, ParseError, type Token } from "../parser/tokens";
import { parseSequenceSet } from "../parser/sequence";
import { persistFlags } from "../flags";
import { flagList } from "../wire";
import type { Msg } from "../mailbox";
import { announceKeywords, applyExtra, COLUMN_FLAGS, extraFlagsOf, extraSpelling } from "../extra-flags";
import { enableCondstore, parseModseq, uidSet } from "../condstore";
import { SELECTED, type CommandDef } from "./types";

function flagNames(args: Token[]): string[] {
  const toks = args.length === 1 && args[0]!.t === "list" ? args[0].v : args;
  return toks.map((t) => {
    const f = atomOf(t, "flag");
    if (!COLUMN_FLAGS.has(f.toUpperCase()) && extraSpelling(f) === null) throw new ParseError(`Invalid flag ${f.slice(0, 20)}`);
    return f;
  });
}

/** `(UNCHANGEDSINCE n)`, the one STORE modifier (RFC 7162). */
function unchangedSince(t: Token): number {
  if (t.t !== "list" || t.v.length !== 2 || atomOf(t.v[0], "STORE modifier").toUpperCase() !== "UNCHANGEDSINCE") {
    throw new ParseError("Unknown STORE modifier");
  }
  return parseModseq(t.v[1]);
}

export default {
  names: ["STORE", "UID STORE"],
  states: SELECTED,
  async run(s, c) {
    const args = [...c.args];
    const limit = args[1]?.t === "list" ? unchangedSince(args.splice(1, 1)[0]!) : null;
    if (args.length < 3) return "BAD STORE takes a sequence set, an item and flags";
    const set = parseSequenceSet(atomOf(args[0], "sequence set"));
    const m = /^([+-]?)FLAGS(\.SILENT)?$/i.exec(atomOf(args[1], "data item"));
    if (!m) return "BAD STORE supports FLAGS, +FLAGS and -FLAGS (optionally .SILENT)";
    const names = flagNames(args.slice(2));
    const mb = s.mailbox!;
    if (mb.readOnly) return "NO [READ-ONLY] The mailbox is open read-only (EXAMINE)";
    if (limit !== null) await enableCondstore(s);
    const op = m[1] as "" | "+" | "-";
    const silent = !!m[2];
    const upper = names.map((n) => n.toUpperCase());
    const has = (f: string) => upper.includes(f);
    const extra = names.filter((n) => !COLUMN_FLAGS.has(n.toUpperCase())).map((n) => extraSpelling(n)!);
    const changed: Msg[] = [];
    let targets = mb.select(set, c.uid).filter((t) => !t.msg.gone);
    const modified: number[] = [];
    if (limit !== null) {
      const before = await s.ctx.storage.imapFolders.modseqs(
        s.inbox!.id,
        s.mailbox!.folderId,
        targets.map((t) => t.msg.uid),
      );
      targets = targets.filter((t) => {
        const ok = (before.get(t.msg.uid) ?? 0) <= limit;
        if (!ok) modified.push(c.uid ? t.msg.uid : t.seq);
        return ok;
      });
    }
    const extras = await extraFlagsOf(
      s,
      targets.map((t) => t.msg.uid),
    );
    const extraChanges: Array<{ uid: number; flags: string | null }> = [];
    const extraChanged = new Set<number>();
    for (const { msg } of targets) {
      const before = `${msg.seen}${msg.flagged}${msg.deleted}`;
      for (const [flag, key] of [
        ["\\SEEN", "seen"],
        ["\\FLAGGED", "flagged"],
        ["\\DELETED", "deleted"],
      ] as const) {
        if (op === "") msg[key] = has(flag);
        else if (has(flag)) msg[key] = op === "+";
      }
      if (`${msg.seen}${msg.flagged}${msg.deleted}` !== before) changed.push(msg);
      const was = extras.get(msg.uid) ?? "";
      const now = op === "" || extra.length ? applyExtra(was, op, extra) : was;
      if (now !== was) {
        extraChanges.push({ uid: msg.uid, flags: now || null });
        extraChanged.add(msg.uid);
        if (now) extras.set(msg.uid, now);
        else extras.delete(msg.uid);
      }
    }
    // Extra flags first: the column write's bus event makes other sessions read both.
    if (extraChanges.length) await s.ctx.storage.imapFolders.setExtraFlags(s.inbox!.id, mb.folderId, extraChanges);
    await persistFlags(s, changed);
    if (extraChanges.length) {
      // Other sessions hear of \Answered, \Draft and keyword changes like of any flag.
      const msgs = targets.filter((t) => extraChanged.has(t.msg.uid) && !changed.includes(t.msg)).map((t) => t.msg);
      await mb.withDetails(msgs);
      const inbox = s.inbox!;
      s.publishOwn(
        msgs
          .filter((x) => mb.detailsOf(x.uid))
          .map((x) => ({ type: "message.flags" as const, projectId: inbox.projectId, inboxId: inbox.id, messageId: x.id })),
      );
    }
    const modseqs = s.condstore
      ? await s.ctx.storage.imapFolders.modseqs(
          s.inbox!.id,
          s.mailbox!.folderId,
          targets.map((t) => t.msg.uid),
        )
      : null;
    for (const { seq, msg } of targets) {
      const touched = changed.includes(msg) || extraChanged.has(msg.uid);
      // A message expunged meanwhile by another session has no modseq any more: it is left out.
      if (modseqs && !modseqs.has(msg.uid)) continue;
      const mod = modseqs ? ` MODSEQ (${modseqs.get(msg.uid)})` : "";
      if (silent) {
        // .SILENT: no new value (RFC 3501 §6.4.6), for UID STORE too, as Dovecot; only the new modseq of
        // what changed under CONDSTORE.
        if (!touched || !modseqs) continue;
        await s.write(`* ${seq} FETCH (${c.uid ? `UID ${msg.uid} ` : ""}${mod.trim()})\r\n`);
        continue;
      }
      await announceKeywords(s, extras.get(msg.uid));
      await s.write(`* ${seq} FETCH (${c.uid ? `UID ${msg.uid} ` : ""}FLAGS ${flagList(msg, extras.get(msg.uid))}${mod})\r\n`);
    }
    if (modified.length) return `OK [MODIFIED ${uidSet(modified.sort((a, b) => a - b))}] Conditional STORE failed for some messages`;
    return `OK ${c.name} completed`;
  },
} satisfies CommandDef;
