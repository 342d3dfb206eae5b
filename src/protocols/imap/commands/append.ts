// APPEND (RFC 3501 §6.3.11, UIDPLUS's APPENDUID, LITERAL+ through the framer): the message goes
// through IngestService.deliver like an import, so it is parsed, indexed, counted against the
// quotas and announced; the filing says which mailbox, which flags and which internal date.
// Appends to INBOX are received mail (webhooks fire); to any other mailbox they are not.
import { FolderError } from "../../../mail/imap-folders";
import { InboxGone, QuotaExceeded } from "../../../mail/ingest";
import { atomOf, ParseError, type Token } from "../parser/tokens";
import { folderReply, mailboxName } from "../folders";
import { applyExtra, COLUMN_FLAGS, extraSpelling } from "../extra-flags";
import { AUTHED, type CommandDef } from "./types";

const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];

/** date-time of RFC 3501 §9 ("17-Jul-1996 02:44:25 -0700", day may be space-padded) as ISO. */
export function parseDateTime(v: string): string | null {
  const m = /^ ?(\d{1,2})-([A-Za-z]{3})-(\d{4}) (\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})$/.exec(v);
  if (!m) return null;
  const month = MONTHS.indexOf(m[2]!.toUpperCase());
  const [day, year, h, min, sec, zh, zm] = [m[1], m[3], m[4], m[5], m[6], m[8], m[9]].map(Number) as number[];
  if (month < 0 || day! < 1 || day! > 31 || h! > 23 || min! > 59 || sec! > 60 || zm! > 59) return null;
  const offset = (m[7] === "-" ? -1 : 1) * (zh! * 60 + zm!);
  // 31-Feb is no date.
  if (new Date(Date.UTC(year!, month, day!)).getUTCDate() !== day) return null;
  return new Date(Date.UTC(year!, month, day!, h!, min!, Math.min(sec!, 59)) - offset * 60_000).toISOString();
}

function flagsOf(t: Token[]): { read: boolean; flagged: boolean; deleted: boolean; extra: string | null } {
  const names = t.map((x) => atomOf(x, "flag"));
  for (const f of names) {
    if (!COLUMN_FLAGS.has(f.toUpperCase()) && extraSpelling(f) === null) throw new ParseError(`Invalid flag ${f.slice(0, 20)}`);
  }
  const has = (f: string) => names.some((n) => n.toUpperCase() === f);
  const extra = applyExtra(
    "",
    "+",
    names.filter((n) => !COLUMN_FLAGS.has(n.toUpperCase())).map((n) => extraSpelling(n)!),
  );
  return { read: has("\\SEEN"), flagged: has("\\FLAGGED"), deleted: has("\\DELETED"), extra: extra || null };
}

interface Part {
  raw: Uint8Array;
  flags: { read: boolean; flagged: boolean; deleted: boolean };
  extra: string | null;
  receivedAt: string | null;
}

/** The messages of APPEND: one or more `[(flags)] ["date-time"] literal` groups (MULTIAPPEND, RFC 3502). */
function partsOf(args: Token[]): Part[] | string {
  const parts: Part[] = [];
  while (args.length) {
    const { extra, ...flags } =
      args[0]?.t === "list" ? flagsOf(args.shift()!.v as Token[]) : { read: false, flagged: false, deleted: false, extra: null };
    let receivedAt: string | null = null;
    if (args[0]?.t === "string" && !args[0].literal) {
      receivedAt = parseDateTime(args.shift()!.v.toString("latin1"));
      if (!receivedAt) return "BAD Invalid date-time";
    }
    const msg = args.shift();
    if (msg?.t !== "string" || !msg.literal) return "BAD APPEND takes a mailbox and one or more [flags] [date] literal messages";
    parts.push({ raw: new Uint8Array(msg.v), flags, extra, receivedAt });
  }
  if (parts.length === 0) return "BAD APPEND takes a mailbox and one or more [flags] [date] literal messages";
  return parts;
}

/** UIDs as a UID set ("4:6,9"): APPENDUID of a MULTIAPPEND (RFC 4315 §3). */
const uidSet = (uids: number[]): string => {
  const out: string[] = [];
  for (let i = 0; i < uids.length; ) {
    let j = i;
    while (j + 1 < uids.length && uids[j + 1] === uids[j]! + 1) j++;
    out.push(j > i ? `${uids[i]}:${uids[j]}` : `${uids[i]}`);
    i = j + 1;
  }
  return out.join(",");
};

export default {
  names: ["APPEND"],
  states: AUTHED,
  async run(s, c) {
    const args = [...c.args];
    const name = mailboxName(args.shift());
    const parts = partsOf(args);
    if (typeof parts === "string") return parts;
    if (parts.some((p) => p.raw.byteLength === 0)) return "NO Empty message";
    const inbox = s.inbox!;
    const total = parts.reduce((n, p) => n + p.raw.byteLength, 0);
    let ok = "";
    const reply = await folderReply("", async () => {
      const target = await s.services.folders.find(inbox, name);
      if (!target) throw new FolderError("TRYCREATE", "No such mailbox (CREATE it first)");
      const ingest = s.services.ingest;
      if (parts.some((p) => p.raw.byteLength > s.ctx.config.smtpMaxBytes)) {
        ok = `NO [LIMIT] Messages are at most ${s.ctx.config.smtpMaxBytes} bytes`;
        return;
      }
      if (!ingest.budget.tryReserve(total)) {
        ok = "NO [UNAVAILABLE] Too much mail is being stored right now; try again shortly";
        return;
      }
      // All or nothing (RFC 3502 §6.3.11): each message is stored as a single APPEND's would be;
      // should one fail, those stored before it are removed again (through the one removal path)
      // before the NO.
      const stored: { id: string; uid: number }[] = [];
      try {
        for (const p of parts) {
          const r = await ingest.deliver(p.raw, (m) => (m.from.email ? m.from.email : null), [
            {
              inbox,
              addresses: [inbox.address],
              filing: { folderId: target.id, flags: p.flags, extraFlags: p.extra, receivedAt: p.receivedAt },
            },
          ]);
          // The UID from the delivery itself: another session may expunge the message at once.
          const uid = r.uids[0];
          if (uid === undefined) throw new InboxGone(inbox.address);
          stored.push({ id: r.messageIds[0]!, uid });
        }
        ok = `OK [APPENDUID ${target.uidValidity} ${uidSet(stored.map((x) => x.uid))}] APPEND completed`;
      } catch (e) {
        if (stored.length)
          await s.services.removal.deleteMessages(
            inbox.projectId,
            stored.map((x) => x.id),
          );
        if (e instanceof QuotaExceeded) ok = `NO [OVERQUOTA] The ${e.refusal.kind} storage quota has no room for this message`;
        else if (e instanceof InboxGone) ok = "NO [NONEXISTENT] The inbox no longer exists";
        else throw e;
      } finally {
        ingest.budget.release(total);
      }
    });
    return ok || reply;
  },
} satisfies CommandDef;
