// CONDSTORE's SEARCH key (RFC 7162 §3.1.5): MODSEQ [entry-name entry-type-req] mod-sequence-valzer.
// The entry (a flag's metadata name, "/flags/\seen") narrows nothing here: one modseq per
// message covers all its flags, which the RFC allows ("the server MAY ignore it").
import { ParseError, type Token } from "./tokens";
import type { SearchKey } from "./search-keys";

const ENTRY_TYPES = new Set(["PRIV", "SHARED", "ALL"]);

export function parseModseqKey(args: Token[], s: { i: number }): SearchKey {
  let t = args[s.i++];
  if (t && t.t !== "list" && !(t.t === "atom" && /^\d+$/.test(t.v))) {
    // entry-name (a quoted string) and entry-type-req
    const type = args[s.i++];
    if (type?.t !== "atom" || !ENTRY_TYPES.has(type.v.toUpperCase())) throw new ParseError("Invalid MODSEQ entry type");
    t = args[s.i++];
  }
  const v = t?.t === "atom" ? t.v : "";
  if (!/^\d{1,16}$/.test(v) || !Number.isSafeInteger(Number(v))) throw new ParseError("Invalid MODSEQ value");
  return { k: "modseq", min: Number(v) };
}
