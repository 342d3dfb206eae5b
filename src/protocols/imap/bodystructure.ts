// BODY and BODYSTRUCTURE (RFC 3501 §7.4.2) from a MIME tree.
import { headerValue, parseContentValue, type MimeNode } from "./mime-structure";
import { envelope } from "./envelope";
import { nstr, str } from "./wire";

export function bodyStructure(node: MimeNode, extended: boolean): string {
  const h = (n: string) => headerValue(node.headers, n);
  if (node.type === "multipart") {
    // A multipart without parts (no boundary found) is still shown as multipart: IMAP needs one part.
    const kids = node.children.length
      ? node.children.map((c) => bodyStructure(c, extended)).join("")
      : `(${str("text")} ${str("plain")} NIL NIL NIL ${str("7bit")} 0 0)`;
    const out = [kids + " " + str(node.subtype)];
    if (extended)
      out.push(params(node.params), disposition(h("content-disposition")), language(h("content-language")), nstr(h("content-location")));
    return `(${out.join(" ")})`;
  }
  const out = [
    str(node.type),
    str(node.subtype),
    params(node.params),
    nstr(h("content-id")),
    nstr(h("content-description")),
    str(h("content-transfer-encoding")?.toLowerCase() || "7bit"),
    String(node.bodyEnd - node.bodyStart),
  ];
  if (node.message) out.push(envelope(node.message), bodyStructure(node.message, extended), String(node.lines));
  else if (node.type === "text") out.push(String(node.lines));
  if (extended)
    out.push(nstr(h("content-md5")), disposition(h("content-disposition")), language(h("content-language")), nstr(h("content-location")));
  return `(${out.join(" ")})`;
}

function params(p: [string, string][]): string {
  if (p.length === 0) return "NIL";
  return `(${p.map(([k, v]) => `${str(k)} ${str(v)}`).join(" ")})`;
}

function disposition(value: string | null): string {
  if (!value) return "NIL";
  const d = parseContentValue(value);
  if (!d.value) return "NIL";
  return `(${str(d.value.toLowerCase())} ${params(d.params)})`;
}

function language(value: string | null): string {
  if (!value) return "NIL";
  const langs = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (langs.length === 0) return "NIL";
  return langs.length === 1 ? str(langs[0]!) : `(${langs.map(str).join(" ")})`;
}
