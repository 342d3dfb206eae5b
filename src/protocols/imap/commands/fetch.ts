// FETCH and UID FETCH (RFC 3501 §6.4.5, §6.4.8).
import { atomOf, ParseError } from "../parser/tokens";
import { parseSequenceSet } from "../parser/sequence";
import { parseFetchItems } from "../parser/fetch-items";
import { writeFetch } from "../fetch-response";
import { SELECTED, type CommandDef } from "./types";

export default {
  names: ["FETCH", "UID FETCH"],
  states: SELECTED,
  async run(s, c) {
    if (c.args.length < 2) return "BAD FETCH takes a sequence set and data items";
    if (c.args.length > 2) throw new ParseError("FETCH modifiers are not supported");
    const set = parseSequenceSet(atomOf(c.args[0], "sequence set"));
    const items = parseFetchItems(c.args[1]);
    const mb = s.mailbox!;
    await writeFetch(s, mb.indexes(set, c.uid), items, c.uid);
    return `OK ${c.name} completed`;
  },
} satisfies CommandDef;
