// `inboxd import --inbox ADDRESS FILE|DIR...`: .eml files and mbox files into an existing inbox,
// through ImportService.importRaw (as POST /v1/inboxes/{id}/messages with message/rfc822), so
// parsing, quotas, events and webhooks apply as for mail received over SMTP; the bytes are kept
// exactly. A directory is walked recursively for *.eml and *.mbox (an `inboxd dump` imports back),
// in file-name order (dump names are message ids, so the original order is kept), with the envelopes
// its index.json recorded. Nothing is
// created: the inbox must exist. Works on the data directory of a stopped server.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { Config } from "../runtime/config";
import { DomainError } from "../lib/errors";
import { CliFailure } from "./failure";
import { withDataDir } from "./offline";

export async function importMail(config: Config, address: string, paths: string[]): Promise<number> {
  const files: string[] = [];
  for (const p of paths) {
    const full = resolve(p);
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(full);
    } catch {
      throw new CliFailure(`${full}: no such file or directory`);
    }
    if (st.isDirectory()) files.push(...walk(full).sort((a, b) => cmp(basename(a), basename(b)) || cmp(a, b)));
    else files.push(full);
  }
  const envelopes = new DumpEnvelopes();
  const messages: { file: string; bytes: Uint8Array; envelope: DumpEnvelope | null }[] = [];
  for (const file of files) {
    const bytes = new Uint8Array(readFileSync(file));
    if (bytes.byteLength === 0) throw new CliFailure(`${file}: the file is empty (nothing was imported)`);
    if (isMbox(bytes)) for (const m of splitMbox(bytes)) messages.push({ file, bytes: m, envelope: null });
    else messages.push({ file, bytes, envelope: envelopes.of(file) });
  }
  if (messages.length === 0) throw new CliFailure("no messages found (give .eml or mbox files, or directories holding them)");
  let stored = 0;
  await withDataDir(config, "import", true, async (ctx, services) => {
    const inbox = await ctx.storage.inboxes.byAddress(address.trim().toLowerCase());
    if (!inbox) {
      throw new CliFailure(`no inbox has the address ${address}; create it first (POST /v1/inboxes) or import into the catch-all inbox`);
    }
    for (const m of messages) {
      try {
        await services.imports.importRaw(inbox.projectId, inbox.id, m.bytes, m.envelope);
        stored++;
      } catch (e) {
        if (e instanceof DomainError) throw new CliFailure(`${m.file}: ${e.message} (${stored} of ${messages.length} imported before it)`);
        throw e;
      }
    }
  });
  console.log(`imported ${stored} message${stored === 1 ? "" : "s"} into ${address}`);
  return 0;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

type DumpEnvelope = { mailFrom: string | null; rcptTo: string[] };

/**
 * The envelopes an `inboxd dump` recorded in its index.json, found beside a dumped file or one folder up
 * (DIR/index.json names DIR/<inbox>/<id>.eml): a dump imports back with its senders and recipients, not the
 * From header and the target inbox's address. Each index is read once.
 */
class DumpEnvelopes {
  private byIndex = new Map<string, Map<string, DumpEnvelope> | null>();

  of(file: string): DumpEnvelope | null {
    for (const dir of [dirname(file), dirname(dirname(file))]) {
      const found = this.index(join(dir, "index.json"))?.get(file);
      if (found) return found;
    }
    return null;
  }

  private index(path: string): Map<string, DumpEnvelope> | null {
    if (this.byIndex.has(path)) return this.byIndex.get(path)!;
    let entries: Map<string, DumpEnvelope> | null = null;
    try {
      const doc = JSON.parse(readFileSync(path, "utf8"));
      if (doc?.format === "inboxd-dump/1" && Array.isArray(doc.messages)) {
        entries = new Map();
        for (const m of doc.messages) {
          const e = m?.envelope;
          if (typeof m?.file !== "string" || !e || !Array.isArray(e.rcpt_to)) continue;
          const rcptTo = e.rcpt_to.filter((a: unknown): a is string => typeof a === "string");
          entries.set(join(dirname(path), m.file), { mailFrom: typeof e.mail_from === "string" ? e.mail_from : null, rcptTo });
        }
      }
    } catch {
      // No index here (or not a dump's): the From header and the inbox's address stand.
    }
    this.byIndex.set(path, entries);
    return entries;
  }
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(full));
    else if (/\.(eml|mbox)$/i.test(e.name) || e.name === "mbox") out.push(full);
  }
  return out;
}

const FROM_ = [0x46, 0x72, 0x6f, 0x6d, 0x20]; // "From "

function startsWithFrom(b: Uint8Array, at: number): boolean {
  return FROM_.every((c, i) => b[at + i] === c);
}

/** An mbox file starts with a "From " separator line; an RFC 5322 message cannot. */
export function isMbox(b: Uint8Array): boolean {
  return startsWithFrom(b, 0);
}

/**
 * Splits an mbox (mboxrd/mboxo): a message starts after each line beginning "From "; the newline
 * before the next separator belongs to the format, and ">From " lines (any number of ">") lose one ">".
 */
export function splitMbox(b: Uint8Array): Uint8Array[] {
  const starts: number[] = [];
  for (let i = 0; i < b.length; i = b.indexOf(0x0a, i) + 1 || b.length) {
    if (startsWithFrom(b, i)) starts.push(i);
  }
  const out: Uint8Array[] = [];
  for (let k = 0; k < starts.length; k++) {
    const lineEnd = b.indexOf(0x0a, starts[k]!);
    if (lineEnd < 0) continue;
    let end = k + 1 < starts.length ? starts[k + 1]! : b.length;
    // The blank line that separates messages (LF or CRLF) is the format's, not the message's.
    if (k + 1 < starts.length && b[end - 1] === 0x0a) end -= b[end - 2] === 0x0d ? 2 : 1;
    const msg = unescapeFrom(b.subarray(lineEnd + 1, end));
    if (msg.byteLength > 0) out.push(msg);
  }
  return out;
}

function unescapeFrom(b: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let last = 0;
  for (let i = 0; i < b.length; i = b.indexOf(0x0a, i) + 1 || b.length) {
    let j = i;
    while (b[j] === 0x3e) j++; // '>'
    if (j > i && startsWithFrom(b, j)) {
      parts.push(b.subarray(last, i));
      last = i + 1;
    }
  }
  parts.push(b.subarray(last));
  return Buffer.concat(parts);
}
