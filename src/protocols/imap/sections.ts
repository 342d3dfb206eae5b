// BODY[section] bytes (RFC 3501 §6.4.5): part numbers address the MIME tree; HEADER, TEXT and
// HEADER.FIELDS apply to the message itself or to an encapsulated message/rfc822 part.
import type { Section } from "./parser/fetch-items";
import type { MimeNode } from "./mime-structure";

const EMPTY = Buffer.alloc(0);

/** The entity a part path names, or null when it does not exist. */
export function findPart(root: MimeNode, path: number[]): MimeNode | null {
  let node = root;
  for (let i = 0; i < path.length; i++) {
    const n = path[i]!;
    // A part number inside a message/rfc822 part numbers the encapsulated message's parts;
    // a single-part message's part 1 (its body) has no parts of its own.
    if (i > 0 && node.message) node = node.message;
    else if (i > 0 && node === root) return null;
    if (node.type === "multipart") {
      const child = node.children[n - 1];
      if (!child) return null;
      node = child;
    } else if (n !== 1) return null; // a single part is its own part 1 (at any depth, as Dovecot has it)
  }
  return node;
}

export function sectionBytes(raw: Buffer, root: MimeNode, s: Section): Buffer {
  const node = findPart(root, s.part);
  if (!node) return EMPTY;
  if (s.spec === "") return s.part.length === 0 ? raw : raw.subarray(node.bodyStart, node.bodyEnd);
  if (s.spec === "MIME") return raw.subarray(node.headerStart, node.bodyStart);
  // HEADER/TEXT of a part mean those of the message it encapsulates; other parts have none.
  const msg = s.part.length === 0 ? node : node.message;
  if (!msg) return EMPTY;
  if (s.spec === "TEXT") return raw.subarray(msg.bodyStart, msg.bodyEnd);
  const header = raw.subarray(msg.headerStart, msg.bodyStart);
  if (s.spec === "HEADER") return header;
  return filterHeader(header, new Set(s.fields.map((f) => f.toLowerCase())), s.spec === "HEADER.FIELDS.NOT");
}

/**
 * The header's fields (with their continuation lines) whose names are in / not in `names`, then
 * the blank line if the message has one (a header-only message without it gets none, as in Dovecot).
 */
export function filterHeader(header: Buffer, names: Set<string>, exclude: boolean): Buffer {
  const text = header.toString("latin1");
  const lines = text.split(/(?<=\n)/);
  let out = "";
  let keep = false;
  for (const line of lines) {
    if (line === "\r\n" || line === "\n") break;
    if (line[0] === " " || line[0] === "\t") {
      if (keep) out += line;
      continue;
    }
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon).trim().toLowerCase() : "";
    keep = name !== "" && names.has(name) !== exclude;
    if (keep) out += line.endsWith("\n") ? line : line + "\r\n";
  }
  const blank = /\r?\n\r?\n$/.test(text) || /^\r?\n$/.test(text);
  return Buffer.from(blank ? out + "\r\n" : out, "latin1");
}
