// SEARCH evaluation over the selected mailbox. Flags, sizes, dates and sets come from the view;
// address, subject and body text from the parsed columns ingest stored (decoded, so a search for
// "Grüße" finds an encoded-word subject); HEADER and BCC from the raw header.
import type { Session } from "./session";
import type { Msg } from "./mailbox";
import type { SearchKey } from "./parser/search-keys";
import { inSet } from "./parser/sequence";
import { cachedOnly, structureOf } from "./structure-cache";
import { rawMessage } from "./raw-cache";

interface Content {
  subject: string;
  from: string;
  to: string;
  cc: string;
  body: string;
  headers: string;
  sent: string | null;
}

function walk(k: SearchKey, f: (k: SearchKey) => void): void {
  f(k);
  if (k.k === "not") walk(k.key, f);
  else if (k.k === "or") {
    walk(k.a, f);
    walk(k.b, f);
  } else if (k.k === "and") k.keys.forEach((x) => walk(x, f));
}

export async function runSearch(s: Session, key: SearchKey): Promise<{ seq: number; msg: Msg }[]> {
  const mb = s.mailbox!;
  let needsContent = false;
  let needsHeaders = false;
  walk(key, (k) => {
    if (k.k === "text" && k.field !== "bcc") needsContent = true;
    if ((k.k === "date" && k.field === "sent") || k.k === "text") needsContent = true;
    if (k.k === "header" || (k.k === "text" && k.field === "bcc")) needsHeaders = true;
  });
  const content = new Map<string, Content>();
  if (needsContent) {
    const rows = await s.ctx.storage.messages.searchContent(mb.inboxId);
    for (const r of rows) {
      content.set(r.id, {
        subject: (r.subject ?? "").toLowerCase(),
        from: `${r.from_name ?? ""} <${r.from_email ?? ""}>`.toLowerCase(),
        to: (r.to_json ?? "").toLowerCase(),
        cc: (r.cc_json ?? "").toLowerCase(),
        body: `${r.text_body ?? ""}\n${r.html_body ?? ""}`.toLowerCase(),
        headers: (r.headers ?? "").toLowerCase(),
        sent: r.sent_at,
      });
    }
  }
  const maxUid = mb.msgs.at(-1)?.uid ?? 0;
  const count = mb.msgs.length;
  const out: { seq: number; msg: Msg }[] = [];
  for (let i = 0; i < mb.msgs.length; i++) {
    const msg = mb.msgs[i]!;
    if (msg.gone) continue;
    let hdrs: { name: string; value: string }[] | null = null;
    if (needsHeaders) {
      const st = cachedOnly(msg.blobKey) ?? structureOf(msg.blobKey, await rawMessage(s.ctx.storage.blobs, msg.blobKey));
      // Header text is kept as bytes; the search value came in as UTF-8.
      hdrs = (st?.root.headers ?? []).map((h) => ({ name: h.name, value: Buffer.from(h.value, "latin1").toString("utf8") }));
    }
    const c = content.get(msg.id);
    const test = (k: SearchKey): boolean => {
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
            default:
              return !k.set; // \Answered, \Draft and \Recent are never set
          }
        case "text": {
          const v = k.value.toLowerCase();
          if (k.field === "bcc") return (hdrs ?? []).some((h) => h.name === "bcc" && h.value.toLowerCase().includes(v));
          if (!c) return false;
          if (k.field === "body") return c.body.includes(v);
          if (k.field === "text")
            return c.body.includes(v) || c.headers.includes(v) || c.subject.includes(v) || c.from.includes(v) || c.to.includes(v);
          return c[k.field].includes(v);
        }
        case "header": {
          const v = k.value.toLowerCase();
          return (hdrs ?? []).some((h) => h.name === k.name && h.value.toLowerCase().includes(v));
        }
        case "date": {
          const iso = k.field === "sent" ? (c?.sent ?? msg.receivedAt) : msg.receivedAt;
          const day = iso.slice(0, 10);
          return k.op === "before" ? day < k.day : k.op === "on" ? day === k.day : day >= k.day;
        }
        case "size":
          return k.op === "larger" ? msg.size > k.n : msg.size < k.n;
        case "uid":
          return inSet(k.set, msg.uid, maxUid);
        case "seq":
          return inSet(k.set, i + 1, count);
        case "not":
          return !test(k.key);
        case "or":
          return test(k.a) || test(k.b);
        case "and":
          return k.keys.every(test);
      }
    };
    if (test(key)) out.push({ seq: i + 1, msg });
  }
  return out;
}
