// SEARCH and UID SEARCH (RFC 3501 §6.4.4, §6.4.8), with ESEARCH's RETURN (RFC 4731) and
// CONDSTORE's MODSEQ (esearch.ts).
import { parseSearch } from "../parser/search-keys";
import { runSearch } from "../search";
import { parseReturn, usesModseq, writeSearchResult } from "../esearch";
import { enableCondstore } from "../condstore";
import { SELECTED, type CommandDef } from "./types";

const CHARSETS = new Set(["UTF-8", "US-ASCII"]);

export default {
  names: ["SEARCH", "UID SEARCH"],
  states: SELECTED,
  async run(s, c) {
    const ret = parseReturn(c.args);
    const q = parseSearch(ret.rest);
    if (q.charset && !CHARSETS.has(q.charset)) return "NO [BADCHARSET (UTF-8 US-ASCII)] Unsupported charset";
    if (usesModseq(q.key)) await enableCondstore(s);
    const hits = await runSearch(s, q.key);
    await writeSearchResult(s, c.tag, c.uid, q.key, ret.options, hits);
    return `OK ${c.name} completed`;
  },
} satisfies CommandDef;
