// ESEARCH (RFC 4731): SEARCH RETURN (MIN MAX ALL COUNT), answered as `* ESEARCH (TAG "t") [UID] …`,
// and the MODSEQ CONDSTORE adds to a search's answer when its criteria name MODSEQ (RFC 7162
// §3.1.5): the highest modseq of the messages returned (for MIN/MAX only, of those two).
// SAVE (SEARCHRES) is not offered: RETURN (SAVE) is BAD.
import type { Session } from "./session";
import type { Msg } from "./mailbox";
import type { SearchKey } from "./parser/search-keys";
import { ParseError, type Token } from "./parser/tokens";
import { uidSet } from "./condstore";

export type ReturnOption = "MIN" | "MAX" | "ALL" | "COUNT";
const OPTIONS = new Set<string>(["MIN", "MAX", "ALL", "COUNT"]);

/** Splits `RETURN (…)` off the front of SEARCH's arguments; null when absent (a plain SEARCH). */
export function parseReturn(args: Token[]): { options: ReturnOption[] | null; rest: Token[] } {
  const first = args[0];
  if (!(first?.t === "atom" && first.v.toUpperCase() === "RETURN")) return { options: null, rest: args };
  const list = args[1];
  if (list?.t !== "list") throw new ParseError("RETURN takes a list of options");
  const options: ReturnOption[] = [];
  for (const t of list.v) {
    const o = t.t === "atom" ? t.v.toUpperCase() : "";
    if (!OPTIONS.has(o)) throw new ParseError(`Unsupported RETURN option ${o.slice(0, 20)}`);
    if (!options.includes(o as ReturnOption)) options.push(o as ReturnOption);
  }
  // RETURN () means RETURN (ALL) (RFC 4731 §3.1).
  return { options: options.length ? options : ["ALL"], rest: args.slice(2) };
}

export function usesModseq(k: SearchKey): boolean {
  if (k.k === "modseq") return true;
  if (k.k === "not") return usesModseq(k.key);
  if (k.k === "or") return usesModseq(k.a) || usesModseq(k.b);
  if (k.k === "and") return k.keys.some(usesModseq);
  return false;
}

/** Writes the untagged answer of a SEARCH / UID SEARCH (plain or ESEARCH). */
export async function writeSearchResult(
  s: Session,
  tag: string,
  byUid: boolean,
  key: SearchKey,
  options: ReturnOption[] | null,
  hits: { seq: number; msg: Msg }[],
): Promise<void> {
  const nums = hits.map((h) => (byUid ? h.msg.uid : h.seq));
  const withModseq = usesModseq(key) && hits.length > 0;
  // The messages whose modseqs count: all returned, or only the MIN/MAX ones when nothing else is.
  const onlyEnds = options !== null && !options.includes("ALL") && !options.includes("COUNT");
  const counted = onlyEnds ? [...(options.includes("MIN") ? [hits[0]!] : []), ...(options.includes("MAX") ? [hits.at(-1)!] : [])] : hits;
  let highest = 0;
  if (withModseq && counted.length) {
    const mods = await s.ctx.storage.imapFolders.modseqs(
      s.inbox!.id,
      s.mailbox!.folderId,
      counted.map((h) => h.msg.uid),
    );
    for (const v of mods.values()) highest = Math.max(highest, v);
  }
  const modseq = withModseq && highest > 0 ? highest : 0;
  if (options === null) {
    await s.write(`* SEARCH${nums.length ? " " + nums.join(" ") : ""}${modseq ? ` (MODSEQ ${modseq})` : ""}\r\n`);
    return;
  }
  const parts = [`* ESEARCH (TAG ${quote(tag)})`];
  if (byUid) parts.push("UID");
  if (nums.length) {
    if (options.includes("MIN")) parts.push(`MIN ${nums[0]}`);
    if (options.includes("MAX")) parts.push(`MAX ${nums.at(-1)}`);
    if (options.includes("ALL")) parts.push(`ALL ${uidSet(nums)}`);
  }
  if (options.includes("COUNT")) parts.push(`COUNT ${nums.length}`);
  if (modseq) parts.push(`MODSEQ ${modseq}`);
  await s.write(`${parts.join(" ")}\r\n`);
}

const quote = (t: string) => `"${t.replace(/["\\]/g, "\\$&")}"`;
