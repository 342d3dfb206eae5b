// Parsed MIME trees and their rendered BODYSTRUCTURE/ENVELOPE, kept per blob key: blobs are
// content-addressed and immutable, so an entry never goes stale. A bounded LRU keeps the memory
// flat however many messages are fetched.
import { parseMime, type MimeNode } from "./mime-structure";
import { bodyStructure } from "./bodystructure";
import { envelope } from "./envelope";

export interface Structure {
  root: MimeNode;
  rendered: { bodystructure?: string; body?: string; envelope?: string };
}

const MAX_ENTRIES = 2000;
const cache = new Map<string, Structure>();

export function structureOf(blobKey: string, raw: Uint8Array | null): Structure | null {
  const hit = cache.get(blobKey);
  if (hit) {
    cache.delete(blobKey);
    cache.set(blobKey, hit);
    return hit;
  }
  if (!raw) return null;
  const s: Structure = { root: parseMime(raw), rendered: {} };
  cache.set(blobKey, s);
  if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  return s;
}

export function cachedOnly(blobKey: string): Structure | null {
  return cache.get(blobKey) ?? null;
}

export function rendered(s: Structure, what: "bodystructure" | "body" | "envelope"): string {
  const r = s.rendered;
  if (what === "envelope") return (r.envelope ??= envelope(s.root));
  if (what === "body") return (r.body ??= bodyStructure(s.root, false));
  return (r.bodystructure ??= bodyStructure(s.root, true));
}
