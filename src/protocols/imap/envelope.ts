// ENVELOPE (RFC 3501 §7.4.2) from a MIME node's header: raw (undecoded) header values, and
// address lists split into (name adl mailbox host), groups included.
import { headerValue, type MimeNode } from "./mime-structure";
import { nstr } from "./wire";

export interface EnvAddress {
  name: string | null;
  /** The source route ("@route1,@route2"; RFC 3501's adl), obsolete but still echoed. */
  adl?: string | null;
  mailbox: string | null;
  host: string | null;
}

export function envelope(node: MimeNode): string {
  const h = (n: string) => headerValue(node.headers, n);
  const from = addrList(h("from"));
  const sender = addrList(h("sender")) ?? from;
  const replyTo = addrList(h("reply-to")) ?? from;
  return `(${[
    nstr(h("date")),
    nstr(h("subject")),
    from ?? "NIL",
    sender ?? "NIL",
    replyTo ?? "NIL",
    addrList(h("to")) ?? "NIL",
    addrList(h("cc")) ?? "NIL",
    addrList(h("bcc")) ?? "NIL",
    nstr(h("in-reply-to")),
    nstr(h("message-id")),
  ].join(" ")})`;
}

function addrList(value: string | null): string | null {
  if (value === null) return null;
  const list = parseAddressList(value);
  if (list.length === 0) return null;
  return `(${list.map((a) => `(${nstr(a.name)} ${nstr(a.adl)} ${nstr(a.mailbox)} ${nstr(a.host)})`).join("")})`;
}

type Tok = { t: "word" | "quoted" | "comment" | "angle" | "sep"; v: string };

function lex(s: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === " " || c === "\t" || c === "\r" || c === "\n") {
      i++;
    } else if (c === '"') {
      let v = "";
      i++;
      while (i < s.length && s[i] !== '"') {
        if (s[i] === "\\" && i + 1 < s.length) i++;
        v += s[i++];
      }
      i++;
      out.push({ t: "quoted", v });
    } else if (c === "(") {
      let depth = 1;
      let v = "";
      i++;
      while (i < s.length && depth > 0) {
        if (s[i] === "\\" && i + 1 < s.length) v += s[++i];
        else if (s[i] === "(") depth++;
        else if (s[i] === ")" && --depth === 0) break;
        v += s[i++];
      }
      i++;
      out.push({ t: "comment", v });
    } else if (c === "<") {
      const close = s.indexOf(">", i);
      const end = close < 0 ? s.length : close;
      out.push({ t: "angle", v: s.slice(i + 1, end).trim() });
      i = end + 1;
    } else if (c === "," || c === ":" || c === ";") {
      out.push({ t: "sep", v: c });
      i++;
    } else {
      let v = "";
      while (i < s.length && !' \t\r\n"(<,:;'.includes(s[i]!)) v += s[i++];
      out.push({ t: "word", v });
    }
  }
  return out;
}

/** Address list with groups flattened into IMAP's start/end markers. */
export function parseAddressList(value: string): EnvAddress[] {
  const toks = lex(value);
  const out: EnvAddress[] = [];
  let cur: Tok[] = [];
  let inGroup = false;
  const finish = () => {
    const a = toAddress(cur);
    if (a) out.push(a);
    cur = [];
  };
  for (const t of toks) {
    if (t.t === "sep" && t.v === ",") finish();
    else if (t.t === "sep" && t.v === ":" && !inGroup && !cur.some((x) => x.t === "angle")) {
      const name = cur
        .map((x) => x.v)
        .join(" ")
        .trim();
      cur = [];
      out.push({ name: null, mailbox: name, host: null });
      inGroup = true;
    } else if (t.t === "sep" && t.v === ";" && inGroup) {
      finish();
      out.push({ name: null, mailbox: null, host: null });
      inGroup = false;
    } else cur.push(t);
  }
  finish();
  if (inGroup) out.push({ name: null, mailbox: null, host: null });
  return out;
}

function toAddress(toks: Tok[]): EnvAddress | null {
  // Only comments ("group: (foo) ;"): no address at all.
  if (!toks.some((t) => t.t !== "comment")) return null;
  const angle = toks.find((t) => t.t === "angle");
  let addr: string;
  let name: string;
  let adl: string | null = null;
  if (angle) {
    const route = angle.v.match(/^(@[^:]*):/);
    if (route) adl = route[1]!;
    addr = angle.v.slice(route ? route[0].length : 0);
    name = toks
      .filter((t) => t !== angle && t.t !== "comment" && toks.indexOf(t) < toks.indexOf(angle))
      .map((t) => t.v)
      .join(" ");
  } else {
    addr = toks
      .filter((t) => t.t === "word" || t.t === "quoted")
      .map((t) => (t.t === "quoted" ? `"${t.v}"` : t.v))
      .join("");
    name = toks.find((t) => t.t === "comment")?.v ?? "";
  }
  if (!addr && !name) return null;
  const at = addr.lastIndexOf("@");
  const mailbox = at < 0 ? addr : addr.slice(0, at);
  const host = at < 0 ? "MISSING_DOMAIN" : addr.slice(at + 1);
  return { name: name.trim() || null, ...(adl ? { adl } : {}), mailbox: mailbox || "MISSING_MAILBOX", host: host || "MISSING_DOMAIN" };
}
