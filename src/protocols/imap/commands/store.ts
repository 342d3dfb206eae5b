// STORE and UID STORE (RFC 3501 §6.4.6): \Seen, \Flagged and \Deleted go to their columns through
// persistFlags (announced on the bus); \Answered, \Draft and keywords to the extra flags
// (extra-flags.ts).
import { atomOf, ParseError, type Token } from "../parser/tokens";
import { parseSequenceSet } from "../parser/sequence";
import { persistFlags } from "../flags";
import { flagList } from "../wire";
import type { Msg } from "../mailbox";
import { announceKeywords, applyExtra, COLUMN_FLAGS, extraFlagsOf, extraSpelling } from "../extra-flags";
import { SELECTED, type CommandDef } from "./types";

function flagNames(args: Token[]): string[] {
  const toks = args.length === 1 && args[0]!.t === "list" ? args[0].v : args;
  return toks.map((t) => {
    const f = atomOf(t, "flag");
    if (!COLUMN_FLAGS.has(f.toUpperCase()) && extraSpelling(f) === null) throw new ParseError(`Invalid flag ${f.slice(0, 20)}`);
    return f;
  });
}

export default {
  names: ["STORE", "UID STORE"],
  states: SELECTED,
  async run(s, c) {
    if (c.args.length < 3) return "BAD STORE takes a sequence set, an item and flags";
    const set = parseSequenceSet(atomOf(c.args[0], "sequence set"));
    const m = /^([+-]?)FLAGS(\.SILENT)?$/i.exec(atomOf(c.args[1], "data item"));
    if (!m) return "BAD STORE supports FLAGS, +FLAGS and -FLAGS (optionally .SILENT)";
    const names = flagNames(c.args.slice(2));
    const mb = s.mailbox!;
    if (mb.readOnly) return "NO [READ-ONLY] The mailbox is open read-only (EXAMINE)";
    const op = m[1] as "" | "+" | "-";
    const silent = !!m[2];
    const upper = names.map((n) => n.toUpperCase());
    const has = (f: string) => upper.includes(f);
    const extra = names.filter((n) => !COLUMN_FLAGS.has(n.toUpperCase())).map((n) => extraSpelling(n)!);
    const changed: Msg[] = [];
    const targets = mb.select(set, c.uid).filter((t) => !t.msg.gone);
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
    await persistFlags(s, changed);
    if (extraChanges.length) await s.ctx.storage.imapFolders.setExtraFlags(s.inbox!.id, extraChanges);
    if (!silent || c.uid) {
      for (const { seq, msg } of targets) {
        if (silent && !changed.includes(msg) && !extraChanged.has(msg.uid)) continue;
        await announceKeywords(s, extras.get(msg.uid));
        await s.write(`* ${seq} FETCH (${c.uid ? `UID ${msg.uid} ` : ""}FLAGS ${flagList(msg, extras.get(msg.uid))})\r\n`);
      }
    }
    return `OK ${c.name} completed`;
  },
} satisfies CommandDef;
