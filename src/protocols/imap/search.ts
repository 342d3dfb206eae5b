// SEARCH evaluation over the selected mailbox. Flags, sizes and sets come from the view; address,
// subject and body text from the full-text index, narrowed to a substring test of the parsed
// columns ingest stored (decoded, so a search for "Grüße" finds an encoded-word subject) on the
// index's candidates only (issue 19: the former in-memory scan read every body, 19–31 s and 6 GB
// at a million messages); HEADER and BCC from the raw header.
import type { Session } from "./session";
import type { Mailbox, Msg } from "./mailbox";
import type { SearchKey } from "./parser/search-keys";
import { inSet } from "./parser/sequence";
import { cachedOnly, structureOf } from "./structure-cache";
import { rawMessage } from "./raw-cache";

/** Messages a pass over every message hydrates at once (HEADER, BCC and date keys need their details). */
const CHUNK = 500;

type IndexedField = "body" | "text" | "subject" | "from" | "to" | "cc";

function walk(k: SearchKey, f: (k: SearchKey) => void): void {
  f(k);
  if (k.k === "not") walk(k.key, f);
  else if (k.k === "or") {
    walk(k.a, f);
    walk(k.b, f);
  } else if (k.k === "and") k.keys.forEach((x) => walk(x, f));
}

const textKey = (k: SearchKey) => `${k.k === "text" ? k.field : ""}\u0000${k.k === "text" ? k.value : ""}`;

export async function runSearch(s: Session, key: SearchKey): Promise<{ seq: number; msg: Msg }[]> {
  const mb = s.mailbox!;
  let needsHeaders = false;
  let needsDetails = false;
  let needsSent = false;
  const textKeys: Array<{ field: IndexedField; value: string }> = [];
  walk(key, (k) => {
    if (k.k === "text" && k.field !== "bcc") textKeys.push({ field: k.field, value: k.value });
    if (k.k === "header" || (k.k === "text" && k.field === "bcc")) needsHeaders = true;
    if (k.k === "date") needsDetails = true;
    if (k.k === "date" && k.field === "sent") needsSent = true;
  });
  // Each text key once: the UIDs whose field holds the value.
  const hits = new Map<string, Set<number>>();
  if (textKeys.length) await s.ctx.storage.searchable();
  for (const t of textKeys) {
    const id = textKey({ k: "text", ...t });
    if (!hits.has(id)) hits.set(id, new Set(await s.ctx.storage.messages.uidsWithText(mb.inboxId, t.field, t.value)));
  }
  // \Answered, \Draft and keywords: the mailbox's few messages that carry any (extra-flags.ts).
  let extraNeeded = false;
  walk(key, (k) => {
    if (k.k === "keyword" || (k.k === "flag" && (k.flag === "answered" || k.flag === "draft"))) extraNeeded = true;
  });
  const extras = extraNeeded ? await s.ctx.storage.imapFolders.extraFlags(mb.inboxId, null) : new Map<number, string>();
  const hasExtra = (uid: number, flag: string) => (extras.get(uid) ?? "").toLowerCase().split(" ").includes(flag.toLowerCase());
  const sent = new Map<number, string | null>();
  if (needsSent) for (const r of await s.ctx.storage.messages.sentDates(mb.inboxId)) sent.set(r.uid, r.sent_at);

  // CONDSTORE's MODSEQ key: the messages changed at or after the value (index messages_modseq).
  const modseqAt = new Map<number, Set<number>>();
  walk(key, (k) => k.k === "modseq" && modseqAt.set(k.min, new Set()));
  for (const m of modseqAt.keys())
    modseqAt.set(m, new Set((await s.ctx.storage.imapFolders.changedSince(mb.inboxId, mb.folderId, m - 1)).keys()));

  const maxUid = mb.exists ? mb.at(mb.exists - 1).uid : 0;
  const count = mb.exists;
  const test = (k: SearchKey, msg: Msg, seq: number, hdrs: { name: string; value: string }[] | null): boolean => {
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
            return false; // nothing is \Recent here
          case "answered":
            return hasExtra(msg.uid, "\\Answered") === k.set;
          case "draft":
            return hasExtra(msg.uid, "\\Draft") === k.set;
          default:
            return !k.set; // \Recent is never set
        }
      case "keyword":
        return hasExtra(msg.uid, k.name) === k.set;
      case "text": {
        const v = k.value.toLowerCase();
        if (k.field === "bcc") return (hdrs ?? []).some((h) => h.name === "bcc" && h.value.toLowerCase().includes(v));
        return hits.get(textKey(k))!.has(msg.uid);
      }
      case "header": {
        const v = k.value.toLowerCase();
        return (hdrs ?? []).some((h) => h.name === k.name && h.value.toLowerCase().includes(v));
      }
      case "date": {
        const iso = k.field === "sent" ? (sent.get(msg.uid) ?? msg.receivedAt) : msg.receivedAt;
        const day = iso.slice(0, 10);
        return k.op === "before" ? day < k.day : k.op === "on" ? day === k.day : day >= k.day;
      }
      case "size":
        return k.op === "larger" ? msg.size > k.n : msg.size < k.n;
      case "uid":
        return inSet(k.set, msg.uid, maxUid);
      case "seq":
        return inSet(k.set, seq, count);
      case "not":
        return !test(k.key, msg, seq, hdrs);
      case "or":
        return test(k.a, msg, seq, hdrs) || test(k.b, msg, seq, hdrs);
      case "and":
        return k.keys.every((x) => test(x, msg, seq, hdrs));
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
    if (needsHeaders || needsDetails) await mb.withDetails(chunk.map((t) => t.msg));
    for (const { seq, msg } of chunk) {
      if (msg.gone) continue;
      let hdrs: { name: string; value: string }[] | null = null;
      if (needsHeaders) {
        const st = cachedOnly(msg.blobKey) ?? structureOf(msg.blobKey, await rawMessage(s.ctx.storage.blobs, msg.blobKey));
        // Header text is kept as bytes; the search value came in as UTF-8.
        hdrs = (st?.root.headers ?? []).map((h) => ({ name: h.name, value: Buffer.from(h.value, "latin1").toString("utf8") }));
      }
      if (test(key, msg, seq, hdrs)) out.push({ seq, msg });
    }
  }
  return out;
}

/**
 * When every match must hold a text key (the key is one, or an AND with one), only the messages
 * of its hits are tested, in sequence order; otherwise null (every message is tested).
 */
function candidateIndexes(mb: Mailbox, key: SearchKey, hits: Map<string, Set<number>>): number[] | null {
  const required =
    key.k === "text" && key.field !== "bcc" ? key : key.k === "and" ? key.keys.find((k) => k.k === "text" && k.field !== "bcc") : undefined;
  if (!required) return null;
  const out: number[] = [];
  for (const uid of hits.get(textKey(required))!) {
    const i = mb.indexOf(uid);
    if (i >= 0) out.push(i);
  }
  return out.sort((a, b) => a - b);
}
