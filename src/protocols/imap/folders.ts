// What the mailbox commands share: names off the wire, refusals as tagged NO replies, and LIST's
// wildcard matching (RFC 3501 §6.3.8: "*" matches anything, "%" anything but the delimiter).
import { FolderError, DELIMITER } from "../../mail/imap-folders";
import { astring, type Token } from "./parser/tokens";
import { str } from "./wire";

/** A mailbox name argument (astring; modified UTF-7 is kept as the client sent it). */
export function mailboxName(t: Token | undefined): string {
  return astring(t, "mailbox name");
}

/** Runs a folder change; a FolderError becomes "NO [CODE] text", anything else propagates. */
export async function folderReply(done: string, fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
    return done;
  } catch (e) {
    if (e instanceof FolderError) return `NO [${e.code}] ${e.message}`;
    throw e;
  }
}

/** The name as a LIST/STATUS response writes it. */
export function wireName(name: string): string {
  return name === "INBOX" ? "INBOX" : str(name);
}

/** A matcher for reference + pattern; INBOX matches case-insensitively. */
export function patternMatcher(reference: string, pattern: string): (name: string) => boolean {
  const full = reference + pattern;
  const body = [...full]
    .map((ch) => (ch === "*" ? ".*" : ch === "%" ? `[^${DELIMITER}]*` : ch.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")))
    .join("");
  const exact = new RegExp(`^${body}$`, "s");
  const folded = new RegExp(`^${body}$`, "is");
  return (name) => (name === "INBOX" || name.startsWith(`INBOX${DELIMITER}`) ? folded.test(name) : exact.test(name));
}
