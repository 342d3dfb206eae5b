// SEARCH evaluation over the selected mailbox. Flags (\Recent too), sizes and sets come from the
// view; text keys (addresses, subject, body, HEADER) are substring tests of the decoded columns
// ingest stored (so a search for "Grüße" finds an encoded-word subject), narrowed by the full-text
// index where the value allows it, else run over the mailbox in batches (search-text.ts; issue 19:
// the former in-memory scan read every body, 19–31 s and 6 GB at a million messages).
import type { Session } from "./session";
import type { Mailbox, Msg } from "./mailbox";
import type { SearchKey } from "./parser/search-keys";
import { inSet } from "./parser/sequence";
import { textHits } from "./search-text";
import type { ImapTextKey } from "../../storage/mail";

/** Messages a pass over every message hydrates at once (HEADER, BCC and date keys need their details). */
const CHUNK = 500;

function walk(k: SearchKey, f: (k: SearchKey) => void): void {
  f(k);
  if (k.k === "not") walk(k.key, f);
  else if (k.k === "or") {
    walk(k.a, f);
    walk(k.b, f);
  } else if (k.k === "and") k.keys.forEach((x) => walk(x, f));
}

const textKeyId = (k: ImapTextKey) => `${k.field}\u0000${k.name ?? ""}\u0000${k.value}`;

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** "YYYY-MM-DD" of the day a Date header names ("Sun, 25 Mar 2007 04:00:00 +0300" → 2007-03-25), or null. */
export function headerDay(value: string | null): string | null {
  const m = value?.match(/(\d{1,2})\s+([A-Za-z]{3})[a-z]*\s+(\d{2,4})/);
  if (!m) return null;
  const month = MONTHS.indexOf(m[2]!.toLowerCase());
  if (month < 0) return null;
  let year = Number(m[3]);
  if (m[3]!.length <= 2) year += year < 50 ? 2000 : 1900; // RFC 5322 §4.3 obsolete two-digit years
  return `${String(year).padStart(4, "0")}-${String(month + 1).padStart(2, "0")}-${m[1]!.padStart(2, "0")}`;
}

