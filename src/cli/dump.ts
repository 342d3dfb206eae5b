// `inboxd dump DIR`: every message of every inbox as DIR/<inbox address>/<message id>.eml (the bytes
// as received, what GET /v1/messages/{id}/raw returns) plus DIR/index.json describing them, for CI
// artifacts. Reads through the storage layer; works on the data directory of a stopped server.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Config } from "../runtime/config";
import { recipientsOf } from "../storage/mail";
import { CliFailure } from "./failure";
import { withDataDir } from "./offline";

const PAGE = 200;

export interface DumpEntry {
  file: string;
  id: string;
  inbox_id: string;
  inbox_address: string;
  project_id: string;
  from: string;
  to: unknown;
  subject: string;
  received_at: string;
  envelope: { mail_from: string | null; rcpt_to: string[] };
  size_bytes: number;
  sha256: string;
}

export async function dump(config: Config, target: string): Promise<number> {
  const out = resolve(target);
  // The target is checked and made before the data directory is locked and read: a bad one is one line, at once.
  if (existsSync(out) && !statSync(out).isDirectory()) throw new CliFailure(`${out} is a file; dump into a new or empty directory`);
  if (existsSync(out) && readdirSync(out).length > 0) throw new CliFailure(`${out} is not empty; dump into a new or empty directory`);
  try {
    mkdirSync(out, { recursive: true });
  } catch (e) {
    throw new CliFailure(`cannot create ${out}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const entries = await withDataDir(config, "dump", true, async (ctx) => {
    const { storage } = ctx;
    const found: DumpEntry[] = [];
    for (let before: string | null = null; ; ) {
      const inboxes = await storage.inboxes.listAll(before, PAGE);
      for (const inbox of inboxes) {
        for (let mBefore: string | null = null; ; ) {
          const messages = await storage.messages.listInInbox(inbox.id, mBefore, PAGE);
          for (const m of messages) {
            const raw = await storage.blobs.get(m.blob_key);
            if (!raw) throw new CliFailure(`message ${m.id}: its raw bytes (blob ${m.blob_key}) are missing from the data directory`);
            const dir = join(out, safeName(inbox.address));
            mkdirSync(dir, { recursive: true });
            const file = `${safeName(inbox.address)}/${m.id}.eml`;
            writeFileSync(join(out, file), raw);
            found.push({
              file,
              id: m.id,
              inbox_id: inbox.id,
              inbox_address: inbox.address,
              project_id: m.project_id,
              from: m.from_email,
              to: JSON.parse(m.to_json),
              subject: m.subject,
              received_at: m.received_at,
              envelope: { mail_from: m.envelope_from, rcpt_to: recipientsOf(m.envelope_to) },
              size_bytes: raw.byteLength,
              sha256: createHash("sha256").update(raw).digest("hex"),
            });
          }
          if (messages.length < PAGE) break;
          mBefore = messages[messages.length - 1]!.id;
        }
      }
      if (inboxes.length < PAGE) break;
      before = inboxes[inboxes.length - 1]!.id;
    }
    return found;
  });
  entries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  writeFileSync(join(out, "index.json"), `${JSON.stringify({ format: "inboxd-dump/1", messages: entries }, null, 2)}\n`);
  console.log(`dumped ${entries.length} message${entries.length === 1 ? "" : "s"} to ${out} (index.json lists them)`);
  return 0;
}

/** An address as a directory name: what a file system takes, nothing that climbs out of DIR. */
function safeName(s: string): string {
  return s.replace(/[^A-Za-z0-9@._+-]/g, "_").replace(/^\.+/, "_");
}
