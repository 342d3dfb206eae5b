// LIST (RFC 3501 §6.3.8) with the parts of LIST-EXTENDED (RFC 5258) clients use: selection
// options SUBSCRIBED and SPECIAL-USE, RETURN (SUBSCRIBED CHILDREN SPECIAL-USE), several patterns;
// attributes \HasChildren/\HasNoChildren (RFC 3348) and the special-use ones (RFC 6154).
import { astring, listOf, ParseError, type Command, type Token } from "../parser/tokens";
import type { Session } from "../session";
import { DELIMITER } from "../../../mail/imap-folders";
import { patternMatcher, wireName } from "../folders";
import { AUTHED, type CommandDef } from "./types";

const atoms = (t: Token[]) => t.map((x) => (x.t === "atom" ? x.v.toUpperCase() : ""));

export async function listing(s: Session, c: Command, kind: "LIST" | "LSUB"): Promise<string> {
  const args = [...c.args];
  let selection: string[] = [];
  let returns: string[] = [];
  if (kind === "LIST" && args[0]?.t === "list") selection = atoms(listOf(args.shift(), "selection options"));
  if (kind === "LIST" && args.length === 4 && args[2]?.t === "atom" && args[2].v.toUpperCase() === "RETURN") {
    returns = atoms(listOf(args[3], "return options"));
    args.splice(2, 2);
  }
  if (args.length !== 2) return `BAD ${kind} takes a reference and a mailbox pattern`;
  for (const o of selection)
    if (!["SUBSCRIBED", "SPECIAL-USE", "REMOTE", "RECURSIVEMATCH"].includes(o)) return `BAD Unknown selection option ${o.slice(0, 20)}`;
  for (const o of returns) if (!["SUBSCRIBED", "CHILDREN", "SPECIAL-USE"].includes(o)) return `BAD Unknown return option ${o.slice(0, 20)}`;
  // RFC 5258 §3: RECURSIVEMATCH alone (or with only REMOTE) is a syntax error.
  if (selection.includes("RECURSIVEMATCH") && !selection.some((o) => o !== "RECURSIVEMATCH" && o !== "REMOTE")) {
    return "BAD RECURSIVEMATCH needs another selection option";
  }
  const reference = astring(args[0], "reference");
  const patterns = args[1]!.t === "list" ? args[1]!.v.map((t) => astring(t, "pattern")) : [astring(args[1], "pattern")];
  if (patterns.length === 0) throw new ParseError("Empty pattern list");
  if (kind === "LIST" && patterns.length === 1 && patterns[0] === "" && selection.length === 0) {
    await s.write(`* LIST (\\Noselect) "${DELIMITER}" ""\r\n`);
    return "OK LIST completed";
  }
  const folders = await s.services.folders.folders(s.inbox!);
  const existing = [
    { name: "INBOX", subscribed: true, specialUse: null as string | null, nonExistent: false },
    ...folders.map((f) => ({ ...f, nonExistent: false })),
  ];
  const names = existing.map((f) => f.name);
  const subscribedOnly = kind === "LSUB" || selection.includes("SUBSCRIBED");
  // Subscriptions that outlived their mailbox: listed only where subscriptions are (LSUB: \Noselect;
  // LIST (SUBSCRIBED): \NonExistent, RFC 5258 §3.1), after the mailboxes.
  const orphans = subscribedOnly ? await s.services.folders.orphanSubscriptions(s.inbox!) : [];
  const all = [
    ...existing,
    ...orphans
      .filter((n) => !names.includes(n))
      .map((name) => ({ name, subscribed: true, specialUse: null as string | null, nonExistent: true })),
  ];
  const matchers = patterns.map((p) => patternMatcher(reference, p));
  const specialOnly = selection.includes("SPECIAL-USE");
  const showSubscribed = selection.includes("SUBSCRIBED") || returns.includes("SUBSCRIBED");
  // LSUB (RFC 3501 §6.3.9): a level "%" stops at that is not subscribed itself but has subscribed
  // mailboxes under it is listed \Noselect.
  if (kind === "LSUB") {
    const listed = new Set(all.filter((f) => f.subscribed).map((f) => f.name));
    for (const f of all.filter((x) => x.subscribed)) {
      const levels = f.name.split(DELIMITER);
      for (let i = 1; i < levels.length; i++) {
        const parent = levels.slice(0, i).join(DELIMITER);
        // Only where the pattern stops above the subscribed one ("%"), not where it reaches it too ("*").
        if (listed.has(parent) || !matchers.some((m) => m(parent) && !m(f.name))) continue;
        listed.add(parent);
        await s.write(`* LSUB (\\Noselect) "${DELIMITER}" ${wireName(parent)}\r\n`);
      }
    }
  }
  for (const f of all) {
    if (!matchers.some((m) => m(f.name))) continue;
    // RECURSIVEMATCH (RFC 5258 §3.5): a mailbox with a subscribed one under it that the patterns do
    // not list themselves says so in CHILDINFO, and is listed for it even when not subscribed.
    const childInfo =
      kind === "LIST" &&
      selection.includes("SUBSCRIBED") &&
      selection.includes("RECURSIVEMATCH") &&
      all.some((x) => x.subscribed && x.name.startsWith(f.name + DELIMITER) && !matchers.some((m) => m(x.name)));
    if (subscribedOnly && !f.subscribed && !childInfo) continue;
    if (specialOnly && !f.specialUse) continue;
    const hasChildren = names.some((n) => n.startsWith(f.name + DELIMITER));
    const attrs = f.nonExistent ? [kind === "LSUB" ? "\\Noselect" : "\\NonExistent"] : [hasChildren ? "\\HasChildren" : "\\HasNoChildren"];
    if (f.specialUse) attrs.push(f.specialUse);
    if (showSubscribed && f.subscribed) attrs.push("\\Subscribed");
    const extended = childInfo ? ' ("CHILDINFO" ("SUBSCRIBED"))' : "";
    await s.write(`* ${kind} (${attrs.join(" ")}) "${DELIMITER}" ${wireName(f.name)}${extended}\r\n`);
  }
  return `OK ${kind} completed`;
}

export default {
  names: ["LIST"],
  states: AUTHED,
  run: (s, c) => listing(s, c, "LIST"),
} satisfies CommandDef;
