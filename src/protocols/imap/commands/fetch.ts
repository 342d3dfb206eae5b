// FETCH and UID FETCH (RFC 3501 §6.4.5, §6.4.8), with CONDSTORE's CHANGEDSINCE and QRESYNC's
// VANISHED modifiers (RFC 7162 §3.1.4.1, §3.2.6).
import { atomOf, ParseError, type Token } from "../parser/tokens";
import { parseSequenceSet } from "../parser/sequence";
import { parseFetchItems, type FetchItem } from "../parser/fetch-items";
import { writeFetch } from "../fetch-response";
import { enableCondstore, parseModseq } from "../condstore";
import { writeVanishedEarlier } from "../qresync";
import { SELECTED, type CommandDef } from "./types";

function parseModifiers(t: Token | undefined): { changedSince: number | null; vanished: boolean } {
  const out = { changedSince: null as number | null, vanished: false };
  if (!t) return out;
  if (t.t !== "list" || t.v.length === 0) throw new ParseError("FETCH modifiers must be a list");
  for (let i = 0; i < t.v.length; i++) {
    const name = atomOf(t.v[i], "FETCH modifier").toUpperCase();
    if (name === "CHANGEDSINCE") out.changedSince = parseModseq(t.v[++i]);
    else if (name === "VANISHED") out.vanished = true;
    else throw new ParseError(`Unknown FETCH modifier ${name.slice(0, 20)}`);
  }
  return out;
}

export default {
  names: ["FETCH", "UID FETCH"],
  states: SELECTED,
  async run(s, c) {
    if (c.args.length < 2) return "BAD FETCH takes a sequence set and data items";
    if (c.args.length > 3) throw new ParseError("FETCH takes a sequence set, data items and modifiers");
    const set = parseSequenceSet(atomOf(c.args[0], "sequence set"));
    let items: FetchItem[] = parseFetchItems(c.args[1]);
    const mods = parseModifiers(c.args[2]);
    if (mods.vanished && (!c.uid || !s.qresync || mods.changedSince === null)) {
      return "BAD VANISHED needs UID FETCH, QRESYNC enabled and CHANGEDSINCE";
    }
    const mb = s.mailbox!;
    let indexes = mb.indexes(set, c.uid);
    if (items.some((i) => i.kind === "MODSEQ") || mods.changedSince !== null) await enableCondstore(s);
    if (mods.changedSince !== null) {
      if (!items.some((i) => i.kind === "MODSEQ")) items = [...items, { kind: "MODSEQ" }];
      if (mods.vanished) await writeVanishedEarlier(s, set, mods.changedSince);
      const changed = await s.ctx.storage.imapFolders.changedSince(mb.inboxId, mb.folderId, mods.changedSince);
      indexes = indexes.filter((i) => changed.has(mb.uidAt(i)));
    }
    await writeFetch(s, indexes, items, c.uid);
    return `OK ${c.name} completed`;
  },
} satisfies CommandDef;
