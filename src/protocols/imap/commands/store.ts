// STORE and UID STORE (RFC 3501 §6.4.6): \Seen, \Flagged and \Deleted are kept; other flags are
// not permanent here (PERMANENTFLAGS says so) and are ignored.
import { atomOf, ParseError, type Token } from "../parser/tokens";
import { parseSequenceSet } from "../parser/sequence";
import { persistFlags } from "../flags";
import { flagList } from "../wire";
import type { Msg } from "../mailbox";
import { SELECTED, type CommandDef } from "./types";

const KNOWN = new Set(["\\SEEN", "\\FLAGGED", "\\DELETED", "\\ANSWERED", "\\DRAFT"]);

function flagNames(args: Token[]): string[] {
  const toks = args.length === 1 && args[0]!.t === "list" ? args[0].v : args;
  return toks.map((t) => {
    const f = atomOf(t, "flag");
    if (f.startsWith("\\") && !KNOWN.has(f.toUpperCase())) throw new ParseError(`Unknown system flag ${f.slice(0, 20)}`);
    return f.toUpperCase();
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
    const has = (f: string) => names.includes(f);
    const changed: Msg[] = [];
    const targets = mb.select(set, c.uid).filter((t) => !t.msg.gone);
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
    }
    await persistFlags(s, changed);
    if (!silent || c.uid) {
      for (const { seq, msg } of targets) {
        if (silent && !changed.includes(msg)) continue;
        await s.write(`* ${seq} FETCH (${c.uid ? `UID ${msg.uid} ` : ""}FLAGS ${flagList(msg)})\r\n`);
      }
    }
    return `OK ${c.name} completed`;
  },
} satisfies CommandDef;
