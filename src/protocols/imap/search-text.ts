// SEARCH text keys (FROM, TO, CC, BCC, SUBJECT, BODY, TEXT, HEADER) with RFC 3501's meaning: a
// case-insensitive substring of the field, wherever it starts. The full-text index (docs/search.md)
// finds whole words and word prefixes only, so it may narrow the search only by what the value
// proves about word boundaries in the text:
//
// - a token of the value preceded by a non-word character in the value starts a word of the text;
//   one followed by a non-word character ends one. So every token but the first is anchored at its
//   start, all but the last are whole words, and the last is a word prefix;
// - the first token is anchored only if the value starts with a non-word character ("-from",
//   " brown"); "erification" may be the end of "verification", and the index cannot say.
//
// Anchored tokens, in order, the last as a prefix, make an index phrase whose matches are a superset
// of the substring matches; the exact substring test then runs on those candidates (SQL, storage).
// Nothing anchored ("sdfghjk", one token without a leading separator) or a field the index does
// not hold (addresses beyond the first sender and group names, BCC, any HEADER): the substring test
// runs on the mailbox's own messages in batches of SCAN_BATCH UIDs with a turn of the event loop
// between them, so memory stays bounded and other sessions keep being served.
import { yieldToLoop } from "../../lib/batches";
import type { ImapTextKey } from "../../storage/mail";
import type { Session } from "./session";
import type { Mailbox } from "./mailbox";

/** UIDs per scan batch: one statement holds the loop ~ms (bodies are tested by SQLite's LIKE). */
const SCAN_BATCH = 1000;
/** Fields whose text the index holds in full (TEXT: its body, subject, sender, recipients part). */
const INDEXED = new Set(["body", "subject", "text"]);
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const WORD_START = /^[\p{L}\p{N}\p{M}]/u;

/** The value's tokens that must begin a word of the text (see the top), in order. */
export function anchoredWords(value: string): string[] {
  const tokens = value.match(WORD) ?? [];
  return WORD_START.test(value) ? tokens.slice(1) : tokens;
}

/** UIDs of the selected mailbox's messages whose field contains the value. */
export async function textHits(s: Session, mb: Mailbox, key: ImapTextKey): Promise<Set<number>> {
  const store = s.ctx.storage.messages;
  const words = anchoredWords(key.value);
  if (INDEXED.has(key.field) && words.length > 0) {
    const hits = new Set(await store.uidsWithText(mb.inboxId, key, { words }));
    // TEXT also covers every header, which the index does not hold: those are scanned (the
    // header column only; bodies are not read).
    if (key.field === "text") for (const u of await scan(s, mb, { ...key, field: "headers" })) hits.add(u);
    return hits;
  }
  return new Set(await scan(s, mb, key));
}

async function scan(s: Session, mb: Mailbox, key: ImapTextKey): Promise<number[]> {
  const out: number[] = [];
  const n = mb.exists;
  for (let i = 0; i < n; i += SCAN_BATCH) {
    const uids: number[] = [];
    for (let j = i; j < Math.min(n, i + SCAN_BATCH); j++) uids.push(mb.at(j).uid);
    out.push(...(await s.ctx.storage.messages.uidsWithText(mb.inboxId, key, { uids })));
    if (i + SCAN_BATCH < n) await yieldToLoop();
  }
  return out;
}
