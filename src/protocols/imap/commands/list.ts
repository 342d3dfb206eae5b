// LIST (RFC 3501 §6.3.8): the only mailbox is INBOX; "/" is the (unused) hierarchy delimiter.
import { astring } from "../parser/tokens";
import type { Session } from "../session";
import type { Command } from "../parser/tokens";
import { AUTHED, type CommandDef } from "./types";

/** Whether a LIST pattern (with * and % wildcards) names INBOX. */
export function matchesInbox(reference: string, pattern: string): boolean {
  const full = reference + pattern;
  const re = new RegExp(
    "^" +
      full
        .split("")
        .map((ch) => (ch === "*" ? ".*" : ch === "%" ? "[^/]*" : ch.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
        .join("") +
      "$",
    "i",
  );
  return re.test("INBOX");
}

export async function listing(s: Session, c: Command, kind: "LIST" | "LSUB"): Promise<string> {
  if (c.args.length !== 2) return `BAD ${kind} takes a reference and a mailbox pattern`;
  const reference = astring(c.args[0], "reference");
  const pattern = astring(c.args[1], "pattern");
  if (pattern === "") {
    if (kind === "LIST") await s.write(`* LIST (\\Noselect) "/" ""\r\n`);
  } else if (matchesInbox(reference, pattern)) {
    await s.write(`* ${kind} (\\HasNoChildren) "/" INBOX\r\n`);
  }
  return `OK ${kind} completed`;
}

export default {
  names: ["LIST"],
  states: AUTHED,
  run: (s, c) => listing(s, c, "LIST"),
} satisfies CommandDef;
