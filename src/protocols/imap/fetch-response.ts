// Writes FETCH responses, one message at a time and streamed through the session's buffered
// writer, so a FETCH of thousands of messages never builds more than one message's response.
// Non-PEEK body fetches set \Seen; those writes are batched into one transaction per chunk, committed
// before the chunk's responses go out.
import type { Session } from "./session";
import type { Msg } from "./mailbox";
import type { FetchItem } from "./parser/fetch-items";
import { sectionName } from "./parser/fetch-items";
import { sectionBytes } from "./sections";
import { cachedOnly, rendered, structureOf, type Structure } from "./structure-cache";
import { flagList, internalDate } from "./wire";
import { persistFlags } from "./flags";
import { rawMessage } from "./raw-cache";
import { announceKeywords, extraFlagsOf } from "./extra-flags";

/** Messages whose details (id, blob, date) are read per query: bounds the memory of FETCH 1:* on any mailbox. */
const CHUNK = 256;

/** Answers FETCH for the messages at these 0-based indexes of the view, a chunk at a time. */
export async function writeFetch(s: Session, indexes: number[], items0: FetchItem[], byUid: boolean): Promise<void> {
  const mb = s.mailbox!;
  for (let i = 0; i < indexes.length; i += CHUNK) {
    const targets = indexes.slice(i, i + CHUNK).map((k) => ({ seq: k + 1, msg: mb.at(k) }));
    await mb.withDetails(targets.map((t) => t.msg));
    await writeChunk(s, targets, items0, byUid);
  }
}

async function writeChunk(s: Session, targets: { seq: number; msg: Msg }[], items0: FetchItem[], byUid: boolean): Promise<void> {
  const items = byUid && !items0.some((i) => i.kind === "UID") ? [{ kind: "UID" } as FetchItem, ...items0] : items0;
  const readOnly = s.mailbox!.readOnly;
  const needsRaw = items.some((i) => i.kind === "SECTION" || (i.kind.startsWith("RFC822") && i.kind !== "RFC822.SIZE"));
  const needsStructure = items.some(
    (i) =>
      (i.kind === "SECTION" && i.section.part.length > 0) ||
      (i.kind === "SECTION" && i.section.spec !== "") ||
      i.kind === "BODYSTRUCTURE" ||
      i.kind === "BODY" ||
      i.kind === "ENVELOPE" ||
      i.kind === "RFC822.HEADER" ||
      i.kind === "RFC822.TEXT",
  );
  const setsSeen = !readOnly && items.some((i) => (i.kind === "SECTION" && !i.peek) || i.kind === "RFC822" || i.kind === "RFC822.TEXT");
  // The implicit \Seen is committed before any of the chunk's responses, so the tagged OK (and the
  // FLAGS and MODSEQ the untagged FETCH reports) only ever describe a committed state: a REST read
  // or another node's session right after the OK sees the message read. One transaction per chunk,
  // as the write after the reply was; on PostgreSQL the commit is a round trip the reply now waits for.
  const nowSeen = new Set<Msg>(setsSeen ? targets.filter((t) => !t.msg.gone && !t.msg.seen).map((t) => t.msg) : []);
  if (nowSeen.size) {
    for (const m of nowSeen) m.seen = true;
    await persistFlags(s, [...nowSeen]);
  }
  // \Answered, \Draft and keywords live beside the view (extra-flags.ts): one lookup per chunk.
  const wantsFlags = setsSeen || items.some((i) => i.kind === "FLAGS");
  const extras = wantsFlags
    ? await extraFlagsOf(
        s,
        targets.map((t) => t.msg.uid),
      )
    : new Map<number, string>();
  // CONDSTORE's MODSEQ item: one read per chunk.
  const modseqs = items.some((i) => i.kind === "MODSEQ")
    ? await s.ctx.storage.imapFolders.modseqs(
        s.inbox!.id,
        s.mailbox!.folderId,
        targets.map((t) => t.msg.uid),
      )
    : null;
  for (const { seq, msg } of targets) {
    // Deleted meanwhile (its modseq went with the row): left out like any gone message.
    if (msg.gone || (modseqs && !modseqs.has(msg.uid))) continue;
    let raw: Buffer | null = null;
    let st: Structure | null = null;
    if (needsRaw || (needsStructure && !cachedOnly(msg.blobKey))) {
      raw = await rawMessage(s.ctx.storage.blobs, msg.blobKey);
      if (!raw) continue; // deleted while we were answering
    }
    if (needsStructure) st = structureOf(msg.blobKey, raw);
    // A FLAGS item in the request reports the change already; else it is appended (RFC 3501 §6.4.5).
    let flagsChanged = nowSeen.has(msg);
    if (wantsFlags) await announceKeywords(s, extras.get(msg.uid));
    const parts: (string | Buffer)[] = [];
    const literal = (name: string, b: Buffer) => {
      parts.push(`${name} {${b.length}}\r\n`, b);
    };
    for (const it of items) {
      if (parts.length) parts.push(" ");
      switch (it.kind) {
        case "UID":
          parts.push(`UID ${msg.uid}`);
          break;
        case "FLAGS":
          parts.push(`FLAGS ${flagList(msg, extras.get(msg.uid))}`);
          flagsChanged = false;
          break;
        case "MODSEQ":
          parts.push(`MODSEQ (${modseqs!.get(msg.uid)})`);
          break;
        case "INTERNALDATE":
          parts.push(`INTERNALDATE ${internalDate(msg.receivedAt)}`);
          break;
        case "RFC822.SIZE":
          parts.push(`RFC822.SIZE ${raw ? raw.length : msg.size}`);
          break;
        case "ENVELOPE":
          parts.push(`ENVELOPE ${rendered(st!, "envelope")}`);
          break;
        case "BODYSTRUCTURE":
          parts.push(`BODYSTRUCTURE ${rendered(st!, "bodystructure")}`);
          break;
        case "BODY":
          parts.push(`BODY ${rendered(st!, "body")}`);
          break;
        case "RFC822":
          literal("RFC822", raw!);
          break;
        case "RFC822.HEADER":
          literal("RFC822.HEADER", sectionBytes(raw!, st!.root, { part: [], spec: "HEADER", fields: [] }));
          break;
        case "RFC822.TEXT":
          literal("RFC822.TEXT", sectionBytes(raw!, st!.root, { part: [], spec: "TEXT", fields: [] }));
          break;
        case "SECTION": {
          const whole = it.section.part.length === 0 && it.section.spec === "" ? raw! : sectionBytes(raw!, st!.root, it.section);
          let name = `BODY[${sectionName(it.section)}]`;
          let data = whole;
          if (it.partial) {
            name += `<${it.partial.start}>`;
            data = whole.subarray(Math.min(it.partial.start, whole.length), Math.min(whole.length, it.partial.start + it.partial.length));
          }
          literal(name, data);
          break;
        }
      }
    }
    if (flagsChanged) parts.push(` FLAGS ${flagList(msg, extras.get(msg.uid))}`);
    parts.unshift(`* ${seq} FETCH (`);
    parts.push(")\r\n");
    const pending = s.writeAll(parts);
    if (pending) await pending;
  }
}
