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
//
// Nothing anchored: the value is one token without a leading separator ("erification"), so every
// occurrence lies inside one word of the text, and that word is a term of the index containing the
// token. A fragment of 3 characters or more finds those terms with one MATCH of the search
// database's trigram index of its vocabulary (storage/sqlite/search-terms.ts); a shorter one, an
// engine without that index, or one still filling it after an upgrade, reads the vocabulary in
// pages (a turn of the event loop between them; at a million messages that walk is seconds). At
// most MAX_TERMS of the terms, OR-ed, name the candidates. A mailbox of at
// most SMALL_MAILBOX messages skips that (scanning it costs less than reading the vocabulary of every
// inbox), and so does a fragment found in more than MAX_TERMS terms ("e").
//
// The rest, and fields the index does not hold (addresses beyond the first sender, group names,
// BCC, any HEADER): the substring test runs on the mailbox's own messages in batches of SCAN_BATCH
// UIDs with a turn of the event loop between them, so memory stays bounded and other sessions keep
// being served.
import { yieldToLoop } from "../../lib/batches";
import { spaceCjk } from "../../storage/cjk-words";
import { ParseError } from "./parser/tokens";
import type { ImapTextKey } from "../../storage/mail";
import type { Session } from "./session";
import type { Mailbox } from "./mailbox";

/** UIDs per scan batch: one statement holds the loop ~ms (bodies are tested by SQLite's LIKE). */
const SCAN_BATCH = 1000;
/** Fields whose text the index holds in full (TEXT: its body, subject, sender, recipients part). */
const INDEXED = new Set(["body", "subject", "text"]);
/** Terms OR-ed into one index query at most; more and the fragment is too common to gain much. */
const MAX_TERMS = 500;
/** Vocabulary entries read per statement. */
const TERM_PAGE = 20_000;
/** Mailboxes up to this size are scanned rather than searched through the vocabulary. */
const SMALL_MAILBOX = 2_000;
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const WORD_START = /^[\p{L}\p{N}\p{M}]/u;

/**
 * The value's tokens that must begin a word of the text (see the top), in order. A CJK character is
 * a word of its own in the index (storage/cjk-words.ts), so it is set apart first: it is always
 * anchored, and so is whatever follows it.
 */
export function anchoredWords(value: string): string[] {
  const spaced = spaceCjk(value);
  const tokens = spaced.match(WORD) ?? [];
  return WORD_START.test(spaced) ? tokens.slice(1) : tokens;
}

/**
 * The longest value a text key takes, in bytes. The substring test is SQLite's LIKE, whose pattern stops at
 * 50,000 bytes (an error, answered NO [SERVERBUG] and logged); no field a test searches needs more.
 */
const MAX_VALUE_BYTES = 10_000;

/** UIDs of the selected mailbox's messages whose field contains the value. */
export async function textHits(s: Session, mb: Mailbox, key: ImapTextKey): Promise<Set<number>> {
  if (Buffer.byteLength(key.value) > MAX_VALUE_BYTES) {
    throw new ParseError(`SEARCH ${key.field.toUpperCase()} value longer than ${MAX_VALUE_BYTES} bytes`);
  }
  const store = s.ctx.storage.messages;
  const words = anchoredWords(key.value);
  if (INDEXED.has(key.field) && words.length > 0) {
    const hits = new Set(await store.uidsWithText(mb.inboxId, mb.folderId, key, { words }));
    // TEXT also covers every header, which the index does not hold: those are scanned (the
    // header column only; bodies are not read).
    if (key.field === "text") for (const u of await scan(s, mb, { ...key, field: "headers" })) hits.add(u);
    return hits;
  }
  const tokens = key.value.match(WORD) ?? [];
  if (INDEXED.has(key.field) && tokens.length === 1 && tokens[0] === key.value && mb.exists > SMALL_MAILBOX) {
    const terms = await termsContaining(s, fold(key.value));
    if (terms) {
      const hits = new Set(terms.length ? await store.uidsWithText(mb.inboxId, mb.folderId, key, { anyTerm: terms }) : []);
      if (key.field === "text") for (const u of await scan(s, mb, { ...key, field: "headers" })) hits.add(u);
      return hits;
    }
  }
  return new Set(await scan(s, mb, key));
}

/** As the index's tokenizer folds (unicode61, remove_diacritics 2): lower case, no combining marks. */
const fold = (v: string) => v.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();

/** Characters a fragment needs for the trigram index of the vocabulary to find it. */
const TRIGRAM = 3;

/** Index terms containing the fragment, or null when more than MAX_TERMS do. */
async function termsContaining(s: Session, fragment: string): Promise<string[] | null> {
  const store = s.ctx.storage.messages;
  if ([...fragment].length >= TRIGRAM && store.indexTermsContaining) {
    const found = await store.indexTermsContaining(fragment, MAX_TERMS + 1);
    if (found) {
      s.ctx.metrics.imapTermLookups.inc({ via: "trigram" });
      // The trigram index folds case as the index does; the test keeps the answer exact anyway.
      const terms = found.filter((t) => t.includes(fragment));
      return terms.length > MAX_TERMS ? null : terms;
    }
  }
  s.ctx.metrics.imapTermLookups.inc({ via: "walk" });
  const out: string[] = [];
  for (let after = ""; ; ) {
    const page = await s.ctx.storage.messages.indexTermsAfter(after, TERM_PAGE);
    for (const t of page) if (t.includes(fragment) && out.push(t) > MAX_TERMS) return null;
    if (page.length < TERM_PAGE) return out;
    after = page[page.length - 1]!;
    await yieldToLoop();
  }
}

async function scan(s: Session, mb: Mailbox, key: ImapTextKey): Promise<number[]> {
  const out: number[] = [];
  const n = mb.exists;
  for (let i = 0; i < n; i += SCAN_BATCH) {
    const uids: number[] = [];
    for (let j = i; j < Math.min(n, i + SCAN_BATCH); j++) uids.push(mb.uidAt(j));
    out.push(...(await s.ctx.storage.messages.uidsWithText(mb.inboxId, mb.folderId, key, { uids })));
    if (i + SCAN_BATCH < n) await yieldToLoop();
  }
  return out;
}
