// SEARCH and UID SEARCH (RFC 3501 §6.4.4, §6.4.8).
import { parseSearch } from "../parser/search-keys";
import { runSearch } from "../search";
import { SELECTED, type CommandDef } from "./types";

const CHARSETS = new Set(["UTF-8", "US-ASCII"]);

export default {
  names: ["SEARCH", "UID SEARCH"],
  states: SELECTED,
  async run(s, c) {
    const q = parseSearch(c.args);
    if (q.charset && !CHARSETS.has(q.charset)) return "NO [BADCHARSET (UTF-8 US-ASCII)] Unsupported charset";
    const hits = await runSearch(s, q.key);
    const nums = hits.map((h) => (c.uid ? h.msg.uid : h.seq));
    await s.write(`* SEARCH${nums.length ? " " + nums.join(" ") : ""}\r\n`);
    return `OK ${c.name} completed`;
  },
} satisfies CommandDef;