export async function runSearch(s: Session, key: SearchKey): Promise<{ seq: number; msg: Msg }[]> {
  const mb = s.mailbox!;
  let needsDetails = false;
  let needsSent = false;
  const textKeys: ImapTextKey[] = [];
  walk(key, (k) => {
    if (k.k === "text") textKeys.push({ field: k.field, value: k.value });
    if (k.k === "header") textKeys.push({ field: "header", name: k.name, value: k.value });
    if (k.k === "date") needsDetails = true;
    if (k.k === "date" && k.field === "sent") needsSent = true;
  });
  // Each text key once: the UIDs whose field holds the value (search-text.ts).
  const hits = new Map<string, Set<number>>();
  if (textKeys.length) await s.ctx.storage.searchable();
  for (const t of textKeys) {
    const id = textKeyId(t);
    if (!hits.has(id)) hits.set(id, await textHits(s, mb, t));
  }
  // \Answered, \Draft and keywords: the mailbox's few messages that carry any (extra-flags.ts).
  let extraNeeded = false;
  walk(key, (k) => {
    if (k.k === "keyword" || (k.k === "flag" && (k.flag === "answered" || k.flag === "draft"))) extraNeeded = true;
  });
  const extras = extraNeeded ? await s.ctx.storage.imapFolders.extraFlags(mb.inboxId, mb.folderId, null) : new Map<number, string>();
  const hasExtra = (uid: number, flag: string) => (extras.get(uid) ?? "").toLowerCase().split(" ").includes(flag.toLowerCase());
  // SENT*: the day written in the Date header, in its own time zone (RFC 3501: "disregarding time
  // and timezone"); without a readable one, the UTC day of the parsed date or of the arrival.
  const sent = new Map<number, string | null>();
  if (needsSent) {
    for (const r of await s.ctx.storage.messages.sentDates(mb.inboxId, mb.folderId))
      sent.set(r.uid, headerDay(r.date_header) ?? r.sent_at?.slice(0, 10) ?? null);
  }

  // CONDSTORE's MODSEQ key: the messages changed at or after the value (index messages_modseq).
  const modseqAt = new Map<number, Set<number>>();
  walk(key, (k) => k.k === "modseq" && modseqAt.set(k.min, new Set()));
  for (const m of modseqAt.keys())
    modseqAt.set(m, new Set((await s.ctx.storage.imapFolders.changedSince(mb.inboxId, mb.folderId, m - 1)).keys()));

  const maxUid = mb.exists ? mb.at(mb.exists - 1).uid : 0;
  const count = mb.exists;
  const test = (k: SearchKey, msg: Msg, seq: number): boolean => {
    switch (k.k) {
      case "all":
        return true;
      case "none":
        return false;
      case "flag":
        switch (k.flag) {
          case "seen":
          case "flagged":
          case "deleted":
            return msg[k.flag] === k.set;
          case "new":
            return mb.isRecent(msg.uid) && !msg.seen;
          case "answered":
            return hasExtra(msg.uid, "\\Answered") === k.set;
          case "draft":
            return hasExtra(msg.uid, "\\Draft") === k.set;
          default:
            return mb.isRecent(msg.uid) === k.set;
        }
      case "keyword":
        return hasExtra(msg.uid, k.name) === k.set;
      case "text":
        return hits.get(textKeyId({ field: k.field, value: k.value }))!.has(msg.uid);
      case "header":
        return hits.get(textKeyId({ field: "header", name: k.name, value: k.value }))!.has(msg.uid);
      case "date": {
        const day = (k.field === "sent" ? (sent.get(msg.uid) ?? msg.receivedAt) : msg.receivedAt).slice(0, 10);
        return k.op === "before" ? day < k.day : k.op === "on" ? day === k.day : day >= k.day;
      }
      case "size":
        return k.op === "larger" ? msg.size > k.n : msg.size < k.n;
      case "uid":
        return inSet(k.set, msg.uid, maxUid);
      case "seq":
        return inSet(k.set, seq, count);
      case "not":
        return !test(k.key, msg, seq);
      case "or":
        return test(k.a, msg, seq) || test(k.b, msg, seq);
      case "and":
        return k.keys.every((x) => test(x, msg, seq));
      case "modseq":
        return modseqAt.get(k.min)!.has(msg.uid);
    }
  };

  const out: { seq: number; msg: Msg }[] = [];
  const candidates = candidateIndexes(mb, key, hits);
  const total = candidates ? candidates.length : mb.exists;
  for (let c = 0; c < total; c += CHUNK) {
    const chunk: { seq: number; msg: Msg }[] = [];
    for (let j = c; j < Math.min(total, c + CHUNK); j++) {
      const i = candidates ? candidates[j]! : j;
      chunk.push({ seq: i + 1, msg: mb.at(i) });
    }
    if (needsDetails) await mb.withDetails(chunk.map((t) => t.msg));
    for (const { seq, msg } of chunk) {
      if (msg.gone) continue;
      if (test(key, msg, seq)) out.push({ seq, msg });
    }
  }
  return out;
}

/**
 * When every match must hold a text key (the key is one, or an AND with one), only the messages
 * of its hits are tested, in sequence order; otherwise null (every message is tested).
 */
function candidateIndexes(mb: Mailbox, key: SearchKey, hits: Map<string, Set<number>>): number[] | null {
  const isText = (k: SearchKey) => k.k === "text" || k.k === "header";
  const required = isText(key) ? key : key.k === "and" ? key.keys.find(isText) : undefined;
  if (!required || (required.k !== "text" && required.k !== "header")) return null;
  const id =
    required.k === "text"
      ? textKeyId({ field: required.field, value: required.value })
      : textKeyId({ field: "header", name: required.name, value: required.value });
  const out: number[] = [];
  for (const uid of hits.get(id)!) {
    const i = mb.indexOf(uid);
    if (i >= 0) out.push(i);
  }
  return out.sort((a, b) => a - b);
}
