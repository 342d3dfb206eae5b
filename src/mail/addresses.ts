// Inbox addresses: validation of a claimed local part and generation of readable ones.
import { randomInt } from "node:crypto";

const ADJECTIVES = [
  "amber",
  "brave",
  "calm",
  "dapper",
  "eager",
  "fancy",
  "gentle",
  "happy",
  "icy",
  "jolly",
  "keen",
  "lucky",
  "merry",
  "nimble",
  "odd",
  "proud",
  "quick",
  "rapid",
  "sunny",
  "tidy",
  "urban",
  "vivid",
  "witty",
  "young",
  "zesty",
];
const NOUNS = [
  "otter",
  "falcon",
  "maple",
  "harbor",
  "comet",
  "pebble",
  "lantern",
  "meadow",
  "rocket",
  "willow",
  "badger",
  "canyon",
  "dolphin",
  "ember",
  "fjord",
  "glacier",
  "heron",
  "iris",
  "jaguar",
  "koala",
  "lynx",
  "mango",
  "nebula",
  "orchid",
  "puffin",
];

/** Dot-atom local part, restricted to what every client and MTA handles well. */
export function isValidLocalPart(s: string): boolean {
  return /^[A-Za-z0-9_+-]+(\.[A-Za-z0-9_+-]+)*$/.test(s) && s.length >= 1 && s.length <= 64;
}

/** "<name-slug>-<4 digits>" when the inbox has a name, else "<adjective>-<noun>-<4 digits>". */
export function generateLocalPart(name: string | null): string {
  const suffix =
    String(randomInt(0, 10000)).padStart(4, "0") +
    randomInt(0, 36 ** 2)
      .toString(36)
      .padStart(2, "0");
  const slug = (name ?? "")
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  if (slug) return `${slug}-${suffix}`;
  return `${ADJECTIVES[randomInt(0, ADJECTIVES.length)]}-${NOUNS[randomInt(0, NOUNS.length)]}-${suffix}`;
}

/** `box+tag@domain` → `box@domain` (subaddressing, RFC 5233); other addresses unchanged. */
export function withoutTag(address: string): string {
  const at = address.lastIndexOf("@");
  const plus = address.indexOf("+");
  return plus > 0 && plus < at ? address.slice(0, plus) + address.slice(at) : address;
}
